#include "daemon/options.hpp"

#include <gtest/gtest.h>

namespace robot_edge::daemon {
namespace {

TEST(CommandLine, ParsesEveryOption) {
  std::string error;
  const auto cl = ParseCommandLine(
      {"--config", "a.yaml", "--api-socket", "/tmp/s", "--log-level", "debug", "--check-config"},
      &error);
  ASSERT_TRUE(cl) << error;
  EXPECT_EQ(cl->config_path, "a.yaml");
  EXPECT_EQ(cl->api_socket, "/tmp/s");
  EXPECT_EQ(cl->log_level, "debug");
  EXPECT_TRUE(cl->check_config);
}

TEST(CommandLine, DefaultsToTheInstalledConfig) {
  std::string error;
  const auto cl = ParseCommandLine({}, &error);
  ASSERT_TRUE(cl);
  EXPECT_EQ(cl->config_path, "/etc/robot-edge/robot-edge.yaml");
  EXPECT_EQ(cl->log_level, "info");
}

TEST(CommandLine, UsageErrorsSayWhatIsWrong) {
  std::string error;
  EXPECT_FALSE(ParseCommandLine({"--config"}, &error));
  EXPECT_EQ(error, "--config needs a value");
  EXPECT_FALSE(ParseCommandLine({"--log-level", "loud"}, &error));
  EXPECT_EQ(error, "--log-level: 'loud' is not one of trace, debug, info, warn, error");
  EXPECT_FALSE(ParseCommandLine({"--frobnicate"}, &error));
  EXPECT_EQ(error, "unknown argument '--frobnicate'");
}

}  // namespace
}  // namespace robot_edge::daemon
