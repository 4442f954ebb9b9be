// Joint space <-> motor space, the one place where they meet (config/joint_table.hpp):
//   q_joint = d · r · q_motor + offset,  q̇_joint = d · r · q̇_motor,  τ_joint = d · τ_motor / r,
// with d = direction (±1) and r = gear_ratio (joint turns per motor turn), so that power is
// the same on both sides. A PD law keeps its torque: kp_motor = kp_joint · r² (kd alike).
// Everything above the CAN frames is in joint space; only the frames are in motor space.
// Pure, allocation-free; the control thread calls it per motor per tick.
#pragma once

#include "can/mit_codec.hpp"
#include "config/joint_table.hpp"

namespace robot_edge::can {

// A measured state: position (rad), velocity (rad/s), torque (N·m).
struct ShaftReading {
  float position_rad = 0;
  float velocity_rad_s = 0;
  float torque_nm = 0;
};

// The daemon's direction: joint-space target -> the motor's command; motor reply -> joint.
MitCommand ToMotor(const config::JointTransform& t, const MitCommand& joint);
ShaftReading ToJoint(const config::JointTransform& t, const ShaftReading& motor);

// The simulator's direction: the motor's command -> joint-space law; joint state -> what the
// motor's encoder reads.
MitCommand ToJoint(const config::JointTransform& t, const MitCommand& motor);
ShaftReading ToMotor(const config::JointTransform& t, const ShaftReading& joint);

}  // namespace robot_edge::can
