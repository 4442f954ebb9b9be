// broker.uplink, a fleet configuration applied: robot-edge-uplink writes it over robot-edged's own
// config file (in DAMP), asks robot-edged to restart on it (ApplyConfigRequest, controller `fleet`
// in api.apply_config_controllers), and reports `applied` once robot-edged's Welcome carries the
// new file's digest. robot-edged exits with 75 and the rig starts it again as systemd's unit would
// (Robot::RestartLikeSystemd: Restart=on-failure, RestartSec=1, RestartForceExitStatus=75).
// Three cases: refused outside DAMP (nothing written), applied (the robot's name in the Welcome
// changes), and a file that validates but cannot start (a bus that does not exist): rolled back
// after robot_edged.apply_timeout_s, and robot-edged comes back on the previous file.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "fleet_rig.hpp"

namespace robot_edge::test {
namespace {

constexpr int kApplyTimeoutS = 12;

TEST(BrokerUplink, AFleetConfigIsAppliedByARestartOrRolledBack) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const std::string dir = MakeTempDir("uplink-apply");
  const std::string pki = dir + "/pki";
  ASSERT_EQ(std::system((std::string(ROBOT_EDGE_UPLINK_PKI) + " " + pki).c_str()), 0);
  const int port = FreePort();
  RobotOptions o;
  o.config_edits = {{"apply_config_controllers: []", "apply_config_controllers: [fleet]"}};
  Robot robot(o);
  robot.RestartLikeSystemd();
  const std::string config_path = robot.dir() + "/robot-edge.yaml";
  const std::string original = ReadFile(config_path);
  MosquittoBroker broker = TlsBroker(dir, pki, port);
  broker.Start();
  Fleet fleet(pki, port);
  Uplink uplink(
      dir, pki, port, robot.api_socket(), "",
      "  config: " + config_path + "\n  apply_timeout_s: " + std::to_string(kApplyTimeoutS) + "\n");
  uplink.Start();
  auto results = [&] {
    std::vector<std::string> out;
    for (const Received& m : fleet.Messages()) {
      if (m.topic == "robot-edge/r1/status" &&
          m.payload.find("config_result") != std::string::npos) {
        out.push_back(m.payload);
      }
    }
    return out;
  };
  auto telemetry_count = [&] {
    std::size_t n = 0;
    for (const Received& m : fleet.Messages()) n += m.topic == "robot-edge/r1/telemetry";
    return n;
  };
  ASSERT_TRUE(Eventually([&] { return telemetry_count() > 0; }, 20s)) << uplink.Log();
  auto welcome_name = [&] {
    try {
      edge::Welcome w;
      robot.Connect("", 0, &w);
      return w.robot_name();
    } catch (const std::exception&) {
      return std::string();  // robot-edged is restarting
    }
  };
  ASSERT_EQ(welcome_name(), "asimov-sim");
  const std::string renamed = Replaced(original, "name: asimov-sim", "name: asimov-fleet");

  // 1. Not in DAMP: refused, nothing written.
  {
    client::Client cloud = robot.Connect("cloud");
    ASSERT_TRUE(MotorsReady(cloud));
    ASSERT_TRUE(Command(cloud, Mode(edge::MODE_STAND)).accepted());
    std::this_thread::sleep_for(1500ms);  // the uplink's newest telemetry says STAND
    fleet.Publish("robot-edge/r1/config", renamed, 60);
    ASSERT_TRUE(Eventually([&] { return results().size() == 1; }, 10s)) << uplink.Log();
    EXPECT_NE(results()[0].find("\"reason\":\"not in DAMP\""), std::string::npos) << results()[0];
    EXPECT_EQ(ReadFile(config_path), original);
    ASSERT_TRUE(Command(cloud, Mode(edge::MODE_DAMP)).accepted());
  }
  std::this_thread::sleep_for(1500ms);  // DAMP in the uplink's telemetry too

  // 2. Applied: robot-edged exits with 75, comes back on the new file (its Welcome's name).
  const auto asked = std::chrono::steady_clock::now();
  fleet.Publish("robot-edge/r1/config", renamed, 60);
  ASSERT_TRUE(Eventually([&] { return results().size() == 2; }, 40s))
      << uplink.Log() << robot.DaemonLog();
  const double seen_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
  EXPECT_NE(results()[1].find("\"applied\":true"), std::string::npos) << results()[1];
  EXPECT_NE(results()[1].find("\"restart_ms\":"), std::string::npos) << results()[1];
  EXPECT_EQ(ReadFile(config_path), renamed);
  EXPECT_EQ(ReadFile(config_path + ".previous"), original);
  EXPECT_EQ(welcome_name(), "asimov-fleet") << robot.DaemonLog();
  ASSERT_FALSE(robot.DaemonExits().empty());
  EXPECT_EQ(robot.DaemonExits()[0], 75);
  std::printf("applied: %s; the fleet saw it %.2f s after publishing\n", results()[1].c_str(),
              seen_s);

  // 3. Valid, but robot-edged cannot start on it (vcan9 does not exist): after apply_timeout_s
  // the previous file is put back, and robot-edged's next start runs it.
  ASSERT_TRUE(Eventually([&] { return telemetry_count() > 0; }, 10s));
  std::this_thread::sleep_for(1500ms);  // the uplink has the new robot-edged's telemetry (DAMP)
  const std::string broken = Replaced(Replaced(renamed, "interface: vcan4", "interface: vcan9"),
                                      "name: asimov-fleet", "name: asimov-broken");
  fleet.Publish("robot-edge/r1/config", broken, 60);
  ASSERT_TRUE(Eventually([&] { return results().size() == 3; }, 40s))
      << uplink.Log() << robot.DaemonLog();
  EXPECT_NE(results()[2].find("\"applied\":false"), std::string::npos) << results()[2];
  EXPECT_NE(results()[2].find("\"rolled_back\":true"), std::string::npos) << results()[2];
  EXPECT_EQ(ReadFile(config_path), renamed);
  EXPECT_TRUE(Eventually([&] { return welcome_name() == "asimov-fleet"; }, 20s))
      << robot.DaemonLog();
  const std::vector<int> exits = robot.DaemonExits();
  ASSERT_GE(exits.size(), 3u);
  EXPECT_EQ(exits[1], 75);
  EXPECT_EQ(exits[2], 1) << "robot-edged started on vcan9";
  std::printf("rolled back: %s; robot-edged exits %zu\n", results()[2].c_str(), exits.size());
  uplink.Stop();
  if (!testing::Test::HasFailure()) std::filesystem::remove_all(dir);  // else kept: the logs
}

}  // namespace
}  // namespace robot_edge::test
