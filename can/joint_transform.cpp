#include "can/joint_transform.hpp"

namespace robot_edge::can {

MitCommand ToMotor(const JointTransform& t, const MitCommand& joint) {
  const float r = t.gear_ratio, d = t.direction;
  return {.position_rad = d * (joint.position_rad - t.offset_rad) / r,
          .velocity_rad_s = d * joint.velocity_rad_s / r,
          .kp = joint.kp * r * r,
          .kd = joint.kd * r * r,
          .torque_nm = d * joint.torque_nm * r};
}

MitCommand ToJoint(const JointTransform& t, const MitCommand& motor) {
  const float r = t.gear_ratio, d = t.direction;
  return {.position_rad = d * r * motor.position_rad + t.offset_rad,
          .velocity_rad_s = d * r * motor.velocity_rad_s,
          .kp = motor.kp / (r * r),
          .kd = motor.kd / (r * r),
          .torque_nm = d * motor.torque_nm / r};
}

ShaftReading ToJoint(const JointTransform& t, const ShaftReading& motor) {
  const float r = t.gear_ratio, d = t.direction;
  return {d * r * motor.position_rad + t.offset_rad, d * r * motor.velocity_rad_s,
          d * motor.torque_nm / r};
}

ShaftReading ToMotor(const JointTransform& t, const ShaftReading& joint) {
  const float r = t.gear_ratio, d = t.direction;
  return {d * (joint.position_rad - t.offset_rad) / r, d * joint.velocity_rad_s / r,
          d * joint.torque_nm * r};
}

}  // namespace robot_edge::can
