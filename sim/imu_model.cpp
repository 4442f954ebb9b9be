#include "sim/imu_model.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "can/imu_codec.hpp"

namespace robot_edge::sim {
namespace {

constexpr double kRadPerDeg = std::numbers::pi / 180.0;

can_frame MakeFrame(canid_t id, const can::Payload& payload, std::uint8_t len) {
  can_frame frame{};
  frame.can_id = id;
  frame.len = len;
  std::copy(payload.begin(), payload.begin() + len, frame.data);
  return frame;
}

std::array<float, 3> ToFloat(const std::array<double, 3>& v) {
  return {static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2])};
}

}  // namespace

std::array<float, 4> TiltQuaternion(double roll_deg, double pitch_deg) {
  const double r = roll_deg * kRadPerDeg / 2, p = pitch_deg * kRadPerDeg / 2;
  const double cr = std::cos(r), sr = std::sin(r), cp = std::cos(p), sp = std::sin(p);
  // q = qy(pitch) · qx(roll), yaw = 0.
  return {static_cast<float>(cr * cp), static_cast<float>(sr * cp), static_cast<float>(cr * sp),
          static_cast<float>(-sr * sp)};
}

double TiltFromUprightDeg(double roll_deg, double pitch_deg) {
  // The body's z axis in the world is R·(0,0,1); its world-z component is cos(roll)·cos(pitch).
  const double c = std::cos(roll_deg * kRadPerDeg) * std::cos(pitch_deg * kRadPerDeg);
  return std::acos(std::clamp(c, -1.0, 1.0)) / kRadPerDeg;
}

double TiltFromUprightDeg(const std::array<double, 4>& q) {
  // World-z component of the body's z axis: R[2][2] = 1 − 2(x² + y²) for a unit quaternion.
  const double c = 1 - 2 * (q[1] * q[1] + q[2] * q[2]);
  return std::acos(std::clamp(c, -1.0, 1.0)) / kRadPerDeg;
}

ImuFrameSet ImuModel::Frames(const ImuSample& sample) const {
  const auto& q = sample.quaternion;
  const std::array<float, 4> quat{static_cast<float>(q[0]), static_cast<float>(q[1]),
                                  static_cast<float>(q[2]), static_cast<float>(q[3])};
  ImuFrameSet out;
  out.frames[out.count++] = MakeFrame(quat_id_, can::EncodeImuQuaternion(quat), 8);
  out.frames[out.count++] = MakeFrame(gyro_id_, can::EncodeImuGyro(ToFloat(sample.gyro_rad_s)), 6);
  if (accel_id_ != 0) {
    out.frames[out.count++] =
        MakeFrame(accel_id_, can::EncodeImuAccel(ToFloat(sample.accel_m_s2)), 6);
  }
  return out;
}

}  // namespace robot_edge::sim
