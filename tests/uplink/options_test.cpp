// The uplink's configuration (uplink/options.hpp) and topics (uplink/topics.hpp): the shipped
// example parses, and each rule refuses a bad value naming its key and line.
#include "uplink/options.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "uplink/topics.hpp"

namespace robot_edge::uplink {
namespace {

const std::string kMinimal =
    "robot_id: r-001\n"
    "broker:\n"
    "  host: fleet.example.com\n"
    "  ca: /etc/ca.pem\n"
    "  cert: /etc/robot.pem\n"
    "  key: /etc/robot.key\n";

// The one problem `text` has; fails when it parses.
std::string Problem(const std::string& text) {
  try {
    ParseUplinkConfig(text, "uplink.yaml");
  } catch (const UplinkConfigError& e) {
    EXPECT_EQ(e.problems().size(), 1u) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "parsed:\n" << text;
  return "";
}

TEST(UplinkOptions, DefaultsWhatIsNotGiven) {
  const UplinkOptions o = ParseUplinkConfig(kMinimal, "uplink.yaml");
  EXPECT_EQ(o.robot_id, "r-001");
  EXPECT_EQ(o.broker.port, 8883u);
  EXPECT_EQ(o.topic_prefix, "robot-edge");
  EXPECT_DOUBLE_EQ(o.telemetry_rate_hz, 1.0);
  EXPECT_FALSE(o.commands);
  EXPECT_EQ(o.controller, "fleet");
  EXPECT_EQ(o.spool.max_mib, 64u);
}

TEST(UplinkOptions, TheShippedExampleParses) {
  const UplinkOptions o = LoadUplinkConfig(ROBOT_EDGE_UPLINK_EXAMPLE);
  EXPECT_FALSE(o.robot_id.empty());
}

TEST(UplinkOptions, EachRuleNamesItsKeyAndLine) {
  {
    EXPECT_NE(
        Problem(kMinimal + "telemetry_rate_hz: 11\n").find("uplink.yaml:7: telemetry_rate_hz"),
        std::string::npos);
    EXPECT_NE(Problem(kMinimal + "telemetry_rate_hz: 0\n").find("telemetry_rate_hz"),
              std::string::npos);
    EXPECT_NE(Problem("robot_id: a/b\n" + kMinimal.substr(kMinimal.find("broker")))
                  .find("uplink.yaml:1: robot_id"),
              std::string::npos);
    EXPECT_NE(Problem(kMinimal + "topic_prefix: fleet/+/x\n").find("topic_prefix"),
              std::string::npos);
    EXPECT_NE(Problem(kMinimal + "topic_prefix: fleet/\n").find("topic_prefix"), std::string::npos);
    EXPECT_NE(Problem(kMinimal + "spool:\n  max_mib: 0\n").find("spool.max_mib"),
              std::string::npos);
    // The audit's F5: 1024 was accepted, and its spool's index alone could pass MemoryMax.
    EXPECT_NE(Problem(kMinimal + "spool:\n  max_mib: 97\n").find("spool.max_mib"),
              std::string::npos);
    EXPECT_NO_THROW(ParseUplinkConfig(kMinimal + "spool:\n  max_mib: 96\n", "uplink.yaml"));
    EXPECT_NE(Problem(kMinimal + "spool:\n  dir: relative\n").find("spool.dir"), std::string::npos);
    EXPECT_NE(Problem(kMinimal + "commands: true\ncontroller: ''\n").find("controller"),
              std::string::npos);
    EXPECT_NE(Problem(kMinimal + "config_updates: true\nrobot_edged:\n  config: x.yaml\n")
                  .find("robot_edged.config"),
              std::string::npos);
    EXPECT_NE(Problem(kMinimal + "robot_edged:\n  sockett: /x\n").find("sockett"),
              std::string::npos);
    EXPECT_NE(Problem(kMinimal + "telemetry_rate_hz: fast\n").find("telemetry_rate_hz"),
              std::string::npos);
  }
}

TEST(UplinkOptions, BrokerRules) {
  auto with = [](const std::string& from, const std::string& to) {
    std::string text = kMinimal;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  EXPECT_NE(Problem(with("  host: fleet.example.com\n", "")).find("host"), std::string::npos);
  EXPECT_NE(Problem(with("  key: /etc/robot.key\n", "")).find("'key'"), std::string::npos);
  EXPECT_NE(Problem(kMinimal + "  port: 0\n").find("broker.port"), std::string::npos);
  EXPECT_NE(Problem(kMinimal + "  port: 70000\n").find("broker.port"), std::string::npos);
  EXPECT_NE(Problem(kMinimal + "  keepalive_s: 1\n").find("broker.keepalive_s"), std::string::npos);
  EXPECT_NE(Problem(kMinimal + "  reconnect_max_s: 0\n").find("broker.reconnect_max_s"),
            std::string::npos);
  EXPECT_NE(Problem("robot_id: r\n").find("'broker'"), std::string::npos);
  EXPECT_NE(Problem(kMinimal + "upload:\n  chunk_kib: 300\n").find("upload.chunk_kib"),
            std::string::npos);
  EXPECT_NE(Problem(kMinimal + "upload:\n  chunk_kib: 0\n").find("upload.chunk_kib"),
            std::string::npos);
  EXPECT_NE(Problem(kMinimal + "robot_edged:\n  apply_timeout_s: 4\n")
                .find("robot_edged.apply_timeout_s: must be 5..600 s"),
            std::string::npos);
}

TEST(UplinkOptions, MissingTlsFilesAreNamedByKey) {
  const UplinkOptions o = ParseUplinkConfig(kMinimal, "uplink.yaml");
  try {
    CheckFiles(o);
    FAIL() << "no error";
  } catch (const UplinkConfigError& e) {
    EXPECT_EQ(e.problems().size(), 3u);
    EXPECT_NE(std::string(e.what()).find("broker.ca: cannot read /etc/ca.pem"), std::string::npos);
  }
}

TEST(UplinkTopics, ArePerRobotAndRefuseWildcards) {
  EXPECT_EQ(TopicPath("robot-edge", "r-001", Topic::kEvents), "robot-edge/r-001/events");
  EXPECT_EQ(TopicPath("a/b", "r", Topic::kStatus), "a/b/r/status");
  EXPECT_EQ(TopicPath("p", "r", Topic::kDiagnostics), "p/r/diagnostics");
  EXPECT_TRUE(ValidTopicLevel("robot_7.a-b"));
  EXPECT_FALSE(ValidTopicLevel(""));
  EXPECT_FALSE(ValidTopicLevel("+"));
  EXPECT_FALSE(ValidTopicLevel("#"));
  EXPECT_FALSE(ValidTopicLevel("a/b"));
  EXPECT_FALSE(ValidTopicLevel(std::string(65, 'a')));
}

}  // namespace
}  // namespace robot_edge::uplink

namespace robot_edge::uplink {
namespace {

TEST(UplinkOptions, UploadDefaultsAndRules) {
  const UplinkOptions o = ParseUplinkConfig(kMinimal, "uplink.yaml");
  EXPECT_EQ(o.upload.announce, "alerts");
  EXPECT_EQ(o.upload.max_mib, 256u);
  EXPECT_FALSE(o.upload.allow_plain_http_loopback);
  const std::string u = kMinimal + "upload:\n";
  EXPECT_NE(Problem(u + "  announce: sometimes\n").find("uplink.yaml:8: upload.announce"),
            std::string::npos);
  EXPECT_NE(Problem(u + "  max_mib: 0\n").find("upload.max_mib"), std::string::npos);
  EXPECT_NE(Problem(u + "  queue: 65\n").find("upload.queue"), std::string::npos);
  EXPECT_NE(Problem(u + "  attempts: 0\n").find("upload.attempts"), std::string::npos);
  EXPECT_NE(Problem(u + "  follow_symlinks: true\n").find("follow_symlinks"), std::string::npos);
  const UplinkOptions t = ParseUplinkConfig(u + "  allow_plain_http_loopback: true\n", "u.yaml");
  EXPECT_TRUE(t.upload.allow_plain_http_loopback);
}

}  // namespace
}  // namespace robot_edge::uplink

namespace robot_edge::uplink {
namespace {

TEST(UplinkOptions, CommandAgeAndPacketSizeDefaultsAndRules) {
  const UplinkOptions o = ParseUplinkConfig(kMinimal, "uplink.yaml");
  EXPECT_EQ(o.max_command_age_ms, 1000u);
  EXPECT_EQ(o.broker.max_packet_kib, kDefaultMaxPacketKib);
  EXPECT_NE(Problem(kMinimal + "max_command_age_ms: 99\n")
                .find("uplink.yaml:7: max_command_age_ms: must be 100..60000 ms"),
            std::string::npos);
  EXPECT_NE(Problem(kMinimal + "max_command_age_ms: 60001\n").find("max_command_age_ms"),
            std::string::npos);
  EXPECT_EQ(ParseUplinkConfig(kMinimal + "max_command_age_ms: 60000\n", "u").max_command_age_ms,
            60000u);
  EXPECT_NE(
      Problem(kMinimal + "  max_packet_kib: 79\n").find("uplink.yaml:7: broker.max_packet_kib"),
      std::string::npos);
  EXPECT_NE(Problem(kMinimal + "  max_packet_kib: 262144\n").find("broker.max_packet_kib"),
            std::string::npos);
  // A fleet configuration (up to 256 KiB) must fit when config_updates is on.
  EXPECT_NE(Problem(kMinimal + "  max_packet_kib: 100\nconfig_updates: true\n")
                .find("broker.max_packet_kib: must be at least 260 KiB when config_updates"),
            std::string::npos);
  EXPECT_EQ(ParseUplinkConfig(kMinimal + "  max_packet_kib: 100\n", "u").broker.max_packet_kib,
            100u);
}

// broker.key readable by others: warned (access::TokenFileExposure's text), naming the key.
TEST(UplinkOptions, AReadableBrokerKeyIsWarnedAbout) {
  char dir[] = "/tmp/uplink-key-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string key = std::string(dir) + "/robot.key";
  std::ofstream(key) << "not really a key\n";
  UplinkOptions o = ParseUplinkConfig(kMinimal, "uplink.yaml");
  o.broker.key = key;
  ASSERT_EQ(::chmod(key.c_str(), 0600), 0);
  EXPECT_TRUE(FileWarnings(o).empty());
  ASSERT_EQ(::chmod(key.c_str(), 0644), 0);
  const std::vector<std::string> w = FileWarnings(o);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("uplink.yaml: broker.key: " + key + " is mode 0644"), std::string::npos)
      << w[0];
  EXPECT_NE(w[0].find("every user"), std::string::npos) << w[0];
  ASSERT_EQ(::chmod(key.c_str(), 0640), 0);
  ASSERT_EQ(FileWarnings(o).size(), 1u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace robot_edge::uplink
