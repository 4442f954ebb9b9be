#include "live/access.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

#include "access/tokens.hpp"

namespace robot_edge::live {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Calls f(key, value) for each `sep`-separated "key=value" of `list` until f returns true.
template <typename F>
bool ForEachPair(std::string_view list, char sep, F f) {
  while (!list.empty()) {
    const std::size_t end = list.find(sep);
    const std::string_view pair = Trim(list.substr(0, end));
    list = end == std::string_view::npos ? std::string_view{} : list.substr(end + 1);
    const std::size_t eq = pair.find('=');
    if (f(pair.substr(0, eq), eq == std::string_view::npos ? "" : pair.substr(eq + 1))) {
      return true;
    }
  }
  return false;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// "host:port", "[v6]:port", "host" -> "host" / "v6", lower case.
std::string HostName(std::string_view host_header) {
  host_header = Trim(host_header);
  if (!host_header.empty() && host_header.front() == '[') {
    const std::size_t end = host_header.find(']');
    return end == std::string_view::npos ? "" : Lower(host_header.substr(1, end - 1));
  }
  return Lower(host_header.substr(0, host_header.find(':')));
}

bool IsIpLiteral(const std::string& name) {
  in_addr v4{};
  in6_addr v6{};
  return inet_pton(AF_INET, name.c_str(), &v4) == 1 || inet_pton(AF_INET6, name.c_str(), &v6) == 1;
}

// "https://app.foxglove.dev/" -> "app.foxglove.dev"
std::string OriginHost(std::string_view origin) {
  const std::size_t scheme = origin.find("://");
  if (scheme == std::string_view::npos) return "";
  origin.remove_prefix(scheme + 3);
  return HostName(origin.substr(0, origin.find('/')));
}

std::string_view WithoutSlash(std::string_view s) {
  while (!s.empty() && s.back() == '/') s.remove_suffix(1);
  return s;
}

}  // namespace

std::size_t ConnectionCap(std::size_t max_connections, std::uint64_t fd_limit, std::size_t open_fds,
                          std::size_t reserved_fds) {
  const std::uint64_t needed = static_cast<std::uint64_t>(open_fds) + reserved_fds;
  if (fd_limit <= needed) return 0;
  return static_cast<std::size_t>(std::min<std::uint64_t>(max_connections, fd_limit - needed));
}

bool HostAllowed(const LiveOptions& options, std::string_view host_header) {
  const std::string name = HostName(host_header);
  if (name.empty()) return false;
  if (name == "localhost" || IsIpLiteral(name)) return true;
  return std::any_of(options.allowed_origins.begin(), options.allowed_origins.end(),
                     [&](const std::string& o) { return OriginHost(o) == name; });
}

bool OriginAllowed(const LiveOptions& options, std::string_view origin,
                   std::string_view host_header) {
  origin = WithoutSlash(Trim(origin));
  if (origin.empty()) return true;
  const std::string lower = Lower(origin);
  const std::string host = Lower(Trim(host_header));
  if (!host.empty() && lower == (options.tls ? "https://" : "http://") + host) return true;
  return std::any_of(options.allowed_origins.begin(), options.allowed_origins.end(),
                     [&](const std::string& o) { return Lower(WithoutSlash(o)) == lower; });
}

Access Authorize(const LiveOptions& options, std::string_view target,
                 std::string_view cookie_header) {
  Access access;
  if (options.token.empty()) {
    access.allowed = true;
  } else if (const auto query = QueryParameter(target, "token")) {
    access.allowed = access::TokensEqual(*query, options.token);
    access.token_in_query = access.allowed;
  } else if (const auto cookie = CookieValue(cookie_header, kTokenCookie)) {
    access.allowed = access::TokensEqual(*cookie, options.token);
  }
  if (const auto op = QueryParameter(target, "operator_token")) {
    const bool right =
        !options.operator_token.empty() && access::TokensEqual(*op, options.operator_token);
    access.role = right ? Role::kOperator : Role::kWrongOperatorToken;
  }
  return access;
}

std::string CheckOptions(const LiveOptions& options) {
  if (options.token.empty() && !IsLoopbackAddress(options.address)) {
    return "live view on " + options.address +
           " without a token: anyone on the network would watch the robot (set a token, or "
           "listen on 127.0.0.1)";
  }
  if (options.max_client_backlog_bytes == 0) return "live view: max_client_backlog_bytes is 0";
  return "";
}

bool IsLoopbackAddress(std::string_view address) {
  const std::string text(address);
  in_addr v4{};
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, text.c_str(), &v6) != 1) return false;
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

std::string_view PathOf(std::string_view target) { return target.substr(0, target.find('?')); }

std::optional<std::string> QueryParameter(std::string_view target, std::string_view name) {
  const std::size_t q = target.find('?');
  if (q == std::string_view::npos) return std::nullopt;
  std::optional<std::string> value;
  ForEachPair(target.substr(q + 1), '&', [&](std::string_view key, std::string_view v) {
    if (PercentDecode(key) != name) return false;
    value = PercentDecode(v);
    return true;
  });
  return value;
}

std::optional<std::string> CookieValue(std::string_view cookie_header, std::string_view name) {
  std::optional<std::string> value;
  ForEachPair(cookie_header, ';', [&](std::string_view key, std::string_view v) {
    if (key != name) return false;
    value = PercentDecode(v);
    return true;
  });
  return value;
}

std::string PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 &&
               HexValue(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2])));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string PercentEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (alnum || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    }
  }
  return out;
}

std::string TokenCookie(std::string_view token, bool secure) {
  return std::string(kTokenCookie) + "=" + PercentEncode(token) +
         "; Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "");
}

}  // namespace robot_edge::live
