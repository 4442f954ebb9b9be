// Orientation helpers over the IMU quaternion (w, x, y, z; body -> world).
#pragma once

#include <array>

namespace robot_edge::sm {

// Unit gravity direction in the body frame: (0, 0, -1) when upright. A zero or non-finite
// quaternion gives upright.
std::array<float, 3> ProjectedGravity(const std::array<float, 4>& quat_wxyz);

// Angle between the body's up axis and the world's (degrees, 0..180).
float TiltDegrees(const std::array<float, 3>& projected_gravity);

}  // namespace robot_edge::sm
