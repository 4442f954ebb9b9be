// Welcome.live_url: where robot-edge-live serves the live view, from the config's live section;
// https:// when live.tls is set (issue 32, item 8), so that clients open it over TLS.
#include <gtest/gtest.h>

#include "daemon/daemon.hpp"

namespace robot_edge::daemon {
namespace {

config::LiveConfig Live(std::string host, std::uint16_t port) {
  config::LiveConfig live;
  live.address = host + ":" + std::to_string(port);
  live.host = std::move(host);
  live.port = port;
  return live;
}

TEST(LiveUrl, HttpsWithLiveTls) {
  config::LiveConfig live = Live("192.168.1.20", 8765);
  EXPECT_EQ(LiveUrl(live), "http://192.168.1.20:8765/");
  live.tls.certificate = "live.pem";
  EXPECT_EQ(LiveUrl(live), "https://192.168.1.20:8765/");
  live = Live("::1", 8765);
  live.tls.certificate = "live.pem";
  EXPECT_EQ(LiveUrl(live), "https://[::1]:8765/");
  EXPECT_EQ(LiveUrl(Live("localhost", 9000)), "http://127.0.0.1:9000/");
}

TEST(LiveUrl, NoneWhenOffOrOnAnyPort) {
  EXPECT_EQ(LiveUrl(config::LiveConfig{}), "");
  EXPECT_EQ(LiveUrl(Live("127.0.0.1", 0)), "");  // only robot-edge-live's log knows the port
}

}  // namespace
}  // namespace robot_edge::daemon
