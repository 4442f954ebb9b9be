// Per-joint torque and velocity limits (joints[].max_torque, max_velocity, and
// safety.max_joint_velocity): they hold whatever the client asks for in a streamed MOVE.
#include <gtest/gtest.h>

#include <cmath>

#include "config/library_options.hpp"
#include "fixture.hpp"
#include "statemachine/state_machine.hpp"

namespace robot_edge::sm {
namespace {

using test::HasEvent;
using test::kMs;
using test::Machine;

constexpr std::size_t kShoulder = 12;  // L_Shoulder_Pitch

// The audit's probe: from DAMP, kp = kd = 0 and τ = −1000 N·m on one shoulder.
Command TorqueOnly(test::JointStreamMaker& maker, float torque_nm, std::int64_t t) {
  maker.Make(std::vector<float>(25, 0.0f), t, 1000 * kMs);
  std::fill(maker.command().kp.begin(), maker.command().kp.end(), 0.0f);
  std::fill(maker.command().kd.begin(), maker.command().kd.end(), 0.0f);
  maker.command().torque_nm[kShoulder] = torque_nm;
  return maker.Wrap(t);
}

TEST(JointLimits, FeedForwardTorqueIsBoundedByTheJointsMaxTorque) {
  config::Config c = test::UnlimitedConfig();
  c.joints[kShoulder].max_torque_nm = 5.0;
  test::Robot robot;
  StateMachine sm(config::MachineOptionsOf(c), config::BuildJointTable(c), nullptr);
  test::JointStreamMaker joint;
  sm.Step(0, robot.At(0));
  ASSERT_TRUE(sm.Submit(10 * kMs, TorqueOnly(joint, -1000.0f, 10 * kMs)).accepted);
  EXPECT_EQ(sm.Step(10 * kMs, robot.At(10 * kMs)).targets[kShoulder].torque_nm, -5.0f);
}

TEST(JointLimits, WithoutMaxTorqueTheMotorsTorqueRangeBoundsIt) {
  Machine m;
  ASSERT_TRUE(m.sm.Submit(10 * kMs, TorqueOnly(m.joint, -1000.0f, 10 * kMs)).accepted);
  EXPECT_EQ(m.Step(10 * kMs).targets[kShoulder].torque_nm, -18.0f) << "ak80_9's t_max";
}

TEST(JointLimits, MaxTorqueBoundsThePdTorquesReachInAJointStream) {
  config::Config c = test::UnlimitedConfig();
  c.joints[kShoulder].max_torque_nm = 8.0;
  test::Robot robot;
  StateMachine sm(config::MachineOptionsOf(c), config::BuildJointTable(c), nullptr);
  test::JointStreamMaker joint;
  sm.Step(0, robot.At(0));
  std::vector<float> pose(25, 0.0f);
  pose[kShoulder] = -2.0f;  // kp 40: 80 N·m asked of a joint limited to 8
  joint.Make(pose, 10 * kMs, 1000 * kMs);
  joint.command().torque_nm[kShoulder] = -2.0f;
  ASSERT_TRUE(sm.Submit(10 * kMs, joint.Wrap(10 * kMs)).accepted);
  robot.joints[kShoulder].position_rad = 0.5f;
  const JointTarget& t = sm.Step(10 * kMs, robot.At(10 * kMs)).targets[kShoulder];
  EXPECT_FLOAT_EQ(t.position_rad, 0.5f - (8.0f - 2.0f) / 40.0f) << "kp·reach + |τ_ff| = 8 N·m";
  EXPECT_EQ(t.torque_nm, -2.0f);
  EXPECT_EQ(sm.Step(12 * kMs, robot.At(12 * kMs)).targets[3].position_rad, 0.0f)
      << "a joint without max_torque: as sent";
}

TEST(JointLimits, AJointFasterThanItsMaxVelocityDampsAStreamedMove) {
  for (Mode mode : {Mode::kMoveTrajectory, Mode::kMoveJointStream}) {
    Machine m;
    m.BringTo(mode, 10 * kMs);
    m.robot.joints[kShoulder].velocity_rad_s = -19.9f;  // the default limit: 20 rad/s
    EXPECT_EQ(m.Step(12 * kMs).mode, mode);
    m.robot.joints[kShoulder].velocity_rad_s = -20.5f;
    const Outputs& out = m.Step(14 * kMs);
    EXPECT_EQ(out.mode, Mode::kDamp) << ToString(mode);
    ASSERT_TRUE(HasEvent(out, EventKind::kVelocityLimit));
    for (const Event& e : out.events) {
      if (e.kind != EventKind::kVelocityLimit) continue;
      EXPECT_EQ(e.joint, kShoulder);
      EXPECT_TRUE(e.joint_limit);
      EXPECT_FLOAT_EQ(e.limit_rad_s, 20.0f);
    }
  }
}

TEST(JointLimits, TheVelocityTripIsPerJointAndCanBeTurnedOff) {
  config::Config c = test::UnlimitedConfig();
  c.safety.max_joint_velocity = 0;             // off for every joint...
  c.joints[kShoulder].max_velocity_rad_s = 3;  // ...but this one
  test::Robot robot;
  StateMachine sm(config::MachineOptionsOf(c), config::BuildJointTable(c), nullptr);
  test::TrajectoryMaker traj;
  sm.Step(0, robot.At(0));
  sm.Submit(10 * kMs, traj.Zero(10 * kMs));
  robot.joints[3].velocity_rad_s = 40.0f;
  EXPECT_EQ(sm.Step(12 * kMs, robot.At(12 * kMs)).mode, Mode::kMoveTrajectory);
  robot.joints[kShoulder].velocity_rad_s = 3.5f;
  EXPECT_EQ(sm.Step(14 * kMs, robot.At(14 * kMs)).mode, Mode::kDamp);
}

TEST(JointLimits, StandAndPolicyAreNotTripped) {
  for (Mode mode : {Mode::kStand, Mode::kMovePolicy}) {
    Machine m;
    m.BringTo(mode, 10 * kMs);
    m.robot.joints[kShoulder].velocity_rad_s = 30.0f;
    EXPECT_EQ(m.Step(12 * kMs).mode, mode) << ToString(mode);
  }
}

}  // namespace
}  // namespace robot_edge::sm
