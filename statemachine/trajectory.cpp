#include "statemachine/trajectory.hpp"

#include <algorithm>

namespace robot_edge::sm {

Trajectory::Trajectory(std::size_t joints, std::size_t max_segments)
    : joints_(joints),
      max_segments_(max_segments),
      positions_(joints * max_segments),
      kp_(joints * max_segments),
      kd_(joints * max_segments) {}

bool Trajectory::Append(std::span<const float> positions, std::span<const float> kp,
                        std::span<const float> kd) {
  if (segments_ == max_segments_) return false;
  const std::size_t at = segments_ * joints_;
  std::copy_n(positions.begin(), joints_, positions_.begin() + static_cast<std::ptrdiff_t>(at));
  std::copy_n(kp.begin(), joints_, kp_.begin() + static_cast<std::ptrdiff_t>(at));
  std::copy_n(kd.begin(), joints_, kd_.begin() + static_cast<std::ptrdiff_t>(at));
  ++segments_;
  return true;
}

void Trajectory::CopyFrom(const Trajectory& other) {
  segments_ = std::min(other.segments_, max_segments_);
  const auto n = static_cast<std::ptrdiff_t>(segments_ * joints_);
  std::copy_n(other.positions_.begin(), n, positions_.begin());
  std::copy_n(other.kp_.begin(), n, kp_.begin());
  std::copy_n(other.kd_.begin(), n, kd_.begin());
}

}  // namespace robot_edge::sm
