// A robot-edge.yaml from the fleet (uplink/fleet_config.hpp): robot-edged's validator judges it,
// errors come back by key, it is written only in DAMP, and the previous file is kept.
#include "uplink/fleet_config.hpp"

#include "config/config.hpp"
#include "uplink/config_restart.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace robot_edge::uplink {
namespace {

std::string Read(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

class FleetConfigTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (std::filesystem::temp_directory_path() / "fleet-config-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
    path_ = dir_ + "/robot-edge.yaml";
    valid_ = Read(ROBOT_EDGE_DEFAULT_CONFIG);
    current_ = "# the robot's current config\n" + valid_;  // the same, but for a comment
    std::ofstream(path_) << current_;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  static std::string Edited(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
  }
  std::string dir_, path_, valid_, current_;
};

TEST_F(FleetConfigTest, AValidDocumentInDampIsWrittenAndThePreviousKept) {
  const ConfigOutcome o = ApplyFleetConfig(valid_, path_, true);
  ASSERT_TRUE(o.applied) << o.reason;
  EXPECT_EQ(Read(path_), valid_);
  EXPECT_EQ(o.previous, path_ + ".previous");
  EXPECT_EQ(Read(path_ + ".previous"), current_);
  EXPECT_NE(ConfigOutcomeJson(o).find("\"applied\":true"), std::string::npos);
}

// Red team round five, F5: a result names the document it answers, as the fleet can compute it.
TEST_F(FleetConfigTest, EveryResultNamesItsDocumentBySha256) {
  EXPECT_EQ(DocumentSha256("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  for (const std::string& doc : {valid_, valid_ + "surprise: 1\n", std::string("{ not yaml")}) {
    const ConfigOutcome o = ApplyFleetConfig(doc, path_, false);
    EXPECT_EQ(o.document_sha256, DocumentSha256(doc));
    EXPECT_NE(ConfigOutcomeJson(o).find("\"document_sha256\":\"" + DocumentSha256(doc) + "\""),
              std::string::npos)
        << ConfigOutcomeJson(o);
  }
  EXPECT_EQ(ConfigOutcomeJson(ConfigOutcome{}).find("document_sha256"), std::string::npos)
      << "not known: not invented";
}

TEST_F(FleetConfigTest, OutsideDampNothingIsWritten) {
  const ConfigOutcome o = ApplyFleetConfig(valid_, path_, false);
  EXPECT_FALSE(o.applied);
  EXPECT_EQ(o.reason, "not in DAMP");
  EXPECT_EQ(Read(path_), current_);
  EXPECT_FALSE(std::filesystem::exists(path_ + ".previous"));
}

TEST_F(FleetConfigTest, AnInvalidDocumentIsRefusedNamingTheKey) {
  std::string bad = valid_;
  const std::string from = "max_command_age_ms: 100";
  ASSERT_NE(bad.find(from), std::string::npos);
  bad.replace(bad.find(from), from.size(), "max_command_age_ms: 5");
  const ConfigOutcome o = ApplyFleetConfig(bad, path_, true);
  EXPECT_FALSE(o.applied);
  EXPECT_EQ(o.reason, "invalid");
  ASSERT_EQ(o.problems.size(), 1u);
  EXPECT_EQ(o.problems[0].key, "api.max_command_age_ms");
  EXPECT_EQ(Read(path_), current_);
  const std::string json = ConfigOutcomeJson(o);
  EXPECT_NE(json.find("{\"key\":\"api.max_command_age_ms\",\"message\":"), std::string::npos)
      << json;
}

TEST_F(FleetConfigTest, UnknownKeysAndNonYamlAreRefused) {
  EXPECT_FALSE(CheckFleetConfig(valid_ + "surprise: 1\n").empty());
  const auto problems = CheckFleetConfig("{ not yaml");
  ASSERT_FALSE(problems.empty());
  EXPECT_FALSE(ApplyFleetConfig("{ not yaml", path_, true).applied);
  EXPECT_TRUE(CheckFleetConfig(valid_).empty());
}

// After robot-edged accepted the restart: applied once a Welcome carries the new file's digest
// (another digest, e.g. the old robot-edged's, is not it); restart_ms from the request.
TEST_F(FleetConfigTest, ARestartIsAppliedWhenRobotEdgedIsBackOnTheNewFile) {
  ConfigOutcome written = ApplyFleetConfig(valid_, path_, true);
  ASSERT_TRUE(written.applied);
  ConfigRestart restart(path_, 30'000'000);
  restart.Begin(written, config::TextDigest(valid_), 1'000'000);
  EXPECT_TRUE(restart.pending());
  EXPECT_FALSE(restart.OnWelcome(config::TextDigest(current_), 2'000'000));
  EXPECT_FALSE(restart.Poll(30'999'999));
  const auto applied = restart.OnWelcome(config::TextDigest(valid_), 5'500'000);
  ASSERT_TRUE(applied);
  EXPECT_TRUE(applied->applied);
  EXPECT_EQ(applied->restart_ms, 4500);
  EXPECT_FALSE(restart.pending());
  EXPECT_NE(ConfigOutcomeJson(*applied).find("\"applied\":true"), std::string::npos);
  EXPECT_EQ(Read(path_), valid_);
}

// Not back within the bound: the previous file is put back, the result says so.
TEST_F(FleetConfigTest, ARestartNotBackInTimeIsRolledBack) {
  ConfigOutcome written = ApplyFleetConfig(valid_, path_, true);
  ASSERT_TRUE(written.applied);
  ConfigRestart restart(path_, 30'000'000);
  restart.Begin(written, config::TextDigest(valid_), 1'000'000);
  const auto result = restart.Poll(31'000'000);
  ASSERT_TRUE(result);
  EXPECT_FALSE(result->applied);
  EXPECT_TRUE(result->rolled_back);
  EXPECT_NE(result->reason.find("within 30 s"), std::string::npos) << result->reason;
  EXPECT_EQ(Read(path_), current_);
  EXPECT_FALSE(std::filesystem::exists(path_ + ".previous"));
  EXPECT_FALSE(restart.pending());
  EXPECT_FALSE(restart.OnWelcome(config::TextDigest(valid_), 32'000'000));  // too late
  EXPECT_NE(ConfigOutcomeJson(*result).find("\"rolled_back\":true"), std::string::npos);
}

// Item 3 of issue 38: an identical document restarts nothing.
TEST_F(FleetConfigTest, AnIdenticalDocumentIsAlreadyRunning) {
  const ConfigOutcome o = ApplyFleetConfig(current_, path_, true);
  EXPECT_FALSE(o.applied);
  EXPECT_EQ(o.reason, "already running");
  EXPECT_FALSE(std::filesystem::exists(path_ + ".previous"));
}

// M2 of issue 38: the uplink refuses, without writing, what robot-edged would refuse.
TEST_F(FleetConfigTest, ADocumentThatWeakensSafetyIsRefusedWithoutWriting) {
  const ConfigOutcome o = ApplyFleetConfig(
      Edited(valid_, "latch_external_damp: true", "latch_external_damp: false"), path_, true);
  EXPECT_FALSE(o.applied);
  EXPECT_NE(o.reason.find("may not change safety"), std::string::npos) << o.reason;
  ASSERT_EQ(o.problems.size(), 1u);
  EXPECT_EQ(o.problems[0].key, "safety");
  EXPECT_EQ(Read(path_), current_);
  EXPECT_NE(ConfigOutcomeJson(o).find("\"key\":\"safety\""), std::string::npos);
}

TEST_F(FleetConfigTest, WhatTheRobotAllowsIsAppliedAndReportedWithItsWarnings) {
  current_ = Edited(current_, "fleet_may_change: []", "fleet_may_change: [safety]");
  std::ofstream(path_) << current_;
  std::string next = Edited(current_, "control_stall_ms: 50", "control_stall_ms: 0");
  next = Edited(next, "# the robot's current config\n", "");
  const ConfigOutcome o = ApplyFleetConfig(next, path_, true);
  ASSERT_TRUE(o.applied) << o.reason;
  ASSERT_EQ(o.changed.size(), 1u);
  EXPECT_EQ(o.changed[0], "safety");
  const std::string json = ConfigOutcomeJson(o);
  EXPECT_NE(json.find("\"changed\":[\"safety\"]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"warnings\":["), std::string::npos) << json;
}

TEST_F(FleetConfigTest, ARunningFileThatCannotBeReadRefusesEveryDocument) {
  std::ofstream(path_) << "{ not yaml";
  const ConfigOutcome o = ApplyFleetConfig(valid_, path_, true);
  EXPECT_FALSE(o.applied);
  EXPECT_NE(o.reason.find("cannot be read to compare"), std::string::npos) << o.reason;
}

TEST_F(FleetConfigTest, RestoringWithoutAPreviousFileRemovesTheNewOne) {
  const std::string fresh = dir_ + "/fresh.yaml";
  ASSERT_TRUE(ApplyFleetConfig(valid_, fresh, true).applied);
  EXPECT_TRUE(RestorePrevious(fresh));
  EXPECT_FALSE(std::filesystem::exists(fresh));
}

}  // namespace
}  // namespace robot_edge::uplink
