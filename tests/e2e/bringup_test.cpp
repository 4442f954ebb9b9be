// End to end on vcan: a robot whose motors are not all AK80-9s mounted as their joints — mixed
// families, a reversed motor, an offset, a gear after the motor — stands; and a joint that reads
// far beyond its limits (a wrong offset) holds DAMP with its name until it is fixed.
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <thread>

#include "config/config.hpp"

#include "harness.hpp"

namespace robot_edge::e2e {
namespace {

// The joint's true position in the simulator (joint space, whatever the motor reports).
double TruePosition(Robot& robot, const std::string& joint) {
  const std::string line = robot.Sim("get " + joint);
  const auto at = line.find("joint_position_rad=");
  if (at == std::string::npos) return NAN;
  return std::strtod(line.c_str() + at + 19, nullptr);
}

constexpr int kLKnee = 3, kRKnee = 9, kLElbow = 15, kWaist = 22;

// Damiao on the left leg, Robstride (29-bit ids) on the right leg and the waist, AK elsewhere.
// L_Knee reversed with an offset, R_Knee behind a 2:1 reduction, L_Elbow reversed.
RobotOptions MixedRobot() {
  RobotOptions o;
  o.config_edits = {
      {"  ak80_9: {",
       "  dm_j8009: {family: damiao, p_max: 12.5, v_max: 45.0, t_max: 18.0, kp_max: "
       "500.0, kd_max: 5.0, torque_constant: 0.8, can_timeout_ms: 100}\n"
       "  rs03: {family: robstride, p_max: 12.5, v_max: 20.0, t_max: 18.0, kp_max: "
       "500.0, kd_max: 5.0, torque_constant: 0.8, can_timeout_ms: 100}\n"
       "  ak80_9: {"},
      {"{name: L_Knee,           bus: left_leg,   can_id: 4, motor: ak80_9,",
       "{name: L_Knee,           bus: left_leg,   can_id: 4, motor: dm_j8009, direction: -1, "
       "offset: 0.25,"},
      {"{name: L_Hip_Roll,       bus: left_leg,   can_id: 2, motor: ak80_9,",
       "{name: L_Hip_Roll,       bus: left_leg,   can_id: 2, motor: dm_j8009,"},
      {"{name: R_Knee,           bus: right_leg,  can_id: 4, motor: ak80_9,",
       "{name: R_Knee,           bus: right_leg,  can_id: 4, motor: rs03, gear_ratio: 0.5,"},
      {"{name: R_Hip_Pitch,      bus: right_leg,  can_id: 1, motor: ak80_9,",
       "{name: R_Hip_Pitch,      bus: right_leg,  can_id: 1, motor: rs03,"},
      {"{name: Waist_Yaw,        bus: waist_neck, can_id: 1, motor: ak80_9,",
       "{name: Waist_Yaw,        bus: waist_neck, can_id: 1, motor: rs03, direction: -1,"},
      {"{name: L_Elbow,          bus: left_arm,   can_id: 4, motor: ak80_9,",
       "{name: L_Elbow,          bus: left_arm,   can_id: 4, motor: ak80_9, direction: -1,"},
  };
  return o;
}

TEST(MixedFamilies, AReversedOffsetGearedMixedRobotStandsInJointSpace) {
  Robot robot(MixedRobot());
  ASSERT_EQ(robot.config().motor_of(kLKnee).family, config::MotorFamily::kDamiao);
  ASSERT_EQ(robot.config().motor_of(kRKnee).family, config::MotorFamily::kRobstride);
  auto c = robot.Connect("cloud");
  WaitMotorsReady(c);
  const auto r = Command(c, Mode(edge::MODE_STAND));
  ASSERT_TRUE(r.accepted()) << r.reason();
  const auto pose = StandPose(robot.config());
  const auto settled = WaitTelemetry(
      c, [&](const auto& t) { return AtPose(t, pose, 0.03f); }, 8s);
  ASSERT_TRUE(settled) << "telemetry never showed the stand pose";
  // The simulator's own joints are where telemetry says: every conversion agrees with the motors.
  for (int j : {kLKnee, kRKnee, kLElbow, kWaist}) {
    const std::string& name = robot.config().joints[j].name;
    EXPECT_NEAR(TruePosition(robot, name), pose[j], 0.05) << name;
  }
  EXPECT_EQ(settled->active_alerts_size(), 0);
}

// A field of the simulator's `get` line for `joint`.
std::string SimField(Robot& robot, const std::string& joint, const std::string& field) {
  const std::string line = robot.Sim("get " + joint);
  const auto at = line.find(" " + field + "=");
  if (at == std::string::npos) return "(no " + field + " in: " + line + ")";
  const auto from = at + field.size() + 2;
  return line.substr(from, line.find(' ', from) - from);
}

// The simulated Damiao and Robstride motors ship with their CAN-loss timeout off, as real ones
// do: robot-edged writes can_timeout_ms at start and reads it back. Then a daemon frozen whole
// (SIGSTOP: no supervisor, no emergency stop) leaves those motors limp after 100 ms.
TEST(MixedFamilies, DamiaoAndRobstrideMotorsAreToldTheirCanTimeoutAndObeyIt) {
  Robot robot(MixedRobot());
  auto c = robot.Connect("cloud");
  WaitMotorsReady(c);
  for (int j : {kLKnee, kRKnee, kWaist}) {
    EXPECT_EQ(SimField(robot, robot.config().joints[j].name, "can_timeout_ms"), "100")
        << robot.config().joints[j].name;
  }
  EXPECT_NE(robot.DaemonLog().find("CAN-loss timeout set and read back on 5 of 5 motors"),
            std::string::npos);
  ASSERT_TRUE(Command(c, Mode(edge::MODE_STAND)).accepted());
  ASSERT_TRUE(WaitTelemetry(
      c, [&](const auto& t) { return AtPose(t, StandPose(robot.config()), 0.05f); }, 8s));
  for (int j : {kLKnee, kRKnee, kWaist}) {
    ASSERT_EQ(SimField(robot, robot.config().joints[j].name, "active"), "1");
  }
  ASSERT_EQ(::kill(robot.daemon_pid(), SIGSTOP), 0);
  std::this_thread::sleep_for(400ms);
  for (int j : {kLKnee, kRKnee, kWaist}) {
    EXPECT_EQ(SimField(robot, robot.config().joints[j].name, "active"), "0")
        << robot.config().joints[j].name << " still holds with its controller frozen";
  }
  ::kill(robot.daemon_pid(), SIGCONT);
}

TEST(JointOutOfRange, AJointFarBeyondItsLimitsHoldsDampWithItsNameUntilFixed) {
  Robot robot;
  auto c = robot.Connect("cloud");
  auto observer = robot.Connect("");
  WaitMotorsReady(c);
  // The knee's motor sits 3 rad away from where the config says (a wrong offset): it reads ~3.0
  // rad at a true 0, beyond its 2.4 rad limit.
  ASSERT_EQ(robot.Sim("mount L_Knee -3.0 1").rfind("ok", 0), 0u);
  const auto error = WaitError(observer, "JOINT_OUT_OF_RANGE", 3s);
  ASSERT_TRUE(error);
  EXPECT_NE(error->error().message().find("L_Knee"), std::string::npos);
  EXPECT_NE(error->error().message().find("reads 3.0"), std::string::npos)
      << error->error().message();
  const auto out = WaitTelemetry(
      c, [](const auto& t) { return HasAlert(t, edge::ALERT_JOINT_OUT_OF_RANGE, kLKnee); }, 3s);
  ASSERT_TRUE(out);
  EXPECT_NEAR(out->active_alerts(0).value(), 600u, 30u) << "mrad beyond the 2.4 rad limit";
  EXPECT_EQ(out->active_alerts(0).threshold(), 150u);

  const auto blocked = Command(c, Mode(edge::MODE_STAND));
  EXPECT_FALSE(blocked.accepted());
  EXPECT_EQ(blocked.reason(), "blocked_by_alert");

  ASSERT_EQ(robot.Sim("mount L_Knee 0 1").rfind("ok", 0), 0u);
  ASSERT_TRUE(WaitTelemetry(
      c, [](const auto& t) { return t.active_alerts_size() == 0; }, 3s));
  EXPECT_TRUE(Command(c, Mode(edge::MODE_STAND)).accepted());
}

// Past its limit by less than the margin (the audit's shoulder ended 0.1 rad past −3.0 with no
// word): the warning JOINT_PAST_LIMIT names the joint; the robot is not held in DAMP for it.
TEST(JointPastLimit, AJointPastItsLimitWithinTheMarginWarnsAndStandIsAllowed) {
  Robot robot;
  auto c = robot.Connect("cloud");
  auto observer = robot.Connect("");
  WaitMotorsReady(c);
  ASSERT_EQ(robot.Sim("mount L_Knee -2.48 1").rfind("ok", 0), 0u);  // reads 2.48: 80 mrad past
  const auto error = WaitError(observer, "JOINT_PAST_LIMIT", 3s);
  ASSERT_TRUE(error) << "no JOINT_PAST_LIMIT";
  EXPECT_NE(error->error().message().find("L_Knee"), std::string::npos);
  const auto past = WaitTelemetry(
      c, [](const auto& t) { return HasAlert(t, edge::ALERT_JOINT_PAST_LIMIT, kLKnee); }, 3s);
  ASSERT_TRUE(past);
  ASSERT_EQ(past->active_alerts_size(), 1) << "JOINT_OUT_OF_RANGE too, within the margin?";
  EXPECT_EQ(past->active_alerts(0).severity(), static_cast<std::uint32_t>(edge::SEVERITY_WARNING));
  EXPECT_NEAR(past->active_alerts(0).value(), 80u, 20u) << "mrad past the 2.4 rad limit";
  EXPECT_TRUE(Command(c, Mode(edge::MODE_STAND)).accepted()) << "a warning held the robot";
  EXPECT_TRUE(Command(c, Mode(edge::MODE_DAMP)).accepted());
  // Reads 0.5 rad, well inside [0, 2.4]: at 0, its limit, the brief STAND and the drift in DAMP
  // left it a few mrad either side, and past the clear band the warning rightly stayed.
  ASSERT_EQ(robot.Sim("mount L_Knee -0.5 1").rfind("ok", 0), 0u);
  EXPECT_TRUE(WaitTelemetry(
      c, [](const auto& t) { return t.active_alerts_size() == 0; }, 3s));
}

TEST(JointOutOfRange, AnEncoderThatSlipsWhileStandingDamps) {
  Robot robot;
  auto c = robot.Connect("cloud");
  auto observer = robot.Connect("");
  WaitMotorsReady(c);
  ASSERT_TRUE(Command(c, Mode(edge::MODE_STAND)).accepted());
  ASSERT_TRUE(WaitTelemetry(
      c, [](const auto& t) { return std::fabs(t.joint_pos(kLKnee) - 0.6f) < 0.02f; }, 6s));
  // The knee's encoder slips by 2.5 rad: it reads ~3.1 rad while the knee is at 0.6.
  ASSERT_EQ(robot.Sim("mount L_Knee -2.5 1").rfind("ok", 0), 0u);
  ASSERT_TRUE(WaitError(observer, "JOINT_OUT_OF_RANGE", 3s));
  EXPECT_TRUE(WaitTelemetry(
      c, [](const auto& t) { return t.fw_mode() == edge::FW_MODE_DAMP; }, 3s))
      << "a joint read beyond its limit while driven, and the robot kept standing";
}

// ---- The bring-up tools (robot-edgectl scan, jog, calibrate, zero) ----

std::optional<edge::MaintenanceResult> Ask(client::Client& c, edge::MaintenanceRequest r,
                                           Millis timeout = 3s) {
  static std::uint32_t id = 1;
  r.set_request_id(id++);
  return c.Maintain(r, timeout);
}

edge::MaintenanceRequest ScanRequest() {
  edge::MaintenanceRequest r;
  r.mutable_scan()->set_max_id(16);
  return r;
}

// The mixed robot, with R_Elbow's motor absent and a stray AK motor with id 9 on the left leg.
RobotOptions MixedRobotWithMissingAndExtra() {
  RobotOptions o = MixedRobot();
  o.config_edits.push_back({"sim:                                      # robot-edge-sim only",
                            "sim:\n  missing: [R_Elbow]\n"
                            "  extra_motors: [{bus: left_leg, motor: ak80_9, can_id: 9}]"});
  return o;
}

TEST(Scan, FindsEveryMotorWithItsFamilyTheMissingOneAndTheExtraOne) {
  Robot robot(MixedRobotWithMissingAndExtra());
  auto m = robot.Connect("maintainer");
  ASSERT_TRUE(WaitTelemetry(
      m, [](const auto&) { return true; }, 10s));
  std::this_thread::sleep_for(1s);  // every present motor has replied (R_Elbow never will)
  const auto result = Ask(m, ScanRequest(), 8s);
  ASSERT_TRUE(result);
  ASSERT_TRUE(result->ok()) << result->error();
  const edge::ScanResult& scan = result->scan();
  ASSERT_EQ(scan.motors_size(), 25);
  constexpr int kRElbow = 20;
  for (int j = 0; j < 25; ++j) {
    const edge::ScannedMotor& motor = scan.motors(j);
    EXPECT_EQ(motor.family(), config::ToString(robot.config().motor_of(j).family)) << j;
    EXPECT_EQ(motor.answers(), j != kRElbow) << robot.config().joints[j].name;
    EXPECT_EQ(motor.malformed_replies(), 0u) << robot.config().joints[j].name;
  }
  ASSERT_EQ(scan.strays_size(), 1) << result->DebugString();
  EXPECT_EQ(scan.strays(0).bus(), 0u);
  EXPECT_EQ(scan.strays(0).motor_id(), 9u);
  EXPECT_EQ(scan.strays(0).family(), "ak");
}

TEST(Scan, OnlyForAMaintenanceRoleAndOnlyInDamp) {
  Robot robot;
  auto cloud = robot.Connect("cloud");
  WaitMotorsReady(cloud);
  const auto refused = Ask(cloud, ScanRequest());
  ASSERT_TRUE(refused);
  EXPECT_FALSE(refused->ok());
  EXPECT_NE(refused->error().find("may not run bring-up tools"), std::string::npos)
      << refused->error();
  ASSERT_TRUE(Command(cloud, Mode(edge::MODE_STAND)).accepted());
  ASSERT_TRUE(WaitTelemetry(
      cloud, [](const auto& t) { return t.fw_mode() == edge::FW_MODE_STAND; }, 3s));
  auto m = robot.Connect("maintainer");
  const auto standing = Ask(m, ScanRequest());
  ASSERT_TRUE(standing);
  EXPECT_FALSE(standing->ok());
  EXPECT_NE(standing->error().find("DAMP only"), std::string::npos) << standing->error();
}

TEST(Jog, MovesOnlyTheChosenJointAndDampsWhenTheClientDisappears) {
  Robot robot;
  auto observer = robot.Connect("");
  WaitMotorsReady(observer);
  constexpr int kLElbowIndex = 15;
  {
    auto m = robot.Connect("maintainer");
    edge::MaintenanceRequest jog;
    jog.mutable_jog()->set_joint(kLElbowIndex);
    jog.mutable_jog()->set_target_rad(0.8f);
    jog.mutable_jog()->set_speed_rad_s(0.8f);
    const auto until = std::chrono::steady_clock::now() + 2500ms;
    const std::int64_t jogging_since = NowUs() + 500'000;
    while (std::chrono::steady_clock::now() < until) {
      const auto r = Ask(m, jog);
      ASSERT_TRUE(r);
      ASSERT_TRUE(r->ok()) << r->error();
      std::this_thread::sleep_for(50ms);
    }
    const std::int64_t jogging_until = NowUs();
    int elbow = 0;
    for (const auto& f : robot.monitor().Since(jogging_since)) {
      if (f.special || f.t_us > jogging_until) continue;
      const int j = robot.monitor().JointOf(f);
      if (j == kLElbowIndex) {
        ++elbow;
        EXPECT_NEAR(f.command.kp, 60.0f / 5, 0.2f);
      } else {
        EXPECT_EQ(f.command.kp, 0.0f) << "joint " << j << " was driven by a jog of L_Elbow";
      }
    }
    EXPECT_GT(elbow, 100);
    const auto there = WaitTelemetry(
        observer, [](const auto& t) { return std::fabs(t.joint_pos(kLElbowIndex) - 0.8f) < 0.05f; },
        3s);
    ASSERT_TRUE(there) << "L_Elbow did not reach 0.8 rad";
    EXPECT_EQ(there->fw_mode(), edge::FW_MODE_DAMP);
  }  // the maintainer's connection closes: nothing renews the jog
  std::this_thread::sleep_for(500ms);
  const std::int64_t after = NowUs();
  std::this_thread::sleep_for(100ms);
  int elbow_frames = 0;
  for (const auto& f : robot.monitor().Since(after)) {
    if (f.special || robot.monitor().JointOf(f) != kLElbowIndex) continue;
    ++elbow_frames;
    EXPECT_EQ(f.command.kp, 0.0f) << "the jog outlived its client";
  }
  EXPECT_GT(elbow_frames, 0);
}

TEST(Calibrate, RecoversOffsetsScrambledInTheSimulatorWithinAHundredthOfARadian) {
  RobotOptions o;
  o.config_edits = {{"robot:\n", "calibration: calibration.yaml\nrobot:\n"}};
  Robot robot(o);
  auto m = robot.Connect("maintainer");
  WaitMotorsReady(m);
  // The robot as built: three motors sit elsewhere than the (uncalibrated) config says. Every
  // joint rests at 0 rad, the calibration pose "zero".
  const std::vector<std::pair<std::string, double>> truth = {
      {"L_Knee", 0.30}, {"R_Hip_Pitch", -0.20}, {"Neck_Yaw", 0.05}};
  for (const auto& [joint, offset] : truth) {
    ASSERT_EQ(robot.Sim("mount " + joint + " " + std::to_string(offset) + " 1").rfind("ok", 0), 0u);
  }
  std::this_thread::sleep_for(200ms);
  edge::MaintenanceRequest calibrate;
  calibrate.mutable_calibrate()->set_pose("zero");
  const auto result = Ask(m, calibrate);
  ASSERT_TRUE(result);
  ASSERT_TRUE(result->ok()) << result->error();
  EXPECT_EQ(result->calibrate().path(), robot.dir() + "/calibration.yaml");
  // What robot-edged reads at its next start.
  const config::Config next = config::LoadConfig(robot.dir() + "/robot-edge.yaml");
  for (std::size_t j = 0; j < next.joints.size(); ++j) {
    double expected = 0;
    for (const auto& [joint, offset] : truth) {
      if (next.joints[j].name == joint) expected = offset;
    }
    EXPECT_NEAR(next.joints[j].offset_rad, expected, 0.01) << next.joints[j].name;
    EXPECT_TRUE(next.joints[j].calibrated);
  }
}

TEST(ClearFault, ClearsALatchedFaultInADamiaoMotorAndIsRefusedForAnAk) {
  Robot robot(MixedRobot());
  auto m = robot.Connect("maintainer");
  auto cloud = robot.Connect("cloud");
  WaitMotorsReady(cloud);
  constexpr int kLHipRoll = 1;  // Damiao
  ASSERT_EQ(robot.config().motor_of(kLHipRoll).family, config::MotorFamily::kDamiao);
  edge::MaintenanceRequest clear;
  clear.mutable_clear_fault()->set_joint(kLElbow);  // AK: no such command
  const auto ak = Ask(m, clear);
  ASSERT_TRUE(ak);
  EXPECT_FALSE(ak->ok());
  EXPECT_NE(ak->error().find("power-cycle"), std::string::npos) << ak->error();

  ASSERT_EQ(robot.Sim("fault L_Hip_Roll 2").rfind("ok", 0), 0u);  // overcurrent, latched
  ASSERT_TRUE(WaitTelemetry(
      cloud, [](const auto& t) { return HasAlert(t, edge::ALERT_MOTOR_FAULT, kLHipRoll); }, 3s));
  EXPECT_EQ(Command(cloud, Mode(edge::MODE_STAND)).reason(), "blocked_by_alert");
  clear.mutable_clear_fault()->set_joint(kLHipRoll);
  const auto done = Ask(m, clear);
  ASSERT_TRUE(done);
  ASSERT_TRUE(done->ok()) << done->error();
  EXPECT_NE(done->clear_fault().note().find("FB"), std::string::npos) << done->clear_fault().note();
  ASSERT_TRUE(WaitTelemetry(
      cloud, [](const auto& t) { return t.active_alerts_size() == 0; }, 3s))
      << "the motor's fault was not cleared";
  EXPECT_TRUE(Command(cloud, Mode(edge::MODE_STAND)).accepted());
}

TEST(Zero, WritesTheMotorsOwnZeroOnlyWhenConfirmed) {
  Robot robot;
  auto m = robot.Connect("maintainer");
  WaitMotorsReady(m);
  ASSERT_EQ(robot.Sim("mount L_Wrist_Yaw 0.4 1").rfind("ok", 0), 0u);  // reads -0.4 at rest
  ASSERT_TRUE(WaitTelemetry(
      m, [](const auto& t) { return std::fabs(t.joint_pos(16) + 0.4f) < 0.01f; }, 3s));
  edge::MaintenanceRequest zero;
  zero.mutable_zero()->set_joint(16);
  const auto unconfirmed = Ask(m, zero);
  ASSERT_TRUE(unconfirmed);
  EXPECT_FALSE(unconfirmed->ok());
  zero.mutable_zero()->set_confirm(true);
  const auto done = Ask(m, zero);
  ASSERT_TRUE(done);
  ASSERT_TRUE(done->ok()) << done->error();
  EXPECT_NE(done->zero().note().find("calibrate"), std::string::npos);
  EXPECT_TRUE(WaitTelemetry(
      m, [](const auto& t) { return std::fabs(t.joint_pos(16)) < 0.01f; }, 3s))
      << "the motor's own zero did not move";
}

}  // namespace
}  // namespace robot_edge::e2e
