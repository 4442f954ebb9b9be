// "Restart to apply the configuration" (daemon/api/apply_config.hpp): who may ask, when, and the
// file on disk judged as at start; each refusal says why.
#include "daemon/api/apply_config.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace robot_edge::daemon {
namespace {

class ApplyConfigTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (std::filesystem::temp_directory_path() / "apply-config-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
    std::ifstream in(ROBOT_EDGE_DEFAULT_CONFIG);
    std::stringstream text;
    text << in.rdbuf();
    text_ = text.str();
    Replace("apply_config_controllers: []", "apply_config_controllers: [fleet]");
    path_ = dir_ + "/robot-edge.yaml";
    std::ofstream(path_) << text_;
    running_ = config::LoadConfig(path_);
    snapshot_.tick_us = 1000;
    request_.set_request_id(7);
    request_.mutable_apply_config();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Replace(const std::string& from, const std::string& to) {
    ASSERT_NE(text_.find(from), std::string::npos) << from;
    text_.replace(text_.find(from), from.size(), to);
  }
  edge::MaintenanceResult Ask(const std::string& controller) {
    return CheckApplyConfig(running_, controller, snapshot_, request_);
  }
  std::string dir_, path_, text_;
  config::Config running_;
  ControlSnapshot snapshot_;
  edge::MaintenanceRequest request_;
};

TEST_F(ApplyConfigTest, AValidFileInDampIsAcceptedForTheListedRoles) {
  const edge::MaintenanceResult r = Ask("fleet");
  EXPECT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.request_id(), 7u);
  EXPECT_EQ(r.apply_config().path(), path_);
  EXPECT_EQ(r.apply_config().digest(), config::TextDigest(text_));
  EXPECT_TRUE(Ask("maintainer").ok());  // api.maintenance_controllers
}

TEST_F(ApplyConfigTest, OtherRolesAreRefused) {
  const edge::MaintenanceResult r = Ask("cloud");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error().find("'cloud' may not restart robot-edged"), std::string::npos) << r.error();
}

TEST_F(ApplyConfigTest, OutsideDampOrDuringAJogItIsRefused) {
  snapshot_.mode = sm::Mode::kStand;
  EXPECT_NE(Ask("fleet").error().find("not in DAMP"), std::string::npos);
  snapshot_.mode = sm::Mode::kDamp;
  snapshot_.jogging_joint = 3;
  EXPECT_NE(Ask("fleet").error().find("jog"), std::string::npos);
  snapshot_.jogging_joint = -1;
  snapshot_.tick_us = -1;
  EXPECT_FALSE(Ask("fleet").ok());
}

TEST_F(ApplyConfigTest, AnInvalidFileOnDiskIsRefusedByKey) {
  Replace("max_command_age_ms: 100", "max_command_age_ms: 5");
  std::ofstream(path_) << text_;
  const edge::MaintenanceResult r = Ask("fleet");
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.apply_config().problems_size(), 1);
  EXPECT_EQ(r.apply_config().problems(0).key(), "api.max_command_age_ms");
  EXPECT_NE(r.apply_config().problems(0).message().find(path_), std::string::npos);
}

TEST_F(ApplyConfigTest, AnotherFileThanExpectedIsRefused) {
  request_.mutable_apply_config()->set_expect_digest("0123456789abcdef");
  const edge::MaintenanceResult r = Ask("fleet");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error().find("not 0123456789abcdef"), std::string::npos) << r.error();
  request_.mutable_apply_config()->set_expect_digest(config::TextDigest(text_));
  EXPECT_TRUE(Ask("fleet").ok());
}

// C2 of issue 38: a restart must not be a way around an operator's stop.
TEST_F(ApplyConfigTest, WhileAStopIsLatchedItIsRefused) {
  snapshot_.stop_latch.latched = true;
  snapshot_.stop_latch.stopped_by = sm::MakeSenderLabel("an observer (client 4)");
  snapshot_.stop_latch.holder = sm::MakeSenderLabel("cloud");
  for (const char* who : {"fleet", "maintainer"}) {
    const edge::MaintenanceResult r = Ask(who);
    EXPECT_FALSE(r.ok()) << who;
    EXPECT_NE(r.error().find("a stop is latched (by an observer (client 4))"), std::string::npos)
        << r.error();
    EXPECT_NE(r.error().find("a STAND from 'cloud'"), std::string::npos) << r.error();
  }
}

// M2 of issue 38: one fleet document switched safety off, widened the motors' ranges, made the
// fleet the first controller and pointed the recorder elsewhere, and was applied.
TEST_F(ApplyConfigTest, TheFleetMayNotChangeWhatDecidesSafetyAndAccess) {
  const std::vector<std::pair<std::string, std::pair<std::string, std::string>>> edits = {
      {"safety", {"latch_external_damp: true", "latch_external_damp: false"}},
      {"safety", {"control_stall_ms: 50", "control_stall_ms: 0"}},
      {"control", {"trajectory_timeout_ms: 200", "trajectory_timeout_ms: 2000"}},
      {"motors", {"t_max: 18.0", "t_max: 1000.0"}},
      {"api",
       {"controllers: [ble, cloud, maintainer, dds, fleet]",
        "controllers: [fleet, ble, cloud, maintainer, dds]"}},
      {"api", {"fleet_may_change: []", "fleet_may_change: [safety]"}},
      {"recorder.directory",
       {"directory: /var/lib/robot-edge/recordings", "directory: /etc/robot-edge"}},
  };
  const std::string original = text_;
  for (const auto& [key, edit] : edits) {
    text_ = original;
    Replace(edit.first, edit.second);
    std::ofstream(path_) << text_;
    const edge::MaintenanceResult r = Ask("fleet");
    EXPECT_FALSE(r.ok()) << edit.second;
    EXPECT_NE(r.error().find("may not change " + key), std::string::npos) << r.error();
    ASSERT_GE(r.apply_config().problems_size(), 1) << edit.second;
    EXPECT_EQ(r.apply_config().problems(0).key(), key);
    EXPECT_TRUE(Ask("maintainer").ok()) << "someone on the robot may: " << edit.second;
  }
  // What the fleet is for: the telemetry rate, say (the policy, the recorder's settings).
  text_ = original;
  Replace("  rate_hz: 10\n", "  rate_hz: 20\n");
  std::ofstream(path_) << text_;
  const edge::MaintenanceResult r = Ask("fleet");
  EXPECT_TRUE(r.ok()) << r.error();
}

TEST_F(ApplyConfigTest, OnlyTheRobotsOwnFileWidensWhatTheFleetMayChange) {
  Replace("fleet_may_change: []", "fleet_may_change: [safety]");
  std::ofstream(path_) << text_;
  running_ = config::LoadConfig(path_);  // edited on the robot, and running
  Replace("control_stall_ms: 50", "control_stall_ms: 60");
  std::ofstream(path_) << text_;
  EXPECT_TRUE(Ask("fleet").ok()) << Ask("fleet").error();
  Replace("trajectory_timeout_ms: 200", "trajectory_timeout_ms: 300");
  std::ofstream(path_) << text_;
  EXPECT_NE(Ask("fleet").error().find("may not change control"), std::string::npos);
}

}  // namespace
}  // namespace robot_edge::daemon
