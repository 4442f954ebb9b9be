// CAN frames of the IMU, as pure functions over bytes.
//   quaternion frame (ImuConfig::quat_id), 8 bytes: w, x, y, z as little-endian int16, value/32767
//   gyro frame (ImuConfig::gyro_id), 6 bytes: x, y, z as little-endian int16, mrad/s
//   accelerometer frame (ImuConfig::accel_id, optional), 6 bytes: x, y, z as little-endian
//     int16, 0.01 m/s² (specific force, body frame: +9.81 z upright at rest)
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "can/mit_codec.hpp"

namespace robot_edge::can {

inline constexpr float kQuatScale = 32767.0f;
inline constexpr float kGyroMradPerRad = 1000.0f;
inline constexpr float kQuatNormTolerance = 0.05f;
inline constexpr float kAccelCountsPerMs2 = 100.0f;  // 0.01 m/s² per count

// Components clamped to ±1 and rounded.
Payload EncodeImuQuaternion(const std::array<float, 4>& wxyz);
// False (and *wxyz untouched) if `data` is shorter than 8 bytes or is not a unit quaternion
// (norm outside 1 ± kQuatNormTolerance: an IMU not yet initialised, or a corrupt frame — all
// zeros would otherwise read as upright and hide a fall).
bool DecodeImuQuaternion(std::span<const std::uint8_t> data, std::array<float, 4>* wxyz);

// Components clamped to ±32.767 rad/s and rounded to 1 mrad/s. Returns 6 payload bytes.
Payload EncodeImuGyro(const std::array<float, 3>& xyz_rad_s);
bool DecodeImuGyro(std::span<const std::uint8_t> data, std::array<float, 3>* xyz_rad_s);

// Components clamped to ±327.67 m/s² (~33 g: a fall's impact must not clip at 2-4 g) and rounded
// to 0.01 m/s². Returns 6 payload bytes.
Payload EncodeImuAccel(const std::array<float, 3>& xyz_m_s2);
// False (and *xyz_m_s2 untouched) if `data` is shorter than 6 bytes.
bool DecodeImuAccel(std::span<const std::uint8_t> data, std::array<float, 3>* xyz_m_s2);

}  // namespace robot_edge::can
