// broker.uplink, a fleet configuration applied: robot-edge-uplink writes it over robot-edged's own
// config file (in DAMP), asks robot-edged to restart on it (ApplyConfigRequest, controller `fleet`
// in api.apply_config_controllers), and reports `applied` once robot-edged's Welcome carries the
// new file's digest. robot-edged exits with 75 and the rig starts it again as systemd's unit would
// (Robot::RestartLikeSystemd: Restart=on-failure, RestartSec=1, RestartForceExitStatus=75).
// The cases: refused outside DAMP (nothing written), applied (the robot's name in the Welcome
// changes), a weakening document refused, three documents back to back (the newest is what
// runs), two queued while the uplink was down (held for the robot's telemetry; the newest is
// the running file: no restart), a file that validates but cannot start (a bus that does not
// exist): rolled back after robot_edged.apply_timeout_s (no systemd in the rig), and
// robot-edged comes back on the previous file; then the same file again, refused: the start
// budget is spent.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "fleet_rig.hpp"
#include "uplink/fleet_config.hpp"

namespace robot_edge::test {
namespace {

constexpr int kApplyTimeoutS = 12;

TEST(BrokerUplink, AFleetConfigIsAppliedByARestartOrRolledBack) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  // start_limit_burst 28: an apply may cost 14 starts (apply_timeout_s + 2), so the budget holds
  // the applied one (1) and one rollback (14), not a second rollback (step 4).
  FleetConfigRig rig("uplink-apply", "  apply_timeout_s: " + std::to_string(kApplyTimeoutS) +
                                         "\n  start_limit_burst: 28\n");
  Robot& robot = rig.robot;
  Fleet& fleet = rig.fleet;
  Uplink& uplink = rig.uplink;
  uplink.Start();
  ASSERT_TRUE(Eventually([&] { return rig.TelemetryCount() > 0; }, 20s)) << uplink.Log();
  ASSERT_EQ(rig.WelcomeName(), "asimov-sim");
  const std::string renamed = Replaced(rig.original, "name: asimov-sim", "name: asimov-fleet");

  // 1. Not in DAMP: refused, nothing written.
  {
    client::Client cloud = robot.Connect("cloud");
    ASSERT_TRUE(MotorsReady(cloud));
    ASSERT_TRUE(Command(cloud, Mode(edge::MODE_STAND)).accepted());
    std::this_thread::sleep_for(1500ms);  // the uplink's newest telemetry says STAND
    fleet.Publish("robot-edge/r1/config", renamed, 60);
    ASSERT_TRUE(Eventually([&] { return rig.ConfigResults().size() == 1; }, 10s)) << uplink.Log();
    EXPECT_NE(rig.ConfigResults()[0].find("\"reason\":\"not in DAMP\""), std::string::npos)
        << rig.ConfigResults()[0];
    EXPECT_EQ(ReadFile(rig.config_path), rig.original);
    ASSERT_TRUE(Command(cloud, Mode(edge::MODE_DAMP)).accepted());
  }
  std::this_thread::sleep_for(1500ms);  // DAMP in the uplink's telemetry too

  // 2. Applied: robot-edged exits with 75, comes back on the new file (its Welcome's name).
  const auto asked = std::chrono::steady_clock::now();
  fleet.Publish("robot-edge/r1/config", renamed, 60);
  ASSERT_TRUE(Eventually([&] { return rig.ConfigResults().size() == 2; }, 40s))
      << uplink.Log() << robot.DaemonLog();
  const double seen_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
  EXPECT_NE(rig.ConfigResults()[1].find("\"applied\":true"), std::string::npos)
      << rig.ConfigResults()[1];
  EXPECT_NE(rig.ConfigResults()[1].find("\"restart_ms\":"), std::string::npos)
      << rig.ConfigResults()[1];
  EXPECT_EQ(ReadFile(rig.config_path), renamed);
  EXPECT_EQ(ReadFile(rig.config_path + ".previous"), rig.original);
  EXPECT_EQ(rig.WelcomeName(), "asimov-fleet") << robot.DaemonLog();
  ASSERT_FALSE(robot.DaemonExits().empty());
  EXPECT_EQ(robot.DaemonExits()[0], 75);
  std::printf("applied: %s; the fleet saw it %.2f s after publishing\n",
              rig.ConfigResults()[1].c_str(), seen_s);

  // 2b. A document that turns the stop latch off and widens a motor's torque (issue 38, M2): the
  // uplink refuses it naming both sections, writes nothing, restarts nothing.
  fleet.Publish(
      "robot-edge/r1/config",
      Replaced(Replaced(renamed, "latch_external_damp: true", "latch_external_damp: false"),
               "t_max: 18.0", "t_max: 1000.0"),
      60);
  ASSERT_TRUE(Eventually([&] { return rig.ConfigResults().size() == 3; }, 10s)) << uplink.Log();
  const std::string weakened = rig.ConfigResults()[2];
  EXPECT_NE(weakened.find("may not change safety, motors"), std::string::npos) << weakened;
  EXPECT_NE(weakened.find("\"key\":\"safety\""), std::string::npos) << weakened;
  EXPECT_EQ(ReadFile(rig.config_path), renamed);
  EXPECT_EQ(robot.DaemonExits().size(), 1u) << "robot-edged restarted";

  // 2c. Three documents back to back, as the broker hands over those queued while the uplink was
  // away (red team of issue 38, R8: the oldest was applied and the newer ones answered "busy").
  // The first is applied; the second, still waiting when the third comes, is superseded; the
  // third, the newest, is applied after the first and is what robot-edged runs.
  ASSERT_TRUE(Eventually([&] { return rig.TelemetryCount() > 0; }, 10s));
  std::this_thread::sleep_for(1500ms);  // the uplink has the new robot-edged's telemetry (DAMP)
  const std::size_t exits_before_queue = robot.DaemonExits().size();
  const std::string doc_a = Replaced(renamed, "name: asimov-fleet", "name: asimov-a");
  const std::string doc_b = Replaced(renamed, "name: asimov-fleet", "name: asimov-b");
  fleet.Publish("robot-edge/r1/config", doc_a, 60);
  fleet.Publish("robot-edge/r1/config", doc_b, 60);
  fleet.Publish("robot-edge/r1/config", renamed, 60);  // asimov-fleet
  ASSERT_TRUE(Eventually([&] { return rig.ConfigResults().size() == 6; }, 60s))
      << uplink.Log() << robot.DaemonLog();
  int applied = 0, superseded = 0;
  for (std::size_t i = 3; i < 6; ++i) {
    const std::string result = rig.ConfigResults()[i];  // a copy: ConfigResults() is one too
    applied += result.find("\"applied\":true") != std::string::npos;
    superseded += result.find("\"reason\":\"superseded: ") != std::string::npos;
    // F5 (red team round five): each result names its document; the one superseded is b.
    // (b's answer comes first, when renamed replaces it; a is applied, then renamed)
    const std::string& doc = result.find("superseded") != std::string::npos ? doc_b
                             : applied == 1                                 ? doc_a
                                                                            : renamed;
    EXPECT_NE(result.find("\"document_sha256\":\"" + uplink::DocumentSha256(doc) + "\""),
              std::string::npos)
        << i << ": " << result;
  }
  EXPECT_EQ(applied, 2) << uplink.Log();
  EXPECT_EQ(superseded, 1) << uplink.Log();
  EXPECT_TRUE(ReadFile(rig.config_path) == renamed)
      << "the newest document is not the one in place";
  EXPECT_TRUE(Eventually([&] { return rig.WelcomeName() == "asimov-fleet"; }, 20s))
      << robot.DaemonLog();
  EXPECT_EQ(robot.DaemonExits().size(), exits_before_queue + 2) << "one restart per applied";
  std::printf("three documents back to back: %s | %s | %s\n", rig.ConfigResults()[3].c_str(),
              rig.ConfigResults()[4].c_str(), rig.ConfigResults()[5].c_str());

  // 2d. Two documents queued by the broker while the uplink was down (red team R5, F8): they
  // came before robot-edged's first telemetry, when the uplink did not know the robot was in
  // DAMP, and both were refused "not in DAMP". They now wait for that telemetry, the newer
  // replacing the older (superseded); the newest is the file robot-edged already runs, so it is
  // answered "already running" without a restart. When the telemetry wins the race with the
  // broker's delivery (the uplink's robot-edged connection is quicker than its TLS one), the
  // older is applied and the newer after it: two restarts, the robot on the newest all the same.
  const std::size_t exits_before_down = robot.DaemonExits().size();
  uplink.Stop();
  const std::string queued = Replaced(renamed, "name: asimov-fleet", "name: asimov-queued");
  fleet.Publish("robot-edge/r1/config", queued, 60);
  fleet.Publish("robot-edge/r1/config", renamed, 60);
  uplink.Start();
  ASSERT_TRUE(Eventually([&] { return rig.ConfigResults().size() == 8; }, 60s))
      << uplink.Log() << robot.DaemonLog();
  const std::string older = rig.ConfigResults()[6], newer = rig.ConfigResults()[7];
  EXPECT_EQ(older.find("not in DAMP"), std::string::npos) << older;
  EXPECT_EQ(newer.find("not in DAMP"), std::string::npos) << newer;
  const bool waited = older.find("\"reason\":\"superseded: ") != std::string::npos;
  if (waited) {
    EXPECT_NE(newer.find("\"reason\":\"already running\""), std::string::npos) << newer;
    EXPECT_EQ(robot.DaemonExits().size(), exits_before_down) << "robot-edged restarted";
  } else {  // the telemetry came first: both applied, in order
    EXPECT_NE(older.find("\"applied\":true"), std::string::npos) << older;
    EXPECT_NE(newer.find("\"applied\":true"), std::string::npos) << newer;
    EXPECT_EQ(robot.DaemonExits().size(), exits_before_down + 2);
  }
  std::printf("2d: %s\n", waited ? "both waited for the telemetry: superseded, already running"
                                 : "the telemetry came first: both applied, in order");
  EXPECT_NE(older.find(uplink::DocumentSha256(queued)), std::string::npos) << older;
  EXPECT_NE(newer.find(uplink::DocumentSha256(renamed)), std::string::npos) << newer;
  EXPECT_TRUE(Eventually([&] { return rig.WelcomeName() == "asimov-fleet"; }, 20s))
      << robot.DaemonLog();

  // 3. Valid, but robot-edged cannot start on it (vcan9 does not exist): after apply_timeout_s
  // the previous file is put back, and robot-edged's next start runs it.
  ASSERT_TRUE(Eventually([&] { return rig.TelemetryCount() > 0; }, 10s));
  std::this_thread::sleep_for(1500ms);  // the uplink has the new robot-edged's telemetry (DAMP)
  const std::size_t exits_before_broken = robot.DaemonExits().size();
  const std::string broken = Replaced(Replaced(renamed, "interface: vcan4", "interface: vcan9"),
                                      "name: asimov-fleet", "name: asimov-broken");
  fleet.Publish("robot-edge/r1/config", broken, 60);
  ASSERT_TRUE(Eventually([&] { return rig.ConfigResults().size() == 9; }, 40s))
      << uplink.Log() << robot.DaemonLog();
  EXPECT_NE(rig.ConfigResults()[8].find("\"applied\":false"), std::string::npos)
      << rig.ConfigResults()[8];
  EXPECT_NE(rig.ConfigResults()[8].find("\"rolled_back\":true"), std::string::npos)
      << rig.ConfigResults()[8];
  EXPECT_EQ(ReadFile(rig.config_path), renamed);
  EXPECT_TRUE(Eventually([&] { return rig.WelcomeName() == "asimov-fleet"; }, 20s))
      << robot.DaemonLog();
  const std::vector<int> exits = robot.DaemonExits();
  ASSERT_GE(exits.size(), exits_before_broken + 2);
  EXPECT_EQ(exits[exits_before_broken], 75);
  EXPECT_EQ(exits[exits_before_broken + 1], 1) << "robot-edged started on vcan9";
  std::printf("rolled back: %s; robot-edged exits %zu\n", rig.ConfigResults()[8].c_str(),
              exits.size());

  // 4. The same bad file again, seconds later: robot-edged's unit could run out of starts
  // (issue 38, M5), so the apply is refused with the reason, nothing written, no restart.
  ASSERT_TRUE(Eventually([&] { return rig.TelemetryCount() > 0; }, 10s));
  std::this_thread::sleep_for(1500ms);
  fleet.Publish("robot-edge/r1/config", broken, 60);
  ASSERT_TRUE(Eventually([&] { return rig.ConfigResults().size() == 10; }, 10s)) << uplink.Log();
  // Used: the rollback's 14 and the applies of the last 60 s (1 each: 1 to 3, by the time).
  const std::string spent = rig.ConfigResults()[9];
  EXPECT_NE(spent.find("start budget is spent: recent applies used 1"), std::string::npos) << spent;
  EXPECT_NE(spent.find(" of its unit's 28 starts per 60 s, and this apply may cost 14"),
            std::string::npos)
      << spent;
  EXPECT_EQ(ReadFile(rig.config_path), renamed);
  EXPECT_EQ(robot.DaemonExits().size(), exits.size()) << "robot-edged restarted";
  std::printf("refused: %s\n", spent.c_str());

  uplink.Stop();
  if (!testing::Test::HasFailure()) std::filesystem::remove_all(rig.dir);  // else kept: the logs
}

}  // namespace
}  // namespace robot_edge::test
