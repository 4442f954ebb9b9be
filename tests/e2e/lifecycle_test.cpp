// End to end on vcan: start-up and shutdown — systemd's notify protocol for real, and SIGTERM
// leaving every motor in DAMP and then out of motor mode.
#include <gtest/gtest.h>
#include <signal.h>

#include "harness.hpp"

namespace robot_edge::e2e {
namespace {

TEST(Shutdown, SigtermDampsEveryMotorThenExitsMotorModeAndExitsZero) {
  Robot robot;
  {
    auto c = robot.Connect("cloud");
    ASSERT_TRUE(WaitTelemetry(
        c, [](const auto& msg) { return msg.fw_age_ms() < 100; }, 10s));
    ASSERT_TRUE(Command(c, Mode(edge::MODE_STAND)).accepted());
    std::this_thread::sleep_for(300ms);  // standing: motors are stiff
  }
  const std::int64_t before = NowUs();
  EXPECT_EQ(robot.StopDaemon(), 0) << "clean exit";
  std::this_thread::sleep_for(100ms);
  const auto frames = robot.monitor().Since(before);
  for (int j = 0; j < 25; ++j) {
    // The frames for this motor after the signal: its last two must be DAMP (kp 0), then FD.
    std::vector<SeenFrame> mine;
    for (const auto& f : frames) {
      if (robot.monitor().JointOf(f) == j) mine.push_back(f);
    }
    ASSERT_GE(mine.size(), 2u) << robot.config().joints[j].name;
    const SeenFrame& last = mine.back();
    const SeenFrame& damp = mine[mine.size() - 2];
    EXPECT_TRUE(last.special && last.which == can::SpecialCommand::kExitMotorMode)
        << robot.config().joints[j].name << ": the last frame is FD";
    EXPECT_FALSE(damp.special);
    EXPECT_EQ(damp.command.kp, 0.0f) << robot.config().joints[j].name << ": DAMP before FD";
  }
  EXPECT_NE(robot.DaemonLog().find("shutting down"), std::string::npos);
  std::this_thread::sleep_for(300ms);
  EXPECT_NE(robot.Sim("get L_Knee").find("motor_mode=0"), std::string::npos)
      << "the motor left motor mode: " << robot.Sim("get L_Knee");
}

TEST(Startup, ASecondDaemonOnTheSameBusesRefusesToStartAndTheFirstRunsOn) {
  Robot robot;
  // Another api socket, the same buses: started by hand beside the service, say.
  Child second({ROBOT_EDGED, "--config", robot.dir() + "/robot-edge.yaml", "--api-socket",
                robot.dir() + "/second.sock"},
               robot.dir() + "/second");
  EXPECT_EQ(second.Wait(10s), 1) << second.Stderr();
  EXPECT_NE(second.Stderr().find("another robot-edged already drives vcan0"), std::string::npos)
      << second.Stderr();
  auto c = robot.Connect("cloud");
  EXPECT_TRUE(WaitTelemetry(
      c, [](const auto& msg) { return msg.fw_age_ms() < 100; }, 10s))
      << "the first daemon still drives the robot";
  EXPECT_TRUE(robot.DaemonRunning());
}

TEST(Systemd, NotifiesReadyThenWatchdogWhileHealthyThenStopping) {
  Robot robot({{}, {"WATCHDOG_USEC=400000"}});  // pings every 200 ms
  std::this_thread::sleep_for(1s);
  // SIGHUP (a closed terminal) shuts down as cleanly as SIGTERM.
  EXPECT_EQ(robot.StopDaemon(10s, SIGHUP), 0);
  EXPECT_NE(robot.DaemonLog().find("Hangup: shutting down"), std::string::npos);
  const auto messages = robot.notify().Messages(500ms);
  int ready = -1, stopping = -1, watchdogs = 0, first_watchdog = -1;
  for (int i = 0; i < static_cast<int>(messages.size()); ++i) {
    if (messages[i].find("READY=1") != std::string::npos && ready < 0) ready = i;
    if (messages[i].find("WATCHDOG=1") != std::string::npos) {
      ++watchdogs;
      if (first_watchdog < 0) first_watchdog = i;
    }
    if (messages[i].find("STOPPING=1") != std::string::npos) stopping = i;
  }
  ASSERT_GE(ready, 0) << "no READY=1";
  ASSERT_GE(stopping, 0) << "no STOPPING=1";
  EXPECT_GE(watchdogs, 3) << "WATCHDOG=1 at half of WatchdogSec while the loop runs";
  EXPECT_LT(ready, first_watchdog);
  EXPECT_LT(first_watchdog, stopping);
  EXPECT_EQ(stopping, static_cast<int>(messages.size()) - 1) << "nothing after STOPPING=1";
}

TEST(Systemd, NoWatchdogWithoutWatchdogUsec) {
  Robot robot;
  std::this_thread::sleep_for(500ms);
  for (const auto& m : robot.notify().Messages(100ms)) {
    EXPECT_EQ(m.find("WATCHDOG=1"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace robot_edge::e2e
