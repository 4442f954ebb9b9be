// End to end on vcan: robot-edgectl against the real daemon.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <cmath>

#include <cstdio>

#include "harness.hpp"

namespace robot_edge::e2e {
namespace {

struct CtlResult {
  int status;
  std::string output;
};

// robot-edgectl ARGS on the robot's socket; `as` (e.g. "setpriv --reuid=nobody ...") runs it
// as another user.
CtlResult Ctl(const Robot& robot, const std::string& args, const std::string& as = "") {
  const std::string command = as + (as.empty() ? "" : " ") + ROBOT_EDGECTL + " --socket " +
                              robot.api_socket() + " " + args + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof(buffer), pipe)) out.append(buffer, n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(Cli, StatusStandWalkMoveAndDamp) {
  Robot robot;
  auto observer = robot.Connect("");
  ASSERT_TRUE(WaitTelemetry(
      observer, [](const auto& msg) { return msg.fw_age_ms() < 100; }, 10s));

  CtlResult r = Ctl(robot, "status");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("DAMP"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("L_Hip_Pitch"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Neck_Yaw"), std::string::npos) << r.output;

  r = Ctl(robot, "walk 0.3 0 0 --duration 1");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("velocity_in_damp"), std::string::npos) << r.output;

  r = Ctl(robot, "stand");
  EXPECT_EQ(r.status, 0) << r.output;
  r = Ctl(robot, "walk 0.3 0 0 --duration 1");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("velocity_no_policy"), std::string::npos) << r.output;

  r = Ctl(robot, "move L_Elbow=1.0 --duration 1 --hold 0.5");
  EXPECT_EQ(r.status, 0) << r.output;
  // One pass over the observer's messages for both: the arm's telemetry and the timeout's error
  // come in either order on a slow machine, and a wait for one would consume the other.
  bool moved = false, timed_out = false;
  const auto deadline = std::chrono::steady_clock::now() + 4s;
  while (!(moved && timed_out) && std::chrono::steady_clock::now() < deadline) {
    const auto m = observer.Read(100ms);
    if (!m) continue;
    if (m->has_telemetry()) moved |= std::fabs(m->telemetry().joint_pos(15) - 1.0f) < 0.08f;
    if (m->has_event() && m->event().has_error()) {
      timed_out |= m->event().error().code() == "TRAJECTORY_TIMEOUT";
    }
  }
  EXPECT_TRUE(moved) << "L_Elbow did not reach 1.0 rad";
  ASSERT_TRUE(timed_out) << "streaming stopped: DAMP with TRAJECTORY_TIMEOUT";

  r = Ctl(robot, "damp");
  EXPECT_EQ(r.status, 0) << r.output;
  r = Ctl(robot, "diag");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("vcan4"), std::string::npos) << r.output;
}

// robot-edgectl sine: the joint stream drives the elbow on a sine (seen in the frames) and the
// latency comes back from the echoed keys.
TEST(Cli, SineStreamsOneJointAndMeasuresTheLatency) {
  Robot robot;
  auto observer = robot.Connect("");
  WaitMotorsReady(observer);
  const std::int64_t t0 = NowUs();
  const CtlResult r =
      Ctl(robot, "sine L_Elbow --amplitude 0.2 --frequency 0.5 --duration 2.5 --json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("\"latency_us\":{\"min\":"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("\"latency_samples\":0"), std::string::npos) << r.output;
  // The elbow's commanded position swings both ways about where it hung, at kp 40.
  constexpr int kElbow = 15;
  float low = 1e9f, high = -1e9f;
  for (const SeenFrame& f : robot.monitor().Since(t0)) {
    if (f.special || robot.monitor().JointOf(f) != kElbow || f.command.kp < 39.0f) continue;
    low = std::min(low, f.command.position_rad);
    high = std::max(high, f.command.position_rad);
  }
  EXPECT_GT(high - low, 0.3f) << "the elbow's targets spanned " << high - low << " rad";
  EXPECT_LT(high - low, 0.41f);
}

TEST(Cli, BringUpScanJogCheckDirectionCalibrateZero) {
  RobotOptions o;
  o.config_edits = {{"robot:\n", "calibration: calibration.yaml\nrobot:\n"}};
  Robot robot(o);
  auto observer = robot.Connect("");
  ASSERT_TRUE(WaitTelemetry(
      observer, [](const auto& msg) { return msg.fw_age_ms() < 100; }, 10s));

  CtlResult r = Ctl(robot, "scan --max-id 8");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("25 configured: 25 answer, 0 missing, 0 with faults; 0 unexpected ids"),
            std::string::npos)
      << r.output;
  r = Ctl(robot, "jog L_Elbow 0.4 --speed 0.5");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("arrived; DAMP"), std::string::npos) << r.output;
  r = Ctl(robot, "check-direction L_Shoulder_Yaw");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("the motor follows its commands"), std::string::npos) << r.output;
  r = Ctl(robot, "jog Nobody 0.1");
  EXPECT_EQ(r.status, 2) << r.output;
  r = Ctl(robot, "calibrate --pose zero");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("restart robot-edged"), std::string::npos) << r.output;
  r = Ctl(robot, "zero Neck_Yaw");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--confirm"), std::string::npos) << r.output;
  // After a motor's zero is set its offset is stale: nothing leaves DAMP until a restart.
  r = Ctl(robot, "zero Neck_Yaw --confirm");
  EXPECT_EQ(r.status, 0) << r.output;
  std::this_thread::sleep_for(100ms);  // the control thread takes it at its next tick
  r = Ctl(robot, "stand");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("calibration_stale"), std::string::npos) << r.output;
  r = Ctl(robot, "scan --controller cloud");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("may not run bring-up tools"), std::string::npos) << r.output;
}

// check-direction --model on the MuJoCo humanoid hanging from its gantry: a motor mounted the
// other way than the config says is caught by gravity; a correct one is confirmed.
TEST(Cli, CheckDirectionByGravityCatchesAReversedMotorAndConfirmsACorrectOne) {
  Robot robot(WithPhysics());
  auto observer = robot.Connect("");
  // Every motor and the IMU answer, and no alert left from the physics' start (a slow machine).
  ASSERT_TRUE(WaitTelemetry(
      observer,
      [](const auto& msg) { return msg.fw_age_ms() < 100 && msg.active_alerts_size() == 0; }, 10s));
  ASSERT_EQ(robot.Sim("mount L_Elbow 0 -1").rfind("ok", 0), 0u);
  CtlResult r = Ctl(robot, "check-direction L_Elbow --model " ROBOT_EDGE_HUMANOID);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("REVERSED"), std::string::npos) << r.output;
  r = Ctl(robot, "check-direction R_Knee --model " ROBOT_EDGE_HUMANOID);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("the way the config says"), std::string::npos) << r.output;
}

// The config says R_Hip_Pitch's motor is a Robstride; an AK is fitted: scan names the family.
TEST(Cli, ScanNamesAMotorOfAnotherFamilyThanTheConfigSays) {
  RobotOptions o;
  o.config_edits = {{"  ak80_9: {",
                     "  rs03: {family: robstride, p_max: 12.5, v_max: 20.0, t_max: 18.0, kp_max: "
                     "500.0, kd_max: 5.0, torque_constant: 0.8, can_timeout_ms: 100}\n  ak80_9: {"},
                    {"{name: R_Hip_Pitch,      bus: right_leg,  can_id: 1, motor: ak80_9,",
                     "{name: R_Hip_Pitch,      bus: right_leg,  can_id: 1, motor: rs03,"},
                    {"sim:                                      # robot-edge-sim only",
                     "sim:\n  fitted: {R_Hip_Pitch: ak80_9}"}};
  Robot robot(o);
  auto observer = robot.Connect("");
  ASSERT_TRUE(WaitTelemetry(
      observer, [](const auto&) { return true; }, 10s));
  std::this_thread::sleep_for(1s);  // every present motor has replied (R_Hip_Pitch never will)
  const CtlResult r = Ctl(robot, "scan --max-id 8");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("R_Hip_Pitch"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("MISSING as robstride, but ak-shaped replies come from its id"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("24 answer, 1 missing"), std::string::npos) << r.output;
}

TEST(Cli, SaysSoWhenTheDaemonIsNotRunning) {
  Robot robot;
  robot.StopDaemon();
  const CtlResult r = Ctl(robot, "status");
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("robot-edged"), std::string::npos) << r.output;
}

// An impostor: a local process that can open the socket claims a controller role. Its user
// decides (SO_PEERCRED), not its Hello.
TEST(Cli, ALocalUserConnectsOnlyAsTheControllersItIsGranted) {
  RobotOptions options;
  options.config_edits = {{"access: {}", "access: {ble: {users: [nobody]}}"}};
  Robot robot(options);
  // Let uid nobody reach the socket (the test's directory is private).
  ASSERT_EQ(::chmod(robot.dir().c_str(), 0711), 0);
  ASSERT_EQ(::chmod(robot.api_socket().c_str(), 0666), 0);
  const std::string nobody = "setpriv --reuid=nobody --regid=nogroup --clear-groups";
  CtlResult r = Ctl(robot, "--controller cloud stand", nobody);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("uid 65534 may not connect as 'cloud'"), std::string::npos) << r.output;
  r = Ctl(robot, "--controller ble stand", nobody);
  EXPECT_EQ(r.status, 0) << r.output;
  r = Ctl(robot, "damp", nobody);  // as an observer: anyone who can open the socket may DAMP
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(robot.DaemonLog().find("Hello as 'cloud' refused: uid 65534"), std::string::npos);
}

}  // namespace
}  // namespace robot_edge::e2e
