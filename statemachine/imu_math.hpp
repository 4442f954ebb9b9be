// Orientation helpers over the IMU quaternion (w, x, y, z; body -> world).
#pragma once

#include <array>

namespace robot_edge::sm {

// Unit gravity direction in the body frame: (0, 0, -1) when upright. A zero or non-finite
// quaternion gives upright.
std::array<float, 3> ProjectedGravity(const std::array<float, 4>& quat_wxyz);

// Angle between the body's up axis and the world's (degrees, 0..180).
float TiltDegrees(const std::array<float, 3>& projected_gravity);

// Z-Y-X Euler angles of the orientation (rad): {yaw, pitch, roll}, yaw and roll in −π..π, pitch
// in −π/2..π/2. A zero or non-finite quaternion gives {0, 0, 0}.
std::array<float, 3> YawPitchRoll(const std::array<float, 4>& quat_wxyz);

}  // namespace robot_edge::sm
