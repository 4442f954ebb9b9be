// Who may watch and who may act: the token checks of the live view, on the request's target
// ("/path?query") and Cookie header. Pure, no I/O.
//
//   viewers:   ?token=T on the WebSocket URL or an HTTP GET, or the cookie kTokenCookie that a GET
//              with ?token= sets (so the dashboard's own files and modules load without it);
//   operators: ?operator_token=O on the WebSocket URL; they may call operator services.
// Tokens are compared in constant time (access/tokens.hpp) and never logged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "live/options.hpp"

namespace robot_edge::live {

inline constexpr std::string_view kTokenCookie = "robot_edge_live_token";

// What a connection may do.
enum class Role {
  kViewer,             // no operator token presented
  kOperator,           // presented the right operator token
  kWrongOperatorToken  // presented one, not the right one: a viewer told why its calls fail
};

struct Access {
  bool allowed = false;         // the viewer token matched (or none is configured)
  bool token_in_query = false;  // it came as ?token= (the HTTP answer sets the cookie)
  Role role = Role::kViewer;
};

// Decides for a request with `target` (e.g. "/?token=abc") and `cookie_header` ("" = none).
Access Authorize(const LiveOptions& options, std::string_view target,
                 std::string_view cookie_header);

// "" when `options` may start, else why not (a non-loopback address without a token).
std::string CheckOptions(const LiveOptions& options);

// 127.0.0.0/8, ::1 and ::ffff:127.x.y.z.
bool IsLoopbackAddress(std::string_view address);

// The target without its query: "/a/b.js?x=1" -> "/a/b.js".
std::string_view PathOf(std::string_view target);

// The decoded value of `name` in the target's query ("/?a=1&token=x%2By" -> "x+y"), nullopt when
// absent.
std::optional<std::string> QueryParameter(std::string_view target, std::string_view name);

// The value of cookie `name` in a Cookie header ("a=1; b=2"), percent-decoded.
std::optional<std::string> CookieValue(std::string_view cookie_header, std::string_view name);

// ---- Who may connect at all (server_impl's accept and handshake).

// Sockets viewers' WebSockets leave free: the operator's WebSocket, the GETs of its dashboard
// page (a browser opens several at once) and handshakes under way. Viewers may hold
// max_connections - kOperatorSlots.
inline constexpr std::size_t kOperatorSlots = 4;

// The open sockets the live view may hold: `max_connections`, lowered so that `reserved_fds`
// descriptors stay free for the rest of the process under RLIMIT_NOFILE `fd_limit` with
// `open_fds` in use now (0 when even that does not fit).
std::size_t ConnectionCap(std::size_t max_connections, std::uint64_t fd_limit, std::size_t open_fds,
                          std::size_t reserved_fds);

// The Host header (DNS rebinding): its name must be an IP literal, "localhost" or the host of
// one of options.allowed_origins; a name someone's DNS could point at the robot is refused. Its
// port is not checked (an SSH tunnel changes it). "" (no Host) is refused.
bool HostAllowed(const LiveOptions& options, std::string_view host_header);

// The Origin header of a WebSocket upgrade (a browser always sends it): the live view's own
// ("http://", or "https://" with options.tls, + the Host the request was made to) or one of
// options.allowed_origins, compared without case. No Origin at all (Foxglove desktop, command-line
// clients: nothing a web page can do) is allowed; "null" is not.
bool OriginAllowed(const LiveOptions& options, std::string_view origin,
                   std::string_view host_header);

// %XX and '+' (space) decoding; a malformed escape is kept as it is.
std::string PercentDecode(std::string_view text);

// Every byte but unreserved ones (A-Z a-z 0-9 - . _ ~) as %XX.
std::string PercentEncode(std::string_view text);

// The Set-Cookie value that lets a browser load the rest of the dashboard after a GET with
// ?token=: HttpOnly, SameSite=Strict, Path=/, and Secure when `secure` (served over https: the
// browser never sends it over plain http).
std::string TokenCookie(std::string_view token, bool secure);

}  // namespace robot_edge::live
