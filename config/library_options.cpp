#include "config/library_options.hpp"

namespace robot_edge::config {

can::Wiring WiringOf(const Config& config) {
  can::Wiring w{
      .motors = config.motors,
      .buses = config.buses,
      .joints = {},
      .imu = {config.imu.bus, config.imu.quat_id, config.imu.gyro_id, config.imu.accel_id},
      .bms = {config.battery.source == BatteryConfig::Source::kCan, config.battery.bus,
              config.battery.can_id},
      .motor_reply_timeout_ms = config.control.motor_reply_timeout_ms};
  w.joints.reserve(config.joints.size());
  for (const JointConfig& j : config.joints) {
    w.joints.push_back(
        {j.name, j.bus, j.can_id, j.motor, TransformOf(j), static_cast<float>(j.damp_kd)});
  }
  return w;
}

sm::MachineOptions MachineOptionsOf(const Config& config) {
  const SafetyConfig& s = config.safety;
  return {.period_us = config.period_us(),
          .trajectory_timeout_ms = config.control.trajectory_timeout_ms,
          .stand_ramp_s = config.control.stand_ramp_s,
          .max_segments = config.control.max_segments,
          .shape_trajectory = config.control.shape_trajectory,
          .latch_external_damp = s.latch_external_damp,
          .on_policy_fault = config.policy.on_fault,
          .alerts = {.overtemp_trip_c = s.overtemp_trip_c,
                     .overtemp_clear_c = s.overtemp_clear_c,
                     .fall_tilt_deg = s.fall_tilt_deg,
                     .fall_clear_deg = s.fall_clear_deg,
                     .fall_hold_ms = s.fall_hold_ms,
                     .joint_limit_margin_rad = s.joint_limit_margin_rad,
                     .min_loop_rate_hz = s.min_loop_rate_fraction * config.control.rate_hz,
                     .control_stall_ms = s.control_stall_ms,
                     .motor_reply_timeout_ms = config.control.motor_reply_timeout_ms,
                     .imu_timeout_ms = config.imu.timeout_ms,
                     .battery_low_percent = config.battery.low_percent,
                     .battery_clear_percent = config.battery.clear_percent,
                     .battery_timeout_ms = config.battery.timeout_ms,
                     .bus_count = config.buses.size()}};
}

policy::PolicySetup PolicySetupOf(const Config& config) {
  policy::PolicySetup setup;
  setup.policy = config.policy;
  setup.joints = BuildJointTable(config);
  for (const JointConfig& j : config.joints) setup.defaults.push_back({j.stand_rad, j.kp, j.kd});
  setup.where = [source = config.source, lines = config.lines](std::string_view key) {
    return WhereIn(source, lines, key);
  };
  return setup;
}

}  // namespace robot_edge::config
