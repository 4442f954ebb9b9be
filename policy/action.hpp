// The network's output -> one target per joint (pure; the inference thread's).
//
// For policy joint i (policy.joints[i], firmware joint j):
//   action_i = clip(raw_i, ±action_clip)            (not clipped when action_clip is 0;
//                                                    a non-finite raw value is reported, and
//                                                    counts as 0 in last_action)
//   target_j = {action_offset_i (default: default_pose_i) + action_scale_i × action_i clamped to
//               joint j's limits,
//               velocity 0, policy kp_i, policy kd_i, torque 0}
// Every other joint holds the stand pose with its default kp / kd.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "policy/setup.hpp"
#include "statemachine/io.hpp"

namespace robot_edge::policy {

// The pose the network's actions and joint_pos observations are relative to (rad):
// policy.default_pose for a policy joint (its stand pose when not given), the stand pose for
// any other joint. `joint` is a firmware index.
float DefaultPoseOf(const PolicySetup& setup, std::size_t joint);

// One value for every item or one per item (validated), as floats for `n` items; `fallback`
// when `values` is empty.
std::vector<float> PerItem(const std::vector<double>& values, std::size_t n,
                           const std::vector<float>& fallback = {});

class ActionMap {
 public:
  explicit ActionMap(const PolicySetup& setup);

  std::size_t size() const { return joints_.size(); }  // policy joints = network outputs

  struct Outcome {
    std::size_t nonfinite = 0;       // raw values that were NaN or infinite
    int first_nonfinite_joint = -1;  // the first one's joint (firmware index), -1 = none
  };

  // raw.size() == size(); action.size() == size() receives the clipped actions (the next
  // last_action); targets: one per configured joint. Outputs with a non-finite raw value must
  // not drive the robot (the runner reports a fault instead).
  Outcome Apply(std::span<const float> raw, std::span<float> action,
                std::span<sm::JointTarget> targets) const;

 private:
  struct Joint {
    std::size_t index;                                // firmware
    float zero_rad, scale, min_rad, max_rad, kp, kd;  // zero_rad: where an action of 0 puts it
  };
  std::vector<Joint> joints_;
  std::vector<sm::JointTarget> stand_;  // every joint: the stand pose, default gains
  float clip_;                          // 0 = off
};

}  // namespace robot_edge::policy
