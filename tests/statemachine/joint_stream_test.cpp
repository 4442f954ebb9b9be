// MOVE/JOINT_STREAM: PD + feed-forward targets, end_time, extrapolation, the velocity safety
// limit, and the rules it shares with MOVE/TRAJECTORY (gains, watchdog, the DAMP latch).
#include "statemachine/joint_stream.hpp"

#include <gtest/gtest.h>

#include "fixture.hpp"

namespace robot_edge::sm {
namespace {

using test::kMs;
using test::Machine;

constexpr std::size_t kYaw = 2;  // L_Hip_Yaw: limits -0.8 .. 0.8 rad, kp cap 500

JointStreamCommand Command25() {
  JointStreamCommand c(25);
  for (std::size_t j = 0; j < 25; ++j) {
    c.position_rad[j] = 0.01f * static_cast<float>(j);
    c.velocity_rad_s[j] = 0.5f;
    c.torque_nm[j] = -0.25f;
    c.kp[j] = 30.0f + static_cast<float>(j);
    c.kd[j] = 1.0f;
  }
  c.has_gains = true;
  c.end_us = 1000 * kMs;
  return c;
}

TEST(JointStreamTargets, AreThePdffOfTheCommand) {
  JointStream s(25);
  s.Set(100 * kMs, Command25());
  std::vector<JointTarget> out(25);
  s.Targets(110 * kMs, out);
  for (std::size_t j = 0; j < 25; ++j) {
    EXPECT_FLOAT_EQ(out[j].position_rad, 0.01f * static_cast<float>(j));
    EXPECT_FLOAT_EQ(out[j].velocity_rad_s, 0.5f);
    EXPECT_FLOAT_EQ(out[j].torque_nm, -0.25f);
    EXPECT_FLOAT_EQ(out[j].kp, 30.0f + static_cast<float>(j));
    EXPECT_FLOAT_EQ(out[j].kd, 1.0f);
  }
  EXPECT_EQ(s.applied_us(), 100 * kMs);
}

TEST(JointStreamTargets, ExtrapolateByVelocityWithinTheDurationNeverBackwards) {
  JointStreamCommand c = Command25();
  c.position_rad[kYaw] = 0.1f;
  c.velocity_rad_s[kYaw] = 2.0f;
  c.reference_us = 500 * kMs;
  c.extrapolation_us = 20 * kMs;
  JointStream s(25);
  s.Set(490 * kMs, c);
  std::vector<JointTarget> out(25);
  s.Targets(490 * kMs, out);  // before the reference time: not backwards
  EXPECT_FLOAT_EQ(out[kYaw].position_rad, 0.1f);
  s.Targets(510 * kMs, out);  // 10 ms ahead: + 2 rad/s · 0.010 s
  EXPECT_NEAR(out[kYaw].position_rad, 0.12f, 1e-6);
  EXPECT_FLOAT_EQ(out[kYaw].velocity_rad_s, 2.0f);
  s.Targets(600 * kMs, out);  // 100 ms ahead: clamped to the 20 ms duration
  EXPECT_NEAR(out[kYaw].position_rad, 0.14f, 1e-6);
}

TEST(JointStreamTargets, WithoutAReferenceTimeThereIsNoExtrapolation) {
  JointStreamCommand c = Command25();
  c.extrapolation_us = 50 * kMs;  // no reference_us
  JointStream s(25);
  s.Set(0, c);
  std::vector<JointTarget> out(25);
  s.Targets(40 * kMs, out);
  EXPECT_FLOAT_EQ(out[kYaw].position_rad, c.position_rad[kYaw]);
}

TEST(JointStreamTargets, AfterEndTimeHoldWhereTheCommandLeftTheJoint) {
  JointStreamCommand c = Command25();
  c.position_rad[kYaw] = 0.1f;
  c.velocity_rad_s[kYaw] = 1.0f;
  c.reference_us = 100 * kMs;
  c.extrapolation_us = 100 * kMs;
  c.end_us = 130 * kMs;
  JointStream s(25);
  s.Set(100 * kMs, c);
  std::vector<JointTarget> out(25);
  EXPECT_FALSE(s.Expired(130 * kMs));
  EXPECT_TRUE(s.Expired(131 * kMs));
  s.Targets(180 * kMs, out);
  EXPECT_NEAR(out[kYaw].position_rad, 0.13f, 1e-6);  // q_des at end_time, not later
  EXPECT_EQ(out[kYaw].velocity_rad_s, 0.0f);
  EXPECT_EQ(out[kYaw].torque_nm, 0.0f);
  EXPECT_FLOAT_EQ(out[kYaw].kp, c.kp[kYaw]);
  EXPECT_FLOAT_EQ(out[kYaw].kd, c.kd[kYaw]);
}

TEST(JointStreamTargets, ACommandWithoutGainsKeepsThePrevious) {
  JointStream s(25);
  s.Set(0, Command25());
  JointStreamCommand next = Command25();
  next.has_gains = false;
  next.kp.assign(25, 999.0f);  // not to be used
  next.position_rad[kYaw] = 0.3f;
  next.key = 77;
  s.Set(2 * kMs, next);
  std::vector<JointTarget> out(25);
  s.Targets(3 * kMs, out);
  EXPECT_FLOAT_EQ(out[kYaw].kp, 32.0f);
  EXPECT_FLOAT_EQ(out[kYaw].position_rad, 0.3f);
  EXPECT_EQ(s.key(), 77u);
}

TEST(JointStreamTargets, VelocityLimitNamesTheFirstJointOverIt) {
  JointStreamCommand c = Command25();
  c.velocity_limit_rad_s = 1.0f;
  JointStream s(25);
  s.Set(0, c);
  std::vector<JointMeasurement> joints(25);
  joints[7].velocity_rad_s = -1.0f;  // at the limit: fine
  EXPECT_EQ(s.OverVelocityLimit(joints), -1);
  joints[9].velocity_rad_s = -1.01f;
  EXPECT_EQ(s.OverVelocityLimit(joints), 9);
  c.velocity_limit_rad_s = 0;  // none
  s.Set(1, c);
  EXPECT_EQ(s.OverVelocityLimit(joints), -1);
}

// ---- Through the state machine.

TEST(JointStreamMode, TheFirstCommandFromDampEngagesItsGainsAtOnce) {
  Machine m;
  Command c = m.joint.Zero(10 * kMs);
  m.joint.command().position_rad[kYaw] = 0.2f;
  m.joint.command().torque_nm[kYaw] = 1.5f;
  m.joint.command().key = 41;
  ASSERT_TRUE(m.sm.Submit(10 * kMs, c).accepted);
  const Outputs& out = m.Step(10 * kMs);
  EXPECT_EQ(out.mode, Mode::kMoveJointStream);
  EXPECT_EQ(ToFirmwareMode(out.mode), 2u);
  EXPECT_FLOAT_EQ(out.targets[kYaw].position_rad, 0.2f);
  EXPECT_FLOAT_EQ(out.targets[kYaw].kp, 40.0f);
  EXPECT_FLOAT_EQ(out.targets[kYaw].kd, 1.5f);
  EXPECT_FLOAT_EQ(out.targets[kYaw].torque_nm, 1.5f);
  EXPECT_EQ(out.user_command_key, 41u);
  EXPECT_EQ(out.user_command_key_applied_us, 10 * kMs);
}

TEST(JointStreamMode, PositionsAndGainsAreClampedToTheJoint) {
  Machine m;
  Command c = m.joint.Zero(10 * kMs);
  m.joint.command().position_rad[kYaw] = 3.0f;  // beyond 0.8
  ASSERT_TRUE(m.sm.Submit(10 * kMs, c).accepted);
  EXPECT_FLOAT_EQ(m.Step(10 * kMs).targets[kYaw].position_rad, 0.8f);
}

TEST(JointStreamMode, AStreamMustBeginWithGains) {
  Machine m;
  Command c = m.joint.Zero(10 * kMs);
  m.joint.command().has_gains = false;
  const SubmitResult r = m.sm.Submit(10 * kMs, c);
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.reason, Reason::kJointStreamNoGains);
  EXPECT_EQ(m.Step(10 * kMs).mode, Mode::kDamp);
  m.BringTo(Mode::kStand, 20 * kMs);  // from STAND too
  c = m.joint.Zero(30 * kMs);
  m.joint.command().has_gains = false;
  EXPECT_EQ(m.sm.Submit(30 * kMs, c).reason, Reason::kJointStreamNoGains);
  // Within the stream, a command without gains keeps them.
  ASSERT_TRUE(m.sm.Submit(40 * kMs, m.joint.Zero(40 * kMs)).accepted);
  c = m.joint.Zero(42 * kMs);
  m.joint.command().has_gains = false;
  m.joint.command().kp.assign(25, 0.0f);
  EXPECT_TRUE(m.sm.Submit(42 * kMs, c).accepted);
  EXPECT_FLOAT_EQ(m.Step(42 * kMs).targets[kYaw].kp, 40.0f);
}

TEST(JointStreamMode, ACommandWhoseEndTimePassedIsRefused) {
  Machine m;
  Command c = m.joint.Make(std::vector<float>(25, 0.0f), 10 * kMs, /*lasts_us=*/5 * kMs);
  const SubmitResult r = m.sm.Submit(16 * kMs, c);  // applied 6 ms after it was made
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.reason, Reason::kJointStreamExpired);
  EXPECT_EQ(m.sm.counters()[Reason::kJointStreamExpired], 1u);
}

TEST(JointStreamMode, TheWatchdogDampsAfterTheTimeoutAndSaysWhichStream) {
  Machine m;
  m.BringTo(Mode::kMoveJointStream, 0);
  EXPECT_EQ(m.Step(199 * kMs).mode, Mode::kMoveJointStream);
  const Outputs& out = m.Step(200 * kMs);
  EXPECT_EQ(out.mode, Mode::kDamp);
  bool found = false;
  for (const Event& e : out.events) {
    if (e.kind == EventKind::kTrajectoryTimeout) {
      found = true;
      EXPECT_EQ(e.from, Mode::kMoveJointStream);
    }
  }
  EXPECT_TRUE(found);
}

TEST(JointStreamMode, EndTimeHoldsUntilTheWatchdogDamps) {
  Machine m;
  Command c = m.joint.Make(std::vector<float>(25, 0.0f), 0, /*lasts_us=*/20 * kMs);
  m.joint.command().torque_nm[kYaw] = 2.0f;
  ASSERT_TRUE(m.sm.Submit(0, c).accepted);
  EXPECT_FLOAT_EQ(m.Step(10 * kMs).targets[kYaw].torque_nm, 2.0f);
  const Outputs& held = m.Step(100 * kMs);
  EXPECT_EQ(held.mode, Mode::kMoveJointStream);
  EXPECT_EQ(held.targets[kYaw].torque_nm, 0.0f);
  EXPECT_FLOAT_EQ(held.targets[kYaw].kp, 40.0f);
  EXPECT_EQ(m.Step(200 * kMs).mode, Mode::kDamp);
}

TEST(JointStreamMode, OverTheVelocitySafetyLimitDampsAndTheStreamCannotResume) {
  Machine m;
  Command c = m.joint.Zero(0);
  m.joint.command().velocity_limit_rad_s = 2.0f;
  ASSERT_TRUE(m.sm.Submit(0, c).accepted);
  m.robot.joints[11].velocity_rad_s = 1.9f;
  EXPECT_EQ(m.Step(2 * kMs).mode, Mode::kMoveJointStream);
  m.robot.joints[11].velocity_rad_s = 2.5f;
  const Outputs& out = m.Step(4 * kMs);
  EXPECT_EQ(out.mode, Mode::kDamp);
  EXPECT_EQ(out.targets[kYaw].kp, 0.0f);  // DAMP's targets this very tick
  bool found = false;
  for (const Event& e : out.events) {
    if (e.kind != EventKind::kVelocityLimit) continue;
    found = true;
    EXPECT_EQ(e.joint, 11u);
    EXPECT_FLOAT_EQ(e.velocity_rad_s, 2.5f);
    EXPECT_FLOAT_EQ(e.limit_rad_s, 2.0f);
  }
  EXPECT_TRUE(found);
  m.robot.joints[11].velocity_rad_s = 0.0f;
  const SubmitResult again = m.sm.Submit(6 * kMs, m.joint.Zero(6 * kMs));
  EXPECT_FALSE(again.accepted);
  EXPECT_EQ(again.reason, Reason::kTrajectoryStreamDamped);
}

// Without a velocity_safety_limit only the joint's own max_velocity (20 rad/s) applies.
TEST(JointStreamMode, NoClientLimitLeavesOnlyTheJointsOwn) {
  Machine m;
  m.BringTo(Mode::kMoveJointStream, 0);
  m.robot.joints[11].velocity_rad_s = 19.5f;
  EXPECT_EQ(m.Step(2 * kMs).mode, Mode::kMoveJointStream);
}

}  // namespace
}  // namespace robot_edge::sm
