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
#include "uplink/options.hpp"

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
    record_ = {1'700'000'000'000'000, config::TextDigest(valid_),   config_,
               config_ + ".previous", config::TextDigest(current_), 1'700'000'000'000'000,
               1'700'000'010'000'000};
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
  EXPECT_EQ(loaded->previous_digest, record_.previous_digest);
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
  PendingApply no_previous_digest = record_;  // a record of an older uplink: not trusted
  no_previous_digest.previous_digest.clear();
  EXPECT_FALSE(ParsePendingApply(PendingApplyText(no_previous_digest), &error));
  EXPECT_EQ(error, "previous_digest missing or malformed");
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
  ASSERT_EQ(restart.Resume(record_, 500'000'000, record_.asked_unix_us + 3'000'000), "");
  EXPECT_TRUE(restart.pending());
  EXPECT_FALSE(
      restart.OnWelcome(config::TextDigest("# the robot's current config\n"), 501'000'000));
  EXPECT_FALSE(restart.Poll(506'999'999));  // the record's deadline: 10 s after the ask
  const auto applied = restart.OnWelcome(record_.digest, 501'500'000);
  ASSERT_TRUE(applied);
  EXPECT_TRUE(applied->applied);
  EXPECT_EQ(applied->restart_ms, 4500);
  EXPECT_EQ(applied->request_id, record_.request_id);
  EXPECT_EQ(applied->previous, config_ + ".previous");
  EXPECT_NE(ConfigOutcomeJson(*applied).find("\"request_id\":1700000000000000"), std::string::npos);
  EXPECT_EQ(Read(config_), valid_);
  EXPECT_EQ(applied->document_sha256, DocumentSha256(valid_)) << "resumed: the file written";
}

// Resumed, robot-edged not back by the recorded deadline: the previous file is put back.
TEST_F(PendingApplyTest, AResumedApplyIsRolledBackAtTheRecordedDeadline) {
  ConfigRestart restart(config_, 60'000'000);
  ASSERT_EQ(restart.Resume(record_, 500'000'000, record_.asked_unix_us + 3'000'000), "");
  EXPECT_FALSE(restart.Poll(506'999'999));
  const auto result = restart.Poll(507'000'000);
  ASSERT_TRUE(result);
  EXPECT_FALSE(result->applied);
  EXPECT_TRUE(result->rolled_back);
  EXPECT_NE(result->reason.find("within 10 s"), std::string::npos) << result->reason;
  EXPECT_EQ(Read(config_), current_);
  EXPECT_FALSE(restart.pending());
}

// M6 (issue 38): the rollback was done, the uplink died before removing the record. The next run
// resumes it: the file is already the previous one, so nothing is removed or renamed, and the
// result says so. (Before: with no .previous left, robot-edge.yaml itself was unlinked.)
TEST_F(PendingApplyTest, AStaleRecordAfterARollbackTouchesNothing) {
  ASSERT_TRUE(RollBack(record_).rolled_back);
  ASSERT_EQ(Read(config_), current_);
  ASSERT_FALSE(std::filesystem::exists(config_ + ".previous"));
  ConfigRestart again(config_, 10'000'000);
  ASSERT_EQ(again.Resume(record_, 500'000'000, record_.deadline_unix_us + 5'000'000), "");
  const auto result = again.Poll(500'000'000);
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->rolled_back);
  EXPECT_NE(result->reason.find("already in place"), std::string::npos) << result->reason;
  EXPECT_EQ(Read(config_), current_);
  EXPECT_TRUE(RollBack(record_).rolled_back) << "idempotent";
  EXPECT_EQ(Read(config_), current_);
}

// A file the uplink did not write (an operator's edit after the apply; a .previous replaced) is
// never removed or overwritten: not rolled back, and the reason names the file.
TEST_F(PendingApplyTest, ARollbackNeverTouchesAFileItDidNotWrite) {
  std::ofstream(config_) << "# edited on the robot\n";
  Rollback r = RollBack(record_);
  EXPECT_FALSE(r.rolled_back);
  EXPECT_NE(r.what.find("left as is"), std::string::npos) << r.what;
  EXPECT_EQ(Read(config_), "# edited on the robot\n");
  EXPECT_EQ(Read(config_ + ".previous"), current_);
  std::ofstream(config_) << valid_;  // the file written again, but .previous is someone else's
  std::ofstream(config_ + ".previous") << "# not the file kept\n";
  r = RollBack(record_);
  EXPECT_FALSE(r.rolled_back);
  EXPECT_NE(r.what.find("nothing put back"), std::string::npos) << r.what;
  EXPECT_EQ(Read(config_), valid_);
  PendingApply none_before = record_;  // no file before the apply: only the one written goes
  none_before.previous.clear();
  none_before.previous_digest.clear();
  none_before.digest = config::TextDigest("# other\n");
  EXPECT_FALSE(RollBack(none_before).rolled_back);
  EXPECT_EQ(Read(config_), valid_);
}

// The record's paths must be this uplink's robot_edged.config and its .previous: anything else
// is refused (the caller discards the record) and no file is touched, even past its deadline.
TEST_F(PendingApplyTest, ARecordNamingAnotherFileIsDiscardedNothingTouched) {
  const std::string victim = dir_ + "/victim.yaml";
  std::ofstream(victim) << "# not the uplink's\n";
  PendingApply other = record_;
  other.config = victim;
  other.digest = config::TextDigest("# not the uplink's\n");
  other.previous = config_ + ".previous";
  ConfigRestart restart(config_, 10'000'000);
  EXPECT_NE(restart.Resume(other, 500'000'000, other.deadline_unix_us + 1), "");
  EXPECT_FALSE(restart.pending());
  EXPECT_FALSE(restart.Poll(600'000'000));
  EXPECT_EQ(Read(victim), "# not the uplink's\n");
  EXPECT_EQ(Read(config_), valid_);
  PendingApply odd_previous = record_;
  odd_previous.previous = victim;
  EXPECT_NE(CheckPendingApplyPaths(odd_previous, config_).find("is not " + config_ + ".previous"),
            std::string::npos);
  EXPECT_EQ(CheckPendingApplyPaths(record_, config_), "");
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

// ---- robot-edged's failed starts, from systemd (M5, issue 38)

// systemctl show's answer: the newest main process's start and end (CLOCK_MONOTONIC µs).
TEST(UnitStarts, ParsedFromSystemctlShow) {
  const auto u = ParseUnitStarts(
      "NRestarts=3\nExecMainStartTimestampMonotonic=5000000\n"
      "ExecMainExitTimestampMonotonic=0\n");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->main_start_us, 5'000'000);
  EXPECT_EQ(u->main_exit_us, 0);
  EXPECT_EQ(u->restarts, 3);
  EXPECT_FALSE(ParseUnitStarts("NRestarts=3\n")) << "no timestamps: not systemd's answer";
  EXPECT_FALSE(ParseUnitStarts(""));
}

// Asked at 100 s: the robot-edged that exits 75 started before; the start on the new file at
// 101.2 s. Running (exit 0) or still the old process: not failed. Ended: failed, rolled back at
// once (not after apply_timeout_s), and the previous file is back.
TEST_F(PendingApplyTest, AFailedStartSeenBySystemdRollsBackAtOnce) {
  const std::int64_t asked = 100'000'000;
  EXPECT_FALSE(FailedStartSince({50'000'000, 100'300'000, 0}, asked)) << "the exit 75";
  EXPECT_FALSE(FailedStartSince({101'200'000, 0, 1}, asked)) << "starting, or running";
  EXPECT_TRUE(FailedStartSince({101'200'000, 101'400'000, 1}, asked));
  ConfigRestart restart(config_, 10'000'000);
  restart.Begin(ConfigOutcome{}, record_, asked);
  EXPECT_FALSE(restart.OnUnitStarts({101'200'000, 0, 1}, 101'300'000));
  const auto result = restart.OnUnitStarts({101'200'000, 101'400'000, 1}, 101'500'000);
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->rolled_back);
  EXPECT_NE(result->reason.find("start on the new configuration failed 1400 ms after the ask"),
            std::string::npos)
      << result->reason;
  EXPECT_EQ(Read(config_), current_);
  EXPECT_EQ(restart.last_starts(), 4) << "charged: 1.5 s of waiting, + 2";
  EXPECT_FALSE(restart.pending());
}

// ---- the start budget (M5, issue 38)

// The audit's figures: a bad apply cost 9 starts in 10 s, two 21 s apart 18 in 31 s, against
// StartLimitBurst=10 per 60 s. Each apply is charged its worst case (apply_timeout_s + 2); the
// second bad apply within the minute is refused while the unit's budget cannot hold it.
TEST(StartBudget, ASecondBadApplyInTheIntervalIsRefusedUntilItFits) {
  const StartLimit limit{30, 60'000'000};
  const std::int64_t timeout = 10'000'000;
  EXPECT_EQ(WorstCaseStarts(timeout), 12);
  EXPECT_EQ(StartsCharged(false, timeout, timeout), 12);
  EXPECT_EQ(StartsCharged(false, 1'500'000, timeout), 4);  // rolled back 1.5 s after the ask
  EXPECT_EQ(StartsCharged(true, 4'000'000, timeout), 1);
  const std::int64_t t0 = 1'700'000'000'000'000;
  std::vector<StartCharge> charges;
  EXPECT_EQ(CheckStartBudget(charges, limit, 12, t0), "");
  charges.push_back({1, t0, 12});  // a bad apply, rolled back
  EXPECT_EQ(CheckStartBudget(charges, limit, 12, t0 + 21'000'000), "");
  charges.push_back({2, t0 + 21'000'000, 12});  // a second one, 21 s later: 24 of 30 used
  const std::string refused = CheckStartBudget(charges, limit, 12, t0 + 31'000'000);
  EXPECT_NE(refused.find("start budget is spent: recent applies used 24 of its unit's 30 starts "
                         "per 60 s, and this apply may cost 12; try again in 29 s"),
            std::string::npos)
      << refused;
  EXPECT_EQ(CheckStartBudget(charges, limit, 12, t0 + 60'000'001), "") << "the first has left";
  EXPECT_EQ(RecentCharges(charges, limit, t0 + 60'000'001).size(), 1u);
  // Good applies cost one start each.
  EXPECT_EQ(CheckStartBudget({{3, t0, 1}, {4, t0, 1}, {5, t0, 1}}, limit, 12, t0 + 1), "");
}

// The uplink's defaults are the unit's StartLimitBurst= and StartLimitIntervalSec=, and the
// unit holds two failed applies of the default apply_timeout_s.
TEST(StartBudget, TheUplinksDefaultsAreTheUnitsStartLimit) {
  const std::string unit = Read(ROBOT_EDGE_UNIT_IN);
  auto value = [&](const std::string& key) {
    const std::size_t at = unit.find("\n" + key + "=");
    return at == std::string::npos ? -1 : std::stoi(unit.substr(at + key.size() + 2));
  };
  const RobotEdgedOptions defaults;
  EXPECT_EQ(value("StartLimitBurst"), static_cast<int>(defaults.start_limit_burst));
  EXPECT_EQ(value("StartLimitIntervalSec"), static_cast<int>(defaults.start_limit_interval_s));
  EXPECT_GE(value("StartLimitBurst"),
            2 * WorstCaseStarts(std::int64_t{defaults.apply_timeout_s} * 1'000'000) + 1);
}

TEST(StartBudget, ChargesAreSavedWholeAndReadBack) {
  std::string dir = (std::filesystem::temp_directory_path() / "start-budget-XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  const std::string path = StartChargesPath(dir);
  EXPECT_TRUE(LoadStartCharges(path).empty()) << "no file: no charge";
  ASSERT_TRUE(SaveStartCharges(path, {{1, 100, 12}, {2, 200, 1}}));
  std::ofstream(path, std::ios::app) << "garbage line\n";
  const auto charges = LoadStartCharges(path);
  ASSERT_EQ(charges.size(), 2u);
  EXPECT_EQ(charges[0].request_id, 1u);
  EXPECT_EQ(charges[0].unix_us, 100);
  EXPECT_EQ(charges[1].starts, 1);
  EXPECT_FALSE(std::filesystem::exists(path + ".new"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace robot_edge::uplink
