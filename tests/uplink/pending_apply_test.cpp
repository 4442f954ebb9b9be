// An apply robot-edged was asked for, kept on disk (uplink/pending_apply.hpp), and resumed by a
// restarted uplink (ConfigRestart::Resume): applied on the new digest, else rolled back at the
// recorded wall-clock deadline, whatever this run's own apply_timeout_s.
#include "uplink/pending_apply.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/config.hpp"
#include "uplink/config_restart.hpp"

namespace robot_edge::uplink {
namespace {

std::string Read(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

class PendingApplyTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (std::filesystem::temp_directory_path() / "pending-apply-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
    config_ = dir_ + "/robot-edge.yaml";
    valid_ = Read(ROBOT_EDGE_DEFAULT_CONFIG);
    current_ = "# the robot's current config\n" + valid_;  // a readable one (fleet_config.hpp)
    std::ofstream(config_) << current_;
    ASSERT_TRUE(ApplyFleetConfig(valid_, config_, true).applied);  // .previous kept
    record_ = {1'700'000'000'000'000, config::TextDigest(valid_), config_,
               config_ + ".previous", 1'700'000'000'000'000,      1'700'000'010'000'000};
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_, config_, valid_, current_;
  PendingApply record_;
};

TEST_F(PendingApplyTest, SavedLoadedAndRemoved) {
  const std::string path = PendingApplyPath(dir_);
  std::string error;
  EXPECT_FALSE(LoadPendingApply(path, &error));
  EXPECT_EQ(error, "") << "no record is not an error";
  ASSERT_TRUE(SavePendingApply(path, record_));
  EXPECT_FALSE(std::filesystem::exists(path + ".new"));
  const auto loaded = LoadPendingApply(path, &error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_EQ(loaded->request_id, record_.request_id);
  EXPECT_EQ(loaded->digest, record_.digest);
  EXPECT_EQ(loaded->config, config_);
  EXPECT_EQ(loaded->previous, config_ + ".previous");
  EXPECT_EQ(loaded->asked_unix_us, record_.asked_unix_us);
  EXPECT_EQ(loaded->deadline_unix_us, record_.deadline_unix_us);
  EXPECT_TRUE(RemovePendingApply(path));
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(RemovePendingApply(path)) << "already gone";
}

TEST_F(PendingApplyTest, AMalformedRecordNamesItsKey) {
  std::string error;
  PendingApply no_digest = record_;
  no_digest.digest.clear();
  EXPECT_FALSE(ParsePendingApply(PendingApplyText(no_digest), &error));
  EXPECT_EQ(error, "digest missing or malformed");
  std::string text = PendingApplyText(record_);
  text.replace(text.find("deadline_unix_us 1"), 18, "deadline_unix_us x");
  EXPECT_FALSE(ParsePendingApply(text, &error));
  EXPECT_EQ(error, "deadline_unix_us missing or malformed");
  PendingApply relative = record_;
  relative.config = "robot-edge.yaml";
  EXPECT_FALSE(ParsePendingApply(PendingApplyText(relative), &error));
  EXPECT_EQ(error, "config missing or malformed");
  EXPECT_FALSE(ParsePendingApply("", &error));
  const std::string path = PendingApplyPath(dir_);
  std::ofstream(path) << "request_id 7\n";  // torn
  EXPECT_FALSE(LoadPendingApply(path, &error));
  EXPECT_NE(error.find(path + ": "), std::string::npos) << error;
}

// Resumed 3 s after the ask (wall clock), at steady time 500 s: back on the new digest -> applied,
// restart_ms from the recorded ask.
TEST_F(PendingApplyTest, AResumedApplyIsReportedAppliedOnTheNewDigest) {
  ConfigRestart restart(config_, 60'000'000);  // this run's timeout is not the record's
  restart.Resume(record_, 500'000'000, record_.asked_unix_us + 3'000'000);
  EXPECT_TRUE(restart.pending());
  EXPECT_FALSE(
      restart.OnWelcome(config::TextDigest(current_), 501'000'000));
  EXPECT_FALSE(restart.Poll(506'999'999));  // the record's deadline: 10 s after the ask
  const auto applied = restart.OnWelcome(record_.digest, 501'500'000);
  ASSERT_TRUE(applied);
  EXPECT_TRUE(applied->applied);
  EXPECT_EQ(applied->restart_ms, 4500);
  EXPECT_EQ(applied->request_id, record_.request_id);
  EXPECT_EQ(applied->previous, config_ + ".previous");
  EXPECT_NE(ConfigOutcomeJson(*applied).find("\"request_id\":1700000000000000"), std::string::npos);
  EXPECT_EQ(Read(config_), valid_);
}

// Resumed, robot-edged not back by the recorded deadline: the previous file is put back, in the
// file the record names (not this run's robot_edged.config).
TEST_F(PendingApplyTest, AResumedApplyIsRolledBackAtTheRecordedDeadline) {
  ConfigRestart restart(dir_ + "/another.yaml", 60'000'000);
  restart.Resume(record_, 500'000'000, record_.asked_unix_us + 3'000'000);
  EXPECT_FALSE(restart.Poll(506'999'999));
  const auto result = restart.Poll(507'000'000);
  ASSERT_TRUE(result);
  EXPECT_FALSE(result->applied);
  EXPECT_TRUE(result->rolled_back);
  EXPECT_NE(result->reason.find("within 10 s"), std::string::npos) << result->reason;
  EXPECT_EQ(Read(config_), current_);
  EXPECT_FALSE(restart.pending());
}

// Resumed after the deadline already passed (the uplink was down longer): rolled back at once,
// unless the first Welcome already carries the new digest.
TEST_F(PendingApplyTest, AResumedApplyPastItsDeadlineIsDecidedAtOnce) {
  ConfigRestart late(config_, 10'000'000);
  late.Resume(record_, 500'000'000, record_.deadline_unix_us + 60'000'000);
  ASSERT_TRUE(late.OnWelcome(record_.digest, 500'000'000));
  EXPECT_EQ(Read(config_), valid_);
  ConfigRestart rolled(config_, 10'000'000);
  rolled.Resume(record_, 500'000'000, record_.deadline_unix_us + 60'000'000);
  const auto result = rolled.Poll(500'000'000);
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->rolled_back);
  EXPECT_EQ(Read(config_), current_);
}

}  // namespace
}  // namespace robot_edge::uplink
