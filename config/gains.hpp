// The largest gains a joint may be given: its motor's range seen through its gear ratio, within
// the API's (kApiKpMax, kApiKdMax). One formula for the validator (a config's kp, kd, damp_kd)
// and the joint table (the state machine's clamp of what clients send).
#pragma once

#include <algorithm>

#include "config/config.hpp"

namespace robot_edge::config {

// N·m/rad at the joint: kp_max / r² (a motor-side stiffness k is k·r² at the joint).
inline double JointKpCap(const MotorModel& motor, double gear_ratio) {
  return std::min(kApiKpMax, motor.kp_max / (gear_ratio * gear_ratio));
}

// N·m·s/rad at the joint: kd_max / r².
inline double JointKdCap(const MotorModel& motor, double gear_ratio) {
  return std::min(kApiKdMax, motor.kd_max / (gear_ratio * gear_ratio));
}

}  // namespace robot_edge::config
