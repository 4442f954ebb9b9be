#include "live/http_routes.hpp"

#include <algorithm>
#include <fstream>
#include <utility>

namespace robot_edge::live {
namespace {

constexpr std::size_t kMaxFileBytes = 16 << 20;

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::optional<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  std::string body;
  char chunk[16384];
  while (file.read(chunk, sizeof chunk) || file.gcount() > 0) {
    body.append(chunk, static_cast<std::size_t>(file.gcount()));
    if (body.size() > kMaxFileBytes) return std::nullopt;
  }
  return body;
}

}  // namespace

void HttpRoutes::SetDocument(std::string path, std::string content_type, std::string body) {
  documents_[std::move(path)] = Document{std::move(content_type), std::move(body)};
}

HttpReply HttpRoutes::Get(std::string_view path) const {
  if (const auto it = documents_.find(path); it != documents_.end()) {
    return HttpReply{200, it->second.content_type, it->second.body};
  }
  const auto relative = WebRootRelative(path);
  if (!web_root_.empty() && relative) {
    if (auto body = ReadSmallFile(web_root_ + "/" + *relative)) {
      return HttpReply{200, std::string(ContentTypeOf(*relative)), std::move(*body)};
    }
  }
  return HttpReply{404, "text/plain; charset=utf-8", "not found\n"};
}

std::optional<std::string> WebRootRelative(std::string_view url_path) {
  if (url_path.empty() || url_path.front() != '/') return std::nullopt;
  std::string relative(url_path.substr(1));
  if (relative.empty() || relative.back() == '/') relative += "index.html";
  if (relative.find('\\') != std::string::npos || relative.find('\0') != std::string::npos) {
    return std::nullopt;
  }
  // Every segment non-empty and not hidden: refuses "..", ".git", "a//b".
  std::size_t start = 0;
  while (start <= relative.size()) {
    const std::size_t end = std::min(relative.find('/', start), relative.size());
    if (end == start || relative[start] == '.') return std::nullopt;
    start = end + 1;
  }
  return relative;
}

std::string_view ContentTypeOf(std::string_view file_name) {
  static constexpr std::pair<std::string_view, std::string_view> kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".png", "image/png"},
      {".svg", "image/svg+xml"},
      {".ico", "image/x-icon"},
      {".txt", "text/plain; charset=utf-8"},
  };
  for (const auto& [extension, type] : kTypes) {
    if (EndsWith(file_name, extension)) return type;
  }
  return "application/octet-stream";
}

}  // namespace robot_edge::live
