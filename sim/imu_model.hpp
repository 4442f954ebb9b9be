// The simulated IMU: an attitude set by fault injection (roll and pitch, no yaw) and the two CAN
// frames it sends. Pure logic: no clock, no socket.
//
// Attitude convention: body-to-world rotation R = Rz(yaw = 0) · Ry(pitch) · Rx(roll) (aerospace
// ZYX), as a unit quaternion w, x, y, z; upright (0, 0) is 1, 0, 0, 0. A tilt takes effect at once
// (a step, no motion), so the gyro reads 0 rad/s on every axis.
#pragma once

#include <linux/can.h>

#include <array>

namespace robot_edge::sim {

// Quaternion w, x, y, z of the attitude roll_deg about x, then pitch_deg about y.
std::array<float, 4> TiltQuaternion(double roll_deg, double pitch_deg);

// Angle between the body's up axis and the world's up axis (°), 0..180.
double TiltFromUprightDeg(double roll_deg, double pitch_deg);

class ImuModel {
 public:
  ImuModel(canid_t quat_id, canid_t gyro_id) : quat_id_(quat_id), gyro_id_(gyro_id) {}

  void SetTilt(double roll_deg, double pitch_deg);
  // imu on|off: whether the simulator sends frames at all.
  void SetEnabled(bool enabled) { enabled_ = enabled; }

  // The quaternion frame (8 bytes, quat_id) and the gyro frame (6 bytes, gyro_id).
  std::array<can_frame, 2> Frames() const;

  bool enabled() const { return enabled_; }
  double roll_deg() const { return roll_deg_; }
  double pitch_deg() const { return pitch_deg_; }
  double tilt_deg() const { return TiltFromUprightDeg(roll_deg_, pitch_deg_); }
  std::array<float, 3> gyro_rad_s() const { return {0.0f, 0.0f, 0.0f}; }

 private:
  canid_t quat_id_;
  canid_t gyro_id_;
  bool enabled_ = true;
  double roll_deg_ = 0;
  double pitch_deg_ = 0;
};

}  // namespace robot_edge::sim
