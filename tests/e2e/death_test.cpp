// End to end on vcan: however robot-edged dies, every motor ends in DAMP, then out of motor mode —
// seen on the buses. A fatal signal is handled in the process; SIGKILL, which cannot be, by the
// unit's ExecStopPost, run here as systemd runs it after the main process is gone.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>

#include "harness.hpp"

namespace robot_edge::e2e {
namespace {

// No core files from the signals these tests send.
void NoCoreDumps() {
  const rlimit none{0, 0};
  ::setrlimit(RLIMIT_CORE, &none);
}

void StandUp(Robot& robot) {
  auto c = robot.Connect("cloud");
  WaitMotorsReady(c);
  ASSERT_TRUE(Command(c, Mode(edge::MODE_STAND)).accepted());
  std::this_thread::sleep_for(300ms);  // standing: every motor is stiff
}

// Every motor's frames since `t_us` end with DAMP (kp 0) then FD; returns the latest time the
// DAMP frame of a motor was seen (-1 when one is missing).
std::int64_t ExpectDampThenExitOnEveryMotor(Robot& robot, std::int64_t t_us) {
  std::this_thread::sleep_for(300ms);
  const auto frames = robot.monitor().Since(t_us);
  std::int64_t latest = -1;
  for (int j = 0; j < static_cast<int>(robot.config().joints.size()); ++j) {
    std::vector<SeenFrame> mine;
    for (const auto& f : frames) {
      if (robot.monitor().JointOf(f) == j) mine.push_back(f);
    }
    const std::string name = robot.config().joints[j].name;
    if (mine.size() < 2) {
      ADD_FAILURE() << name << ": no DAMP and FD after the death";
      return -1;
    }
    const SeenFrame& last = mine.back();
    EXPECT_TRUE(last.special && last.which == can::SpecialCommand::kExitMotorMode)
        << name << ": the last frame is FD";
    const SeenFrame& damp = mine[mine.size() - 2];
    EXPECT_FALSE(damp.special) << name;
    EXPECT_EQ(damp.command.kp, 0.0f) << name << ": DAMP before FD";
    EXPECT_NEAR(damp.command.kd, robot.config().joints[j].damp_kd, 0.01) << name;
    latest = std::max(latest, damp.t_us);
  }
  return latest;
}

TEST(Death, SigkillThenTheUnitsExecStopPostDampsEveryMotor) {
  NoCoreDumps();
  Robot robot;
  StandUp(robot);
  const std::int64_t killed = NowUs();
  EXPECT_EQ(robot.StopDaemon(10s, SIGKILL), 128 + SIGKILL);
  const std::vector<std::string> argv = robot.ExecStopPost();
  ASSERT_FALSE(argv.empty()) << ROBOT_EDGE_UNIT << " has no ExecStopPost=robot-edged ...";
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--emergency-damp"), argv.end());
  std::string output;
  EXPECT_EQ(robot.RunExecStopPost(&output), 0) << output;
  EXPECT_NE(output.find("50 of 50 frames sent to 25 motors"), std::string::npos) << output;
  const std::int64_t damped = ExpectDampThenExitOnEveryMotor(robot, killed);
  ASSERT_GT(damped, 0);
  RecordProperty("sigkill_to_damp_ms", std::to_string((damped - killed) / 1000));
  EXPECT_LT(damped - killed, 5'000'000) << "ExecStopPost runs at once (user-mode-linux: slow)";
  EXPECT_NE(robot.Sim("get L_Knee").find("motor_mode=0"), std::string::npos);
}

// The config edited into an invalid state after the daemon started (one unknown key), then the
// daemon SIGKILLed: ExecStopPost still DAMPs every motor, from the plan the daemon wrote at start;
// without it (or with it corrupt), from the config read leniently. It says which.
TEST(Death, ABrokenConfigStillGetsDampFromThePlanThenFromTheLenientConfig) {
  NoCoreDumps();
  Robot robot;
  const std::string plan = robot.dir() + "/damp-plan";
  ASSERT_TRUE(std::filesystem::exists(plan)) << "written at start in RUNTIME_DIRECTORY";
  StandUp(robot);
  EXPECT_EQ(robot.StopDaemon(10s, SIGKILL), 128 + SIGKILL);
  const std::string config = robot.dir() + "/robot-edge.yaml";
  std::ofstream(config, std::ios::app) << "\nunknown_key: 1\n";
  ASSERT_THROW(config::LoadConfig(config), config::ConfigError) << "the config is broken";

  std::string output;
  std::int64_t t = NowUs();
  EXPECT_EQ(robot.RunExecStopPost(&output), 0) << output;
  EXPECT_NE(output.find("using the DAMP plan " + plan), std::string::npos) << output;
  EXPECT_NE(output.find("50 of 50 frames sent to 25 motors"), std::string::npos) << output;
  EXPECT_GT(ExpectDampThenExitOnEveryMotor(robot, t), 0) << "from the plan";

  ASSERT_TRUE(std::filesystem::remove(plan));
  t = NowUs();
  EXPECT_EQ(robot.RunExecStopPost(&output), 1) << "sent, but the config is broken\n" << output;
  EXPECT_NE(output.find("no DAMP plan at " + plan), std::string::npos) << output;
  EXPECT_NE(output.find("using the config " + config + " read leniently"), std::string::npos)
      << output;
  EXPECT_NE(output.find("50 of 50 frames sent to 25 motors"), std::string::npos) << output;
  EXPECT_NE(output.find("unknown_key"), std::string::npos) << "the problem named\n" << output;
  EXPECT_GT(ExpectDampThenExitOnEveryMotor(robot, t), 0) << "from the lenient config";

  std::ofstream(plan) << "robot-edge damp-plan 1\nsource robot-edged\ncrc32 00000000\n";
  t = NowUs();
  EXPECT_EQ(robot.RunExecStopPost(&output), 1) << output;
  EXPECT_NE(output.find("the DAMP plan " + plan + " is corrupt"), std::string::npos) << output;
  EXPECT_NE(output.find("read leniently"), std::string::npos) << output;
  EXPECT_GT(ExpectDampThenExitOnEveryMotor(robot, t), 0) << "a corrupt plan skipped";
}

TEST(Death, AFatalSignalDampsEveryMotorFromItsHandler) {
  NoCoreDumps();
  for (int signal : {SIGABRT, SIGSEGV}) {
    Robot robot;
    StandUp(robot);
    const std::int64_t sent = NowUs();
    EXPECT_EQ(robot.StopDaemon(10s, signal), 128 + signal) << "it still dies of the signal";
    EXPECT_NE(robot.DaemonLog().find("DAMP sent to every motor"), std::string::npos)
        << strsignal(signal) << "\n"
        << robot.DaemonLog();
    const std::int64_t damped = ExpectDampThenExitOnEveryMotor(robot, sent);
    ASSERT_GT(damped, 0) << strsignal(signal);
    EXPECT_LT(damped - sent, 1'000'000) << strsignal(signal);
  }
}

TEST(Death, EmergencyDampNamesABusThatIsDown) {
  Robot robot;
  ASSERT_EQ(robot.StopDaemon(), 0);
  ASSERT_EQ(robot.Sim("link vcan2 down").rfind("ok", 0), 0u);
  test::Child post({ROBOT_EDGED, "--emergency-damp", "--config", robot.dir() + "/robot-edge.yaml"},
                   robot.dir() + "/emergency");
  EXPECT_EQ(post.Wait(10s), 1) << "not every frame went out";
  EXPECT_NE(post.Stderr().find("vcan2: frames not sent (link down?)"), std::string::npos)
      << post.Stderr();
  EXPECT_NE(post.Stderr().find("40 of 50 frames sent"), std::string::npos) << post.Stderr();
  ASSERT_EQ(robot.Sim("link vcan2 up").rfind("ok", 0), 0u);
}

// The API thread (the daemon's main thread) stops; the control loop goes on. The stall is
// reported, walking is stopped, and systemd's watchdog is no longer fed, so systemd would kill
// the process (whose SIGABRT handler then DAMPs).
TEST(Death, AnApiThreadStallIsReportedAndStarvesTheWatchdog) {
  Robot robot({{}, {"WATCHDOG_USEC=400000"}});  // fed every 200 ms while healthy
  ASSERT_TRUE(robot.notify().WaitFor("WATCHDOG=1", 5s));
  std::size_t fed_before = 0, fed_during = 0;
  {
    StoppedThread api(robot.daemon_pid(), "robot-edged");
    std::this_thread::sleep_for(800ms);  // past the 500 ms stall threshold
    for (const auto& m : robot.notify().Messages(0ms)) fed_before += m == "WATCHDOG=1";
    std::this_thread::sleep_for(1000ms);
    for (const auto& m : robot.notify().Messages(0ms)) fed_during += m == "WATCHDOG=1";
  }
  EXPECT_EQ(fed_during, fed_before) << "the watchdog was fed while the API thread was stopped";
  bool status = false;
  for (const auto& m : robot.notify().Messages(500ms)) {
    status |= m.find("STATUS=API thread stalled") != std::string::npos;
  }
  EXPECT_TRUE(status) << "the stall is reported to systemd";
  EXPECT_TRUE(test::Eventually(
      [&] { return robot.DaemonLog().find("API thread responsive again") != std::string::npos; },
      3s))
      << robot.DaemonLog();
  EXPECT_NE(robot.DaemonLog().find("API thread stalled for"), std::string::npos);
  EXPECT_TRUE(test::Eventually(
      [&] {
        std::size_t fed = 0;
        for (const auto& m : robot.notify().Messages(50ms)) fed += m == "WATCHDOG=1";
        return fed > fed_during;
      },
      3s))
      << "fed again";
}

}  // namespace
}  // namespace robot_edge::e2e
