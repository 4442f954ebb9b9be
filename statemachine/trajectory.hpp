// The segments of one trajectory, preallocated: after construction nothing allocates, so a
// trajectory can be handed to and stored by the control thread.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace robot_edge::sm {

class Trajectory {
 public:
  // Room for `max_segments` segments of `joints` positions, kp and kd each.
  Trajectory(std::size_t joints, std::size_t max_segments);

  void Clear() { segments_ = 0; }
  // Appends one segment (each span holds one value per joint). False when full.
  bool Append(std::span<const float> positions, std::span<const float> kp,
              std::span<const float> kd);
  // Copies `other` (same joint count, no more segments than this capacity). No allocation.
  void CopyFrom(const Trajectory& other);

  std::size_t segments() const { return segments_; }
  std::size_t joints() const { return joints_; }
  std::size_t capacity() const { return max_segments_; }
  std::span<const float> positions(std::size_t segment) const { return Row(positions_, segment); }
  std::span<const float> kp(std::size_t segment) const { return Row(kp_, segment); }
  std::span<const float> kd(std::size_t segment) const { return Row(kd_, segment); }

 private:
  std::span<const float> Row(const std::vector<float>& v, std::size_t segment) const {
    return std::span<const float>(v).subspan(segment * joints_, joints_);
  }

  std::size_t joints_;
  std::size_t max_segments_;
  std::size_t segments_ = 0;
  std::vector<float> positions_;  // [segment * joints + joint], rad
  std::vector<float> kp_;         // N·m/rad
  std::vector<float> kd_;         // N·m·s/rad
};

}  // namespace robot_edge::sm
