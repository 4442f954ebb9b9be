// The simulated IMU's CAN side: the frames it sends for a reading of the plant's IMU (ImuSample:
// quaternion, gyro, and the accelerometer when it has an id), and the switch that stops them
// (fault injection). Pure logic: no clock, no socket.
//
// Attitude convention: body-to-world rotation R = Rz(yaw) · Ry(pitch) · Rx(roll) (aerospace
// ZYX), as a unit quaternion w, x, y, z; upright is 1, 0, 0, 0.
#pragma once

#include <linux/can.h>

#include <array>
#include <cstddef>

#include "sim/plant.hpp"

namespace robot_edge::sim {

// Quaternion w, x, y, z of the attitude roll_deg about x, then pitch_deg about y.
std::array<float, 4> TiltQuaternion(double roll_deg, double pitch_deg);

// Angle between the body's up axis and the world's up axis (°), 0..180.
double TiltFromUprightDeg(double roll_deg, double pitch_deg);
double TiltFromUprightDeg(const std::array<double, 4>& quaternion_wxyz);

// The frames of one reading, in sending order: quaternion, gyro, then accelerometer (when sent).
struct ImuFrameSet {
  std::array<can_frame, 3> frames{};
  std::size_t count = 0;

  const can_frame& operator[](std::size_t i) const { return frames[i]; }
  std::size_t size() const { return count; }
  const can_frame* begin() const { return frames.data(); }
  const can_frame* end() const { return frames.data() + count; }
};

class ImuModel {
 public:
  // accel_id 0: the accelerometer frame is not sent (ImuConfig::accel_id).
  ImuModel(canid_t quat_id, canid_t gyro_id, canid_t accel_id = 0)
      : quat_id_(quat_id), gyro_id_(gyro_id), accel_id_(accel_id) {}

  // imu on|off: whether the simulator sends frames at all.
  void SetEnabled(bool enabled) { enabled_ = enabled; }

  // The quaternion frame (8 bytes, quat_id), the gyro frame (6 bytes, gyro_id) and, when
  // accel_id is not 0, the accelerometer frame (6 bytes, accel_id) of `sample`.
  ImuFrameSet Frames(const ImuSample& sample) const;

  bool enabled() const { return enabled_; }

 private:
  canid_t quat_id_;
  canid_t gyro_id_;
  canid_t accel_id_;  // 0 = none
  bool enabled_ = true;
};

}  // namespace robot_edge::sim
