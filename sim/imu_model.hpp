// The simulated IMU's CAN side: the two frames it sends for a reading of the plant's IMU
// (ImuSample), and the switch that stops them (fault injection). Pure logic: no clock, no socket.
//
// Attitude convention: body-to-world rotation R = Rz(yaw) · Ry(pitch) · Rx(roll) (aerospace
// ZYX), as a unit quaternion w, x, y, z; upright is 1, 0, 0, 0.
#pragma once

#include <linux/can.h>

#include <array>

#include "sim/plant.hpp"

namespace robot_edge::sim {

// Quaternion w, x, y, z of the attitude roll_deg about x, then pitch_deg about y.
std::array<float, 4> TiltQuaternion(double roll_deg, double pitch_deg);

// Angle between the body's up axis and the world's up axis (°), 0..180.
double TiltFromUprightDeg(double roll_deg, double pitch_deg);
double TiltFromUprightDeg(const std::array<double, 4>& quaternion_wxyz);

class ImuModel {
 public:
  ImuModel(canid_t quat_id, canid_t gyro_id) : quat_id_(quat_id), gyro_id_(gyro_id) {}

  // imu on|off: whether the simulator sends frames at all.
  void SetEnabled(bool enabled) { enabled_ = enabled; }

  // The quaternion frame (8 bytes, quat_id) and the gyro frame (6 bytes, gyro_id) of `sample`.
  std::array<can_frame, 2> Frames(const ImuSample& sample) const;

  bool enabled() const { return enabled_; }

 private:
  canid_t quat_id_;
  canid_t gyro_id_;
  bool enabled_ = true;
};

}  // namespace robot_edge::sim
