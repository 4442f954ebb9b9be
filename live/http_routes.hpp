// What the live view answers to an HTTP GET: documents set by the program (e.g. /robot.json) and
// the dashboard's files under web_root. Owned and used by the live thread only.
//
// Files are read on each request (small, and a changed file shows on reload). Paths with "..",
// hidden names, backslashes or NULs are refused; "/" is "/index.html". Every answer carries
// Cache-Control: no-store and a Content-Security-Policy that lets the page load nothing but this
// server's own files and connect to nothing but this server.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace robot_edge::live {

struct HttpReply {
  int status = 404;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

inline constexpr std::string_view kContentSecurityPolicy =
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; "
    "frame-ancestors 'none'";

class HttpRoutes {
 public:
  explicit HttpRoutes(std::string web_root) : web_root_(std::move(web_root)) {}

  // `path` like "/robot.json"; replaces an earlier document of that path; documents win over
  // files of the same path.
  void SetDocument(std::string path, std::string content_type, std::string body);

  // The answer to a GET of `path` (without its query).
  HttpReply Get(std::string_view path) const;

 private:
  struct Document {
    std::string content_type;
    std::string body;
  };
  std::string web_root_;
  std::map<std::string, Document, std::less<>> documents_;
};

// The file under web_root a URL path names ("/" -> "index.html", "/js/app.js" -> "js/app.js"),
// nullopt when it may not name one.
std::optional<std::string> WebRootRelative(std::string_view url_path);

// By extension: .html .js .mjs .css .json .png .svg .ico .txt; else application/octet-stream.
std::string_view ContentTypeOf(std::string_view file_name);

}  // namespace robot_edge::live
