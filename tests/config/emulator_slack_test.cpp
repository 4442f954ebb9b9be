// scripts/emulator-slack.tsv, the timeouts relaxed under user-mode-linux for every rig and demo:
// each line edits a shipped config, and the edited configs are valid with the relaxed values.
#include "emulator_slack.hpp"

#include <gtest/gtest.h>

#include "child_process.hpp"  // ReadFile
#include "config/config.hpp"

namespace robot_edge::test {
namespace {

const std::string kDefault = ROBOT_EDGE_DEFAULT_CONFIG;
const std::string kPolicy = ROBOT_EDGE_POLICY_CONFIG;

TEST(EmulatorSlack, EachLineEditsAShippedConfig) {
  const std::string configs = ReadFile(kDefault) + ReadFile(kPolicy);
  const auto edits = EmulatorSlackEdits();
  ASSERT_GE(edits.size(), 5u);
  for (const auto& [from, to] : edits) {
    EXPECT_NE(configs.find(from), std::string::npos) << "'" << from << "' is in no shipped config";
    EXPECT_NE(from, to);
  }
}

TEST(EmulatorSlack, TheRelaxedConfigsAreValidAndRelaxed) {
  const config::Config plain = config::ParseConfig(ReadFile(kPolicy), kPolicy);
  const config::Config slack = config::ParseConfig(WithEmulatorSlack(ReadFile(kPolicy)), kPolicy);
  EXPECT_TRUE(config::Validate(slack).empty());
  EXPECT_GT(slack.safety.control_stall_ms, plain.safety.control_stall_ms);
  EXPECT_GT(slack.policy.stall_timeout_us(), plain.policy.stall_timeout_us());
  const config::Config robot = config::ParseConfig(WithEmulatorSlack(ReadFile(kDefault)), kDefault);
  EXPECT_TRUE(config::Validate(robot).empty());
  EXPECT_EQ(robot.safety.control_stall_ms, slack.safety.control_stall_ms);
}

TEST(EmulatorSlack, ALineWithoutItsTabIsRefusedWithItsNumber) {
  const std::string path = ::testing::TempDir() + "/slack.tsv";
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs("# a comment\nmotor_reply_timeout_ms: 50 motor_reply_timeout_ms: 150\n", f);
  std::fclose(f);
  try {
    EmulatorSlackEdits(path);
    FAIL() << "a line without a tab was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("slack.tsv:2:"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace robot_edge::test
