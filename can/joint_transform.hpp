// Joint space <-> motor space, the one place where they meet:
//   q_joint = d · r · q_motor + offset,  q̇_joint = d · r · q̇_motor,  τ_joint = d · τ_motor / r,
// with d = direction (±1) and r = gear_ratio (joint turns per motor turn), so that power is
// the same on both sides. A PD law keeps its torque: kp_motor = kp_joint · r² (kd alike).
// Everything above the CAN frames is in joint space; only the frames are in motor space.
// Pure, allocation-free; the control thread calls it per motor per tick.
#pragma once

#include "can/mit_codec.hpp"

namespace robot_edge::can {

// How a joint's motor is mounted: q_joint = direction · gear_ratio · q_motor + offset (yaml:
// joints[i].offset, direction, gear_ratio).
struct JointTransform {
  float offset_rad = 0;  // joint position when the motor reads 0 (rad)
  float direction = 1;   // +1 or -1
  float gear_ratio = 1;  // joint turns per motor turn
};

// A measured state: position (rad), velocity (rad/s), torque (N·m).
struct ShaftReading {
  float position_rad = 0;
  float velocity_rad_s = 0;
  float torque_nm = 0;
};

// The daemon's direction: joint-space target -> the motor's command; motor reply -> joint.
MitCommand ToMotor(const JointTransform& t, const MitCommand& joint);
ShaftReading ToJoint(const JointTransform& t, const ShaftReading& motor);

// The simulator's direction: the motor's command -> joint-space law; joint state -> what the
// motor's encoder reads.
MitCommand ToJoint(const JointTransform& t, const MitCommand& motor);
ShaftReading ToMotor(const JointTransform& t, const ShaftReading& joint);

}  // namespace robot_edge::can
