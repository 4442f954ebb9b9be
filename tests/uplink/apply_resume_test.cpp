// broker.uplink, an apply survives the uplink: robot-edge-uplink is SIGKILLed right after it asked
// robot-edged to restart on a fleet configuration (its record <spool.dir>/apply-pending on disk),
// and started again. The new run resumes the wait: `applied` when robot-edged is back on the new
// file, `rolled_back` (the previous file put back) at the recorded deadline when it cannot be.
// Each result arrives once, and the record is gone after it.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "config/config.hpp"
#include "fleet_rig.hpp"
#include "uplink/pending_apply.hpp"

namespace robot_edge::test {
namespace {

constexpr int kApplyTimeoutS = 12;

TEST(BrokerUplink, AnApplyGoesOnAcrossAnUplinkKilledMidway) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  FleetConfigRig rig("uplink-resume",
                     "  apply_timeout_s: " + std::to_string(kApplyTimeoutS) + "\n");
  Robot& robot = rig.robot;
  const std::string& config_path = rig.config_path;
  const std::string& original = rig.original;
  Fleet& fleet = rig.fleet;
  Uplink& uplink = rig.uplink;
  const std::string record = uplink.spool_dir() + "/apply-pending";
  // Publishes `document` and kills the uplink as soon as robot-edged accepted the restart.
  auto publish_and_kill = [&](const std::string& document) {
    uplink.Start();
    const std::size_t before = rig.TelemetryCount();
    ASSERT_TRUE(Eventually([&] { return rig.TelemetryCount() > before; }, 20s)) << uplink.Log();
    std::this_thread::sleep_for(1500ms);  // the uplink's newest telemetry says DAMP
    fleet.Publish("robot-edge/r1/config", document, 60);
    ASSERT_TRUE(Eventually(
        [&] { return uplink.Log().find("robot-edged restarts on it") != std::string::npos; }, 10s))
        << uplink.Log();
    uplink.Kill();
    EXPECT_TRUE(std::filesystem::exists(record)) << "the apply is not on disk";
  };

  // 1. Killed after the ask; robot-edged restarts on the new file meanwhile; the new uplink's
  // first Welcome carries its digest: applied, once.
  const std::string renamed = Replaced(original, "name: asimov-sim", "name: asimov-fleet");
  publish_and_kill(renamed);
  ASSERT_TRUE(Eventually([&] { return rig.WelcomeName() == "asimov-fleet"; }, 30s))
      << robot.DaemonLog();
  EXPECT_TRUE(rig.ConfigResults().empty());
  uplink.Start();
  ASSERT_TRUE(Eventually([&] { return !rig.ConfigResults().empty(); }, 20s)) << uplink.Log();
  std::this_thread::sleep_for(2s);  // a repeat would arrive meanwhile
  std::vector<std::string> results = rig.ConfigResults();
  ASSERT_EQ(results.size(), 1u) << Joined(results);
  EXPECT_NE(results[0].find("\"applied\":true"), std::string::npos) << results[0];
  EXPECT_NE(results[0].find("\"request_id\":"), std::string::npos) << results[0];
  EXPECT_NE(uplink.Log().find("resuming apply"), std::string::npos) << uplink.Log();
  EXPECT_FALSE(std::filesystem::exists(record));
  EXPECT_EQ(ReadFile(config_path), renamed);
  std::printf("resumed, applied: %s\n", results[0].c_str());
  uplink.Kill();

  // 2. Killed after asking for a file robot-edged cannot start on (vcan9); started again at
  // once: at the recorded deadline the previous file is put back, once.
  const std::string broken = Replaced(Replaced(renamed, "interface: vcan4", "interface: vcan9"),
                                      "name: asimov-fleet", "name: asimov-broken");
  publish_and_kill(broken);
  const auto killed = std::chrono::steady_clock::now();  // under 1 s after the ask
  uplink.Start();
  ASSERT_TRUE(Eventually([&] { return rig.ConfigResults().size() >= 2; }, 40s))
      << uplink.Log() << robot.DaemonLog();
  const double seen_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  std::this_thread::sleep_for(2s);
  results = rig.ConfigResults();
  ASSERT_EQ(results.size(), 2u) << Joined(results);
  EXPECT_NE(results[1].find("\"rolled_back\":true"), std::string::npos) << results[1];
  EXPECT_GE(seen_s, kApplyTimeoutS - 2.0) << "rolled back before the recorded deadline";
  EXPECT_FALSE(std::filesystem::exists(record));
  EXPECT_EQ(ReadFile(config_path), renamed);
  EXPECT_TRUE(Eventually([&] { return rig.WelcomeName() == "asimov-fleet"; }, 20s))
      << robot.DaemonLog();
  std::printf("resumed, rolled back %.1f s after the kill: %s\n", seen_s, results[1].c_str());
  uplink.Stop();

  // 3. M6 (issue 38): a stale record, as a crash right after the rollback leaves it (the file is
  // already the previous one, no .previous). The next run finishes without touching the file.
  // (Before: robot-edge.yaml itself was unlinked, "the previous file was put back".)
  uplink::PendingApply stale;
  stale.request_id = 42;
  stale.digest = config::TextDigest(broken);
  stale.config = config_path;
  stale.previous = config_path + ".previous";
  stale.previous_digest = config::TextDigest(renamed);
  stale.asked_unix_us = static_cast<std::int64_t>(client::WallClockMicros()) - 60'000'000;
  stale.deadline_unix_us = stale.asked_unix_us + 12'000'000;
  ASSERT_FALSE(std::filesystem::exists(config_path + ".previous"));
  ASSERT_TRUE(uplink::SavePendingApply(record, stale));
  uplink.Start();
  ASSERT_TRUE(Eventually([&] { return rig.ConfigResults().size() >= 3; }, 20s)) << uplink.Log();
  results = rig.ConfigResults();
  EXPECT_NE(results[2].find("\"rolled_back\":true"), std::string::npos) << results[2];
  EXPECT_NE(results[2].find("already in place"), std::string::npos) << results[2];
  EXPECT_EQ(ReadFile(config_path), renamed) << "the good file was touched";
  EXPECT_TRUE(Eventually([&] { return !std::filesystem::exists(record); }, 5s));
  uplink.Stop();

  // 4. A record naming another file (the apply record's path is not trusted): discarded with a
  // log line, the file it names untouched, no result.
  const std::string victim = rig.dir + "/victim.yaml";
  std::ofstream(victim) << "# not the uplink's\n";
  stale.config = victim;
  stale.previous = victim + ".previous";
  stale.digest = config::TextDigest("# not the uplink's\n");
  ASSERT_TRUE(uplink::SavePendingApply(record, stale));
  uplink.Start();
  ASSERT_TRUE(Eventually(
      [&] { return uplink.Log().find("discarded, nothing touched") != std::string::npos; }, 20s))
      << uplink.Log();
  EXPECT_EQ(ReadFile(victim), "# not the uplink's\n");
  EXPECT_FALSE(std::filesystem::exists(record));
  EXPECT_EQ(rig.ConfigResults().size(), 3u) << Joined(rig.ConfigResults());
  uplink.Stop();
  if (!testing::Test::HasFailure()) std::filesystem::remove_all(rig.dir);  // else kept: the logs
}

}  // namespace
}  // namespace robot_edge::test
