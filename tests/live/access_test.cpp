// Who may watch and who may act: tokens in the query or the cookie, refusals, and the start-up
// check of the options.
#include "live/access.hpp"

#include <gtest/gtest.h>

#include <asio/ssl/context.hpp>
#include <memory>

#include <cstdint>

namespace robot_edge::live {
namespace {

LiveOptions WithTokens(std::string token, std::string operator_token) {
  LiveOptions options;
  options.token = std::move(token);
  options.operator_token = std::move(operator_token);
  return options;
}

TEST(Query, ParametersArePercentDecoded) {
  EXPECT_EQ(QueryParameter("/?token=abc", "token"), "abc");
  EXPECT_EQ(QueryParameter("/x?a=1&token=a%2Bb%20c&b=2", "token"), "a+b c");
  EXPECT_EQ(QueryParameter("/?token=", "token"), "");
  EXPECT_EQ(QueryParameter("/?tok=1", "token"), std::nullopt);
  EXPECT_EQ(QueryParameter("/token=1", "token"), std::nullopt);
  EXPECT_EQ(QueryParameter("/?a=%zz", "a"), "%zz");  // malformed escape kept
  EXPECT_EQ(PathOf("/js/app.js?token=1"), "/js/app.js");
  EXPECT_EQ(PathOf("/"), "/");
}

TEST(Cookie, FindsTheNamedOne) {
  EXPECT_EQ(CookieValue("a=1; robot_edge_live_token=x%3By; b=2", kTokenCookie), "x;y");
  EXPECT_EQ(CookieValue("robot_edge_live_token=", kTokenCookie), "");
  EXPECT_EQ(CookieValue("other=1", kTokenCookie), std::nullopt);
  EXPECT_EQ(CookieValue("", kTokenCookie), std::nullopt);
}

TEST(Cookie, TokenCookieReadsBackAndStaysInItsSite) {
  const std::string cookie = TokenCookie("a b;c", /*secure=*/false);
  EXPECT_EQ(cookie, "robot_edge_live_token=a%20b%3Bc; Path=/; HttpOnly; SameSite=Strict");
  EXPECT_EQ(CookieValue(cookie.substr(0, cookie.find(';')), kTokenCookie), "a b;c");
}

TEST(Cookie, OverHttpsTheBrowserNeverSendsItInClear) {
  EXPECT_EQ(TokenCookie("t", /*secure=*/true),
            "robot_edge_live_token=t; Path=/; HttpOnly; SameSite=Strict; Secure");
}

TEST(Authorize, WithoutATokenEveryoneWatches) {
  const Access access = Authorize(WithTokens("", ""), "/", "");
  EXPECT_TRUE(access.allowed);
  EXPECT_FALSE(access.token_in_query);
  EXPECT_EQ(access.role, Role::kViewer);
}

TEST(Authorize, TokenFromQueryOrCookie) {
  const LiveOptions options = WithTokens("t0k", "");
  EXPECT_FALSE(Authorize(options, "/", "").allowed);
  EXPECT_FALSE(Authorize(options, "/?token=nope", "").allowed);
  EXPECT_FALSE(Authorize(options, "/?token=", "").allowed);
  const Access by_query = Authorize(options, "/?token=t0k", "");
  EXPECT_TRUE(by_query.allowed);
  EXPECT_TRUE(by_query.token_in_query);
  const Access by_cookie = Authorize(options, "/app.js", "robot_edge_live_token=t0k");
  EXPECT_TRUE(by_cookie.allowed);
  EXPECT_FALSE(by_cookie.token_in_query);
  EXPECT_FALSE(Authorize(options, "/app.js", "robot_edge_live_token=t0K").allowed);
  // A wrong query token is not rescued by a right cookie: what the URL says is what counts.
  EXPECT_FALSE(Authorize(options, "/?token=x", "robot_edge_live_token=t0k").allowed);
}

TEST(Authorize, OperatorRole) {
  const LiveOptions options = WithTokens("", "op");
  EXPECT_EQ(Authorize(options, "/", "").role, Role::kViewer);
  EXPECT_EQ(Authorize(options, "/?operator_token=op", "").role, Role::kOperator);
  EXPECT_EQ(Authorize(options, "/?operator_token=po", "").role, Role::kWrongOperatorToken);
  EXPECT_EQ(Authorize(options, "/?operator_token=", "").role, Role::kWrongOperatorToken);
  // No operator token configured: nobody is an operator, even presenting "".
  EXPECT_EQ(Authorize(WithTokens("", ""), "/?operator_token=", "").role, Role::kWrongOperatorToken);
}

TEST(Loopback, Addresses) {
  EXPECT_TRUE(IsLoopbackAddress("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackAddress("127.1.2.3"));
  EXPECT_TRUE(IsLoopbackAddress("::1"));
  EXPECT_TRUE(IsLoopbackAddress("::ffff:127.0.0.1"));
  EXPECT_FALSE(IsLoopbackAddress("0.0.0.0"));
  EXPECT_FALSE(IsLoopbackAddress("::"));
  EXPECT_FALSE(IsLoopbackAddress("192.168.1.10"));
  EXPECT_FALSE(IsLoopbackAddress("localhost"));  // not an address: never assumed loopback
  EXPECT_FALSE(IsLoopbackAddress(""));
}

TEST(CheckOptions, NoTokenOffLoopbackIsRefusedWithTheReason) {
  LiveOptions options;
  options.address = "0.0.0.0";
  EXPECT_EQ(CheckOptions(options).rfind(
                "live view on 0.0.0.0 without a token: anyone on the network would watch the "
                "robot",
                0),
            0u);
  options.token = "t";
  EXPECT_EQ(CheckOptions(options), "");
  options = LiveOptions{};
  EXPECT_EQ(CheckOptions(options), "");  // 127.0.0.1 without a token: fine
  options.max_client_backlog_bytes = 0;
  EXPECT_NE(CheckOptions(options), "");
}

TEST(ConnectionCap, KeepsTheDaemonsDescriptorsUnderTheLimit) {
  EXPECT_EQ(ConnectionCap(16, 1024, 20, 128), 16u);  // plenty
  EXPECT_EQ(ConnectionCap(16, 256, 20, 128), 16u);   // the probe's limit: 108 left
  EXPECT_EQ(ConnectionCap(16, 150, 20, 128), 2u);    // lowered to what is left
  EXPECT_EQ(ConnectionCap(16, 148, 20, 128), 0u);    // nothing left: no connection at all
  EXPECT_EQ(ConnectionCap(16, 100, 20, 128), 0u);
  EXPECT_EQ(ConnectionCap(16, UINT64_MAX, 20, 128), 16u);  // RLIM_INFINITY
}

TEST(HostAllowed, IpLiteralsLocalhostAndAllowedOriginsOnly) {
  LiveOptions options;
  EXPECT_TRUE(HostAllowed(options, "127.0.0.1:8765"));
  EXPECT_TRUE(HostAllowed(options, "192.168.1.10"));
  EXPECT_TRUE(HostAllowed(options, "[::1]:8765"));
  EXPECT_TRUE(HostAllowed(options, "LocalHost:9000"));            // an SSH tunnel's port
  EXPECT_FALSE(HostAllowed(options, "robot.evil.example:8765"));  // DNS rebinding
  EXPECT_FALSE(HostAllowed(options, "localhost.evil.example"));
  EXPECT_FALSE(HostAllowed(options, ""));
  EXPECT_FALSE(HostAllowed(options, "[::1"));
  options.allowed_origins = {"https://robot.lab.example"};
  EXPECT_TRUE(HostAllowed(options, "robot.lab.example:8765"));
}

TEST(OriginAllowed, ItsOwnTheListedOrNone) {
  LiveOptions options;
  EXPECT_TRUE(OriginAllowed(options, "", "127.0.0.1:8765"));  // not a browser
  EXPECT_TRUE(OriginAllowed(options, "http://127.0.0.1:8765", "127.0.0.1:8765"));
  EXPECT_TRUE(OriginAllowed(options, "HTTP://LOCALHOST:9000/", "localhost:9000"));
  EXPECT_FALSE(OriginAllowed(options, "http://127.0.0.1:9999", "127.0.0.1:8765"));
  EXPECT_FALSE(OriginAllowed(options, "http://evil.example", "127.0.0.1:8765"));
  EXPECT_FALSE(OriginAllowed(options, "null", "127.0.0.1:8765"));
  EXPECT_FALSE(OriginAllowed(options, "http://evil.example", ""));
  options.allowed_origins = {"https://app.foxglove.dev/"};
  EXPECT_TRUE(OriginAllowed(options, "https://app.foxglove.dev", "127.0.0.1:8765"));
  EXPECT_FALSE(OriginAllowed(options, "http://app.foxglove.dev", "127.0.0.1:8765"));
}

TEST(OriginAllowed, WithTlsItsOwnIsHttps) {
  LiveOptions options;
  EXPECT_FALSE(OriginAllowed(options, "https://127.0.0.1:8765", "127.0.0.1:8765"));
  options.tls = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
  EXPECT_TRUE(OriginAllowed(options, "https://127.0.0.1:8765", "127.0.0.1:8765"));
  EXPECT_TRUE(OriginAllowed(options, "HTTPS://LOCALHOST:9000/", "localhost:9000"));
  EXPECT_FALSE(OriginAllowed(options, "http://127.0.0.1:8765", "127.0.0.1:8765"));
}

}  // namespace
}  // namespace robot_edge::live
