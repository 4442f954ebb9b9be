#include "statemachine/imu_math.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace robot_edge::sm {

std::array<float, 3> ProjectedGravity(const std::array<float, 4>& q) {
  const float norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!std::isfinite(norm) || norm < 1e-6f) return {0, 0, -1};
  const float w = q[0] / norm, x = q[1] / norm, y = q[2] / norm, z = q[3] / norm;
  // R^T * (0, 0, -1): minus the third row of the rotation matrix.
  return {-2.0f * (x * z - w * y), -2.0f * (y * z + w * x), -(1.0f - 2.0f * (x * x + y * y))};
}

std::array<float, 3> YawPitchRoll(const std::array<float, 4>& q) {
  const float norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!std::isfinite(norm) || norm < 1e-6f) return {0, 0, 0};
  const float w = q[0] / norm, x = q[1] / norm, y = q[2] / norm, z = q[3] / norm;
  const float yaw = std::atan2(2.0f * (w * z + x * y), 1.0f - 2.0f * (y * y + z * z));
  const float pitch = std::asin(std::clamp(2.0f * (w * y - z * x), -1.0f, 1.0f));
  const float roll = std::atan2(2.0f * (w * x + y * z), 1.0f - 2.0f * (x * x + y * y));
  return {yaw, pitch, roll};
}

float TiltDegrees(const std::array<float, 3>& g) {
  const float cos_tilt = std::clamp(-g[2], -1.0f, 1.0f);
  return std::acos(cos_tilt) * 180.0f / std::numbers::pi_v<float>;
}

}  // namespace robot_edge::sm
