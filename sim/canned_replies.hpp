// The robot double's canned mode, for the benchmarks that must leave the robot's own cost out:
// every motor's reply (at its stand pose, still, 30 °C, no error; ak motors mounted as their
// joints only: the constructor throws otherwise) and the IMU's frames (upright, still: quaternion,
// gyro, and the accelerometer's with imu.accel_id), each encoded once. The simulated mode is
// SimRobot (InMemoryRobot for unit tests, robot-edge-sim on the buses).
// Pure; no allocation after construction.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "can/mit_codec.hpp"
#include "can/transport.hpp"
#include "config/config.hpp"

namespace robot_edge::sim {

class CannedReplies {
 public:
  explicit CannedReplies(const config::Config& config);

  // The reply of the motor with standard id `id` on `bus`, or nullptr when there is none.
  const can::BusFrame* ReplyTo(std::size_t bus, canid_t id) const;
  // Every motor's reply (firmware order), then the IMU's quaternion, gyro and (with
  // imu.accel_id) accelerometer frames.
  std::span<const can::BusFrame> all() const { return frames_; }
  std::span<const can::BusFrame> imu() const { return std::span(frames_).subspan(motors_.size()); }
  // Motor `joint` reports `celsius` from now on (to raise and clear alerts; a classic-layout
  // reply carries no temperature).
  void SetTemperature(std::size_t joint, std::uint8_t celsius);

 private:
  struct Motor {
    can::MitReply reply;
    can::MitRanges ranges;
    can::ReplyLayout layout;
  };
  void Encode(std::size_t joint);

  std::vector<Motor> motors_;
  std::vector<can::BusFrame> frames_;
  std::vector<std::array<std::int16_t, CAN_SFF_MASK + 1>> index_;  // bus -> id -> frame, -1 none
};

}  // namespace robot_edge::sim
