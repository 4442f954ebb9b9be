// The daemon's side of the buses, for the tests, benchmarks and tools that drive a SimRobot in
// process as robot-edged drives it: motor mode (FC) for every motor at construction, then one MIT
// command frame per motor per period — STAND (the config's stand pose and gains, with per-joint
// target overrides) or DAMP (kp 0, the joint's damp_kd) — every reply counted.
//
// Time: starts at 0 and advances only in Run(), kPeriodUs per period.
// Threads: one owner. `config` must outlive the driver. Run() does not allocate after its first
// period.
#pragma once

#include <linux/can.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"
#include "sim/sim_robot.hpp"

namespace robot_edge::sim {

class BusDriver {
 public:
  static constexpr std::int64_t kPeriodUs = 2000;  // robot-edged's 500 Hz

  BusDriver(const config::Config& config, std::unique_ptr<Plant> plant);

  void Stand();  // the default
  void Damp();
  void SetTarget(std::size_t joint, float rad) { targets_[joint] = rad; }

  // Runs for `duration_us`, calling `each(now_us)` after every period.
  template <typename Fn>
  void Run(std::int64_t duration_us, Fn each) {
    for (const std::int64_t end = now_us_ + duration_us; now_us_ < end;) {
      now_us_ += kPeriodUs;
      SendCommands();
      each(now_us_);
    }
  }
  void Run(std::int64_t duration_us) {
    Run(duration_us, [](std::int64_t) {});
  }

  // One control-socket line (gantry, push, truth, record, temp, ...) executed now: its reply, or
  // "error: ..." when it does not parse.
  std::string Execute(std::string_view line);

  SimRobot& robot() { return robot_; }
  const SimRobot& robot() const { return robot_; }
  std::int64_t now_us() const { return now_us_; }
  std::uint64_t replies() const { return replies_; }

 private:
  void SendCommands();
  // One frame per joint of each bus (frame_of(j, &frame) false: none), handed to the robot.
  template <typename FrameOf>
  void Broadcast(FrameOf frame_of);

  const config::Config& config_;
  SimRobot robot_;
  std::vector<float> targets_, kp_, kd_;
  std::vector<std::vector<std::size_t>> by_bus_;  // bus -> joints
  std::vector<can_frame> frames_, replies_buffer_;
  std::int64_t now_us_ = 0;
  std::uint64_t replies_ = 0;
};

}  // namespace robot_edge::sim
