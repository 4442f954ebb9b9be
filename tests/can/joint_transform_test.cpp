// Joint space <-> motor space: the one conversion, on a flipped, offset, geared joint.
#include "can/joint_transform.hpp"

#include <gtest/gtest.h>

namespace robot_edge::can {
namespace {

// Reversed, 0.3 rad offset, a 2:1 reduction after the motor (the joint turns half a motor turn).
constexpr JointTransform kFlippedGeared{0.3f, -1.0f, 0.5f};

TEST(JointTransform, IdentityChangesNothing) {
  const MitCommand joint{0.7f, -1.2f, 60.0f, 2.0f, 3.0f};
  const MitCommand motor = ToMotor(JointTransform{}, joint);
  EXPECT_FLOAT_EQ(motor.position_rad, 0.7f);
  EXPECT_FLOAT_EQ(motor.velocity_rad_s, -1.2f);
  EXPECT_FLOAT_EQ(motor.kp, 60.0f);
  EXPECT_FLOAT_EQ(motor.kd, 2.0f);
  EXPECT_FLOAT_EQ(motor.torque_nm, 3.0f);
}

TEST(JointTransform, AFlippedOffsetGearedCommandInMotorSpace) {
  // q_m = d (q_j - offset) / r = -(0.7 - 0.3) / 0.5 = -0.8; v_m = -(-1.2) / 0.5 = 2.4;
  // kp_m = 60 · 0.25 = 15; kd_m = 2 · 0.25 = 0.5; τ_m = d · r · τ_j = -1.5.
  const MitCommand motor = ToMotor(kFlippedGeared, {0.7f, -1.2f, 60.0f, 2.0f, 3.0f});
  EXPECT_FLOAT_EQ(motor.position_rad, -0.8f);
  EXPECT_FLOAT_EQ(motor.velocity_rad_s, 2.4f);
  EXPECT_FLOAT_EQ(motor.kp, 15.0f);
  EXPECT_FLOAT_EQ(motor.kd, 0.5f);
  EXPECT_FLOAT_EQ(motor.torque_nm, -1.5f);
}

TEST(JointTransform, AReplyInJointSpace) {
  // q_j = d r q_m + offset = -0.5 · (-0.8) + 0.3 = 0.7; v_j = -0.5 · 2.4 = -1.2; τ_j = -(-1.5)/0.5.
  const ShaftReading joint = ToJoint(kFlippedGeared, ShaftReading{-0.8f, 2.4f, -1.5f});
  EXPECT_FLOAT_EQ(joint.position_rad, 0.7f);
  EXPECT_FLOAT_EQ(joint.velocity_rad_s, -1.2f);
  EXPECT_FLOAT_EQ(joint.torque_nm, 3.0f);
}

TEST(JointTransform, CommandsRoundTrip) {
  const MitCommand joint{-0.4f, 0.9f, 120.0f, 3.5f, -7.0f};
  const MitCommand back = ToJoint(kFlippedGeared, ToMotor(kFlippedGeared, joint));
  EXPECT_NEAR(back.position_rad, joint.position_rad, 1e-6);
  EXPECT_NEAR(back.velocity_rad_s, joint.velocity_rad_s, 1e-6);
  EXPECT_NEAR(back.kp, joint.kp, 1e-4);
  EXPECT_NEAR(back.kd, joint.kd, 1e-6);
  EXPECT_NEAR(back.torque_nm, joint.torque_nm, 1e-6);
}

TEST(JointTransform, ReadingsRoundTrip) {
  const ShaftReading motor{2.5f, -10.0f, 4.0f};
  const ShaftReading back = ToMotor(kFlippedGeared, ToJoint(kFlippedGeared, motor));
  EXPECT_NEAR(back.position_rad, motor.position_rad, 1e-6);
  EXPECT_NEAR(back.velocity_rad_s, motor.velocity_rad_s, 1e-5);
  EXPECT_NEAR(back.torque_nm, motor.torque_nm, 1e-6);
}

TEST(JointTransform, ThePdLawsTorqueIsTheSameSeenFromEitherSide) {
  // The motor's PD torque, carried through the gear, is the torque the joint's law asks for.
  const MitCommand joint{0.5f, 0.2f, 80.0f, 2.0f, 1.0f};
  const ShaftReading q_joint{0.4f, -0.1f, 0.0f};
  const double tau_joint = joint.kp * (joint.position_rad - q_joint.position_rad) +
                           joint.kd * (joint.velocity_rad_s - q_joint.velocity_rad_s) +
                           joint.torque_nm;
  const MitCommand motor = ToMotor(kFlippedGeared, joint);
  const ShaftReading q_motor = ToMotor(kFlippedGeared, q_joint);
  const float tau_motor = motor.kp * (motor.position_rad - q_motor.position_rad) +
                          motor.kd * (motor.velocity_rad_s - q_motor.velocity_rad_s) +
                          motor.torque_nm;
  EXPECT_NEAR(ToJoint(kFlippedGeared, ShaftReading{0, 0, tau_motor}).torque_nm, tau_joint, 1e-4);
}

}  // namespace
}  // namespace robot_edge::can
