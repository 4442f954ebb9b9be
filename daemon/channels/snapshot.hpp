// What the control thread publishes after every tick, for telemetry and diagnostics on the API
// thread (through a TripleBuffer). Fixed size after construction: publishing never allocates.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "config/config.hpp"
#include "daemon/channels/loop_timing.hpp"
#include "statemachine/admission.hpp"
#include "statemachine/counters.hpp"
#include "statemachine/io.hpp"

namespace robot_edge::daemon {

// Most alerts that can be active at once: four per joint, one per bus, fall, IMU, loop.
inline constexpr std::size_t kMaxAlerts = 4 * config::kMaxJoints + config::kMaxBuses + 3;

struct ControlSnapshot {
  explicit ControlSnapshot(std::size_t joint_count = 0) : joints(joint_count) {}

  std::int64_t tick_us = -1;  // steady clock (µs) of the tick; -1 before the first
  sm::Mode mode = sm::Mode::kDamp;
  int jogging_joint = -1;  // the joint a bring-up jog moves (in DAMP), or -1
  sm::Velocity velocity;
  std::uint32_t error_flags = 0;
  std::uint32_t last_command_sequence = 0;
  std::uint32_t user_command_key = 0;             // sm::Outputs
  std::int64_t user_command_key_applied_us = -1;  // sm::Outputs
  std::vector<sm::JointMeasurement> joints;       // firmware order
  sm::ImuMeasurement imu;
  sm::BatteryMeasurement battery;  // last_update_us -1: no reading (or no source)
  double battery_wh = 0;           // drawn since start (BatteryEnergy)
  std::array<sm::Alert, kMaxAlerts> alerts{};
  std::size_t alert_count = 0;
  sm::Counters counters;     // the state machine's drops and adjustments
  sm::StopLatch stop_latch;  // the stop latch (kept on disk by the API thread)
  // What decides whether the state machine takes a command: the API thread judges a command
  // that would take control with it (statemachine/admission.hpp).
  sm::AdmissionView admission;
  std::uint64_t events_dropped = 0;
  std::uint64_t ticks = 0;
  std::uint64_t overruns = 0;
  LoopWindow loop;  // last complete ~1 s window
};

}  // namespace robot_edge::daemon
