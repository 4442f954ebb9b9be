#include "config/joint_table.hpp"

#include <algorithm>

#include "config/gains.hpp"

namespace robot_edge::config {
namespace {
float F(double x) { return static_cast<float>(x); }
}  // namespace

JointTransform TransformOf(const JointConfig& joint) {
  return {F(joint.offset_rad), joint.direction < 0 ? -1.0f : 1.0f, F(joint.gear_ratio)};
}

JointTable BuildJointTable(const Config& config) {
  JointTable table;
  table.reserve(config.joints.size());
  for (const JointConfig& j : config.joints) {
    const MotorModel& m = config.motors[j.motor];
    const double r = j.gear_ratio;
    table.push_back(
        {.min_rad = F(j.min_rad),
         .max_rad = F(j.max_rad),
         .stand_rad = F(j.stand_rad),
         .kp = F(j.kp),
         .kd = F(j.kd),
         .damp_kd = F(j.damp_kd),
         .kp_cap = F(JointKpCap(m, r)),
         .kd_cap = F(JointKdCap(m, r)),
         .v_cap_rad_s = F(m.v_max_rad_s * r),
         .t_cap_nm = F(j.max_torque_nm > 0 ? j.max_torque_nm : m.t_max_nm / r),
         .reach_nm = F(j.max_torque_nm),
         .velocity_trip_rad_s = F(j.max_velocity_rad_s > 0 ? j.max_velocity_rad_s
                                                           : config.safety.max_joint_velocity)});
  }
  for (const TargetLimitConfig& t : config.target_limits) {
    for (std::size_t j : t.joints) {
      table[j].target_v_max = F(t.max_velocity);
      table[j].target_a_max = F(t.max_acceleration);
      table[j].target_low_pass = F(t.low_pass);
    }
  }
  return table;
}

}  // namespace robot_edge::config
