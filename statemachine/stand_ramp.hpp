// The STAND ramp: a quintic smoothstep from the pose measured on entry to the stand pose, with
// zero velocity and acceleration at both ends.
#pragma once

#include <algorithm>

namespace robot_edge::sm {

struct RampPoint {
  float fraction;    // 0 at the start, 1 at the end
  float rate_per_s;  // d(fraction)/dt (1/s)
};

// `elapsed_s` since the ramp started, over `duration_s` (> 0).
inline RampPoint StandRamp(double elapsed_s, double duration_s) {
  const double u = std::clamp(elapsed_s / duration_s, 0.0, 1.0);
  const double s = u * u * u * (10.0 - 15.0 * u + 6.0 * u * u);
  const double ds_du = 30.0 * u * u * (1.0 - u) * (1.0 - u);
  return {static_cast<float>(s), static_cast<float>(ds_du / duration_s)};
}

}  // namespace robot_edge::sm
