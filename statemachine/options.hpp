// What the state machine and its alerts are told at start-up. config/ fills every field from the
// YAML (config/library_options.hpp: MachineOptionsOf); the keys are named here. The defaults are
// the configuration's own (config/config.hpp, for a robot with the default 500 Hz loop and no
// bus), so that a state machine built without config/ (an embedding, a test, a bench) gets the
// safe ones: the stop latch on, the joint-limit margin 0.15 rad. A unit test proves them equal
// (LibraryOptions.TheStateMachinesDefaultsAreTheConfigurations).
#pragma once

#include <cstddef>
#include <cstdint>

namespace robot_edge::sm {

// What MOVE/POLICY does when the policy fails (non-finite output, stalled or failed inference).
// yaml: policy.on_fault
enum class PolicyFaultAction {
  kStand,  ///< stand: STAND, ramping from the measured pose
  kDamp,   ///< damp: DAMP
};

// When each alert trips and clears (alerts.hpp).
struct AlertOptions {
  double overtemp_trip_c = 80;           // safety.overtemp_trip_c: MOTOR_OVERTEMP at or above (°C)
  double overtemp_clear_c = 70;          // safety.overtemp_clear_c: clears below (°C)
  double fall_tilt_deg = 60;             // safety.fall_tilt_deg: a fall's tilt from upright (°)
  double fall_clear_deg = 30;            // safety.fall_clear_deg: FALL_DETECTED clears below (°)
  std::uint32_t fall_hold_ms = 100;      // safety.fall_hold_ms: the tilt lasts this long (ms)
  double joint_limit_margin_rad = 0.15;  // safety.joint_limit_margin_rad: JOINT_OUT_OF_RANGE
  double min_loop_rate_hz = 250;         // CONTROL_LOOP_SLOW below (Hz): control.rate_hz ×
                                         // safety.min_loop_rate_fraction; 0 = off
  std::uint32_t control_stall_ms = 50;   // safety.control_stall_ms: CONTROL_STALLED's threshold
  std::uint32_t motor_reply_timeout_ms = 50;  // control.motor_reply_timeout_ms: MOTOR_TIMEOUT
  std::uint32_t imu_timeout_ms = 100;         // imu.timeout_ms: IMU_TIMEOUT after this silence
  double battery_low_percent = 20;            // battery.low_percent: BATTERY_LOW at or below (%)
  double battery_clear_percent = 25;          // battery.clear_percent: clears at or above (%)
  std::uint32_t battery_timeout_ms = 3000;    // battery.timeout_ms: older readings are unknown
  std::size_t bus_count = 0;                  // buses: one CAN_BUS_OFF alert each

  bool operator==(const AlertOptions&) const = default;
};

struct MachineOptions {
  std::int64_t period_us = 2000;              // the control period (µs): 1e6 / control.rate_hz
  std::uint32_t trajectory_timeout_ms = 200;  // control.trajectory_timeout_ms: the stream watchdog
  double stand_ramp_s = 2;                    // control.stand_ramp_s: the STAND ramp's duration (s)
  std::uint32_t max_segments = 100;           // control.max_segments: segments per trajectory
  bool shape_trajectory = false;              // control.shape_trajectory: target_limits shape
                                              // MOVE/TRAJECTORY too
  bool latch_external_damp = true;            // safety.latch_external_damp: the stop latch
  PolicyFaultAction on_policy_fault = PolicyFaultAction::kStand;  // policy.on_fault
  AlertOptions alerts;

  bool operator==(const MachineOptions&) const = default;
};

}  // namespace robot_edge::sm
