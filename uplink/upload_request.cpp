#include "uplink/upload_request.hpp"

#include <cctype>
#include <charconv>

namespace robot_edge::uplink {

namespace {

class FlatJson {
 public:
  explicit FlatJson(std::string_view text) : s_(text) {}

  std::optional<std::map<std::string, std::string>> Parse(std::string* error) {
    std::map<std::string, std::string> out;
    Space();
    if (!Eat('{')) return Fail(error, "not a JSON object");
    Space();
    if (Eat('}')) return Done(std::move(out), error);
    for (;;) {
      std::string key, value;
      Space();
      if (!String(&key)) return Fail(error, "a key must be a string");
      Space();
      if (!Eat(':')) return Fail(error, "':' expected after \"" + key + "\"");
      Space();
      if (!Value(&value)) return Fail(error, "\"" + key + "\": only strings, numbers, booleans");
      if (!out.emplace(key, value).second) return Fail(error, "\"" + key + "\" twice");
      Space();
      if (Eat('}')) return Done(std::move(out), error);
      if (!Eat(',')) return Fail(error, "',' or '}' expected");
    }
  }

 private:
  std::optional<std::map<std::string, std::string>> Done(std::map<std::string, std::string> m,
                                                         std::string* error) {
    Space();
    if (i_ != s_.size()) return Fail(error, "bytes after the object");
    return m;
  }
  std::nullopt_t Fail(std::string* error, const std::string& why) {
    *error = why;
    return std::nullopt;
  }
  void Space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool Eat(char c) {
    if (i_ >= s_.size() || s_[i_] != c) return false;
    ++i_;
    return true;
  }
  bool String(std::string* out) {
    if (!Eat('"')) return false;
    while (i_ < s_.size()) {
      const char c = s_[i_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (i_ >= s_.size()) return false;
      const char e = s_[i_++];
      switch (e) {
        case '"':
        case '\\':
        case '/': *out += e; break;
        case 'n': *out += '\n'; break;
        case 't': *out += '\t'; break;
        case 'r': *out += '\r'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'u': {  // only ASCII: nothing the fields here need is outside it
          unsigned code = 0;
          if (i_ + 4 > s_.size()) return false;
          const auto [p, ec] = std::from_chars(s_.data() + i_, s_.data() + i_ + 4, code, 16);
          if (ec != std::errc() || p != s_.data() + i_ + 4 || code == 0 || code > 0x7f) {
            return false;
          }
          i_ += 4;
          *out += static_cast<char>(code);
          break;
        }
        default: return false;
      }
    }
    return false;
  }
  bool Value(std::string* out) {
    if (i_ < s_.size() && s_[i_] == '"') return String(out);
    for (const char* word : {"true", "false"}) {
      if (s_.substr(i_).rfind(word, 0) == 0) {
        *out = word;
        i_ += std::string_view(word).size();
        return true;
      }
    }
    const std::size_t start = i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-' ||
                              s_[i_] == '+' || s_[i_] == '.' || s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
    }
    *out = std::string(s_.substr(start, i_ - start));
    return i_ > start;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

bool Printable(std::string_view text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x21 || static_cast<unsigned char>(c) > 0x7e) return false;
  }
  return true;
}

}  // namespace

std::optional<std::map<std::string, std::string>> ParseFlatJson(std::string_view text,
                                                                std::string* error) {
  return FlatJson(text).Parse(error);
}

bool ValidFileName(std::string_view name) {
  if (name.empty() || name.size() > 255 || name.front() == '.') return false;
  return name.find('/') == std::string_view::npos && name.find('\0') == std::string_view::npos;
}

std::string CheckUploadUrl(std::string_view url, bool allow_plain_http_loopback) {
  if (!Printable(url)) return "the URL has spaces or control characters";
  const bool https = url.rfind("https://", 0) == 0;
  const bool http = url.rfind("http://", 0) == 0;
  if (!https && !http) return "the URL must be https://";
  const std::string_view rest = url.substr(https ? 8 : 7);
  const std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (authority.empty()) return "the URL has no host";
  if (authority.find('@') != std::string_view::npos) return "the URL must not carry a user";
  if (https) return "";
  if (!allow_plain_http_loopback) {
    return "plain http:// is refused (https:// only; upload.allow_plain_http_loopback is for "
           "tests)";
  }
  std::string_view host = authority;
  if (host.front() == '[') {
    host = host.substr(0, host.find(']') + 1);
  } else {
    host = host.substr(0, host.find(':'));
  }
  if (host != "127.0.0.1" && host != "[::1]") {
    return "plain http:// only to 127.0.0.1 or [::1] (upload.allow_plain_http_loopback)";
  }
  return "";
}

ParsedUploadRequest ParseUploadRequest(std::string_view json, std::int64_t now_s,
                                       bool allow_plain_http_loopback) {
  ParsedUploadRequest out;
  std::string error;
  const auto fields = ParseFlatJson(json, &error);
  if (!fields) {
    out.error = "malformed JSON: " + error;
    return out;
  }
  const auto get = [&](const char* key) -> const std::string* {
    const auto it = fields->find(key);
    return it == fields->end() ? nullptr : &it->second;
  };
  if (const std::string* id = get("id"); id && id->size() <= 64 && Printable(*id)) out.id = *id;
  const std::string* type = get("type");
  const std::string* file = get("file");
  const std::string* url = get("url");
  const std::string* expires = get("expires_at");
  const std::string* checksum = get("checksum_header");
  const std::string* protocol = get("protocol");
  std::int64_t expires_at = 0;
  if (!type || *type != "upload") {
    out.error = "\"type\" must be \"upload\"";
  } else if (!get("id") || out.id.empty()) {
    out.error = "\"id\" is missing or not 1..64 printable characters";
  } else if (!file || (*file != kLatestBlackBox && !ValidFileName(*file))) {
    out.error =
        "\"file\" must be a file name in the recordings directory (no '/', not '.'-first) "
        "or \"latest\"";
  } else if (!url) {
    out.error = "\"url\" is missing";
  } else if (const std::string why = CheckUploadUrl(*url, allow_plain_http_loopback);
             !why.empty()) {
    out.error = "\"url\": " + why;
  } else if (!expires ||
             std::from_chars(expires->data(), expires->data() + expires->size(), expires_at).ptr !=
                 expires->data() + expires->size()) {
    out.error = "\"expires_at\" must be an integer (Unix seconds)";
  } else if (expires_at <= now_s) {
    out.error = "expired: \"expires_at\" " + std::to_string(expires_at) + " is not after now (" +
                std::to_string(now_s) + ")";
  } else if (checksum && *checksum != "true" && *checksum != "false") {
    out.error = "\"checksum_header\" must be true or false";
  } else if (protocol && *protocol != "put" && *protocol != "gcs-resumable") {
    out.error = "\"protocol\" must be \"put\" or \"gcs-resumable\"";
  } else {
    out.request = UploadRequest{out.id,
                                *file,
                                *url,
                                expires_at,
                                !checksum || *checksum == "true",
                                protocol && *protocol == "gcs-resumable"};
  }
  return out;
}

}  // namespace robot_edge::uplink
