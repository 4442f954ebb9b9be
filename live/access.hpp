// Who may watch and who may act: the token checks of the live view, on the request's target
// ("/path?query") and Cookie header. Pure, no I/O.
//
//   viewers:   ?token=T on the WebSocket URL or an HTTP GET, or the cookie kTokenCookie that a GET
//              with ?token= sets (so the dashboard's own files and modules load without it);
//   operators: ?operator_token=O on the WebSocket URL; they may call operator services.
// Tokens are compared in constant time and never logged.
#pragma once

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

// Equal contents, in a time that depends on the lengths only.
bool TokensEqual(std::string_view presented, std::string_view expected);

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

// %XX and '+' (space) decoding; a malformed escape is kept as it is.
std::string PercentDecode(std::string_view text);

// Every byte but unreserved ones (A-Z a-z 0-9 - . _ ~) as %XX.
std::string PercentEncode(std::string_view text);

// The Set-Cookie value that lets a browser load the rest of the dashboard after a GET with
// ?token=: HttpOnly, SameSite=Strict, Path=/.
std::string TokenCookie(std::string_view token);

}  // namespace robot_edge::live
