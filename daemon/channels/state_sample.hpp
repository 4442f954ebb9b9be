// One control tick as the flight recorder sees it: every joint's measurement and the command
// each motor was sent (joint space, firmware order), the IMU, the mode, the tick's timing.
//
// The control thread fills a queued slot in place (ControlChannels::states) after each tick's
// targets went out; the recorder thread reads it. Its vectors are sized once, at construction, so
// filling one never allocates.
#pragma once

#include <cstdint>
#include <vector>

#include "statemachine/io.hpp"

namespace robot_edge::daemon {

struct StateSample {
  explicit StateSample(std::size_t joint_count = 0) : joints(joint_count), commands(joint_count) {}

  std::int64_t tick_us = 0;  // steady clock (µs) at the tick's start
  std::uint64_t tick = 0;    // ticks since the loop started
  sm::Mode mode = sm::Mode::kDamp;
  std::uint32_t error_flags = 0;
  std::uint32_t last_command_sequence = 0;
  std::uint32_t user_command_key = 0;             // sm::Outputs
  std::int64_t user_command_key_applied_us = -1;  // sm::Outputs
  std::vector<sm::JointMeasurement> joints;
  std::vector<sm::JointTarget> commands;  // what each motor was sent this tick
  sm::ImuMeasurement imu;
  sm::BatteryMeasurement battery;    // last_update_us -1: no reading (or no source)
  double battery_wh = 0;             // drawn since start (BatteryEnergy)
  std::int64_t period_us = 0;        // since the previous tick's start
  std::int64_t wake_latency_us = 0;  // how late this tick started after its deadline
  std::int64_t work_us = 0;          // the previous tick's work (this one is not over yet)
};

}  // namespace robot_edge::daemon
