#include "can/imu_codec.hpp"

#include <algorithm>
#include <cmath>

namespace robot_edge::can {
namespace {

std::int16_t ToInt16(float scaled) {
  if (std::isnan(scaled)) return 0;
  return static_cast<std::int16_t>(std::lround(std::clamp(scaled, -32767.0f, 32767.0f)));
}

void PutLe16(std::int16_t v, std::uint8_t* out) {
  const auto u = static_cast<std::uint16_t>(v);
  out[0] = static_cast<std::uint8_t>(u & 0xFF);
  out[1] = static_cast<std::uint8_t>(u >> 8);
}

std::int16_t GetLe16(const std::uint8_t* in) {
  return static_cast<std::int16_t>(static_cast<std::uint16_t>(in[0] | (in[1] << 8)));
}

}  // namespace

Payload EncodeImuQuaternion(const std::array<float, 4>& wxyz) {
  Payload out{};
  for (int i = 0; i < 4; ++i) PutLe16(ToInt16(wxyz[i] * kQuatScale), &out[2 * i]);
  return out;
}

bool DecodeImuQuaternion(std::span<const std::uint8_t> d, std::array<float, 4>* wxyz) {
  if (d.size() < 8) return false;
  std::array<float, 4> q;
  for (int i = 0; i < 4; ++i) q[i] = GetLe16(&d[2 * i]) / kQuatScale;
  const float norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (std::fabs(norm - 1.0f) > kQuatNormTolerance) return false;
  *wxyz = q;
  return true;
}

Payload EncodeImuGyro(const std::array<float, 3>& xyz) {
  Payload out{};
  for (int i = 0; i < 3; ++i) PutLe16(ToInt16(xyz[i] * kGyroMradPerRad), &out[2 * i]);
  return out;
}

bool DecodeImuGyro(std::span<const std::uint8_t> d, std::array<float, 3>* xyz) {
  if (d.size() < 6) return false;
  for (int i = 0; i < 3; ++i) (*xyz)[i] = GetLe16(&d[2 * i]) / kGyroMradPerRad;
  return true;
}

Payload EncodeImuAccel(const std::array<float, 3>& xyz) {
  Payload out{};
  for (int i = 0; i < 3; ++i) PutLe16(ToInt16(xyz[i] * kAccelCountsPerMs2), &out[2 * i]);
  return out;
}

bool DecodeImuAccel(std::span<const std::uint8_t> d, std::array<float, 3>* xyz) {
  if (d.size() < 6) return false;
  for (int i = 0; i < 3; ++i) (*xyz)[i] = GetLe16(&d[2 * i]) / kAccelCountsPerMs2;
  return true;
}

}  // namespace robot_edge::can
