#include "policy/action.hpp"

#include <algorithm>
#include <cmath>

namespace robot_edge::policy {

float DefaultPoseOf(const PolicySetup& setup, std::size_t joint) {
  const PolicyConfig& p = setup.policy;
  for (std::size_t i = 0; i < p.joints.size(); ++i) {
    if (p.joints[i] == joint && i < p.default_pose_rad.size()) {
      return static_cast<float>(p.default_pose_rad[i]);
    }
  }
  return static_cast<float>(setup.defaults[joint].stand_rad);
}

std::vector<float> PerItem(const std::vector<double>& values, std::size_t n,
                           const std::vector<float>& fallback) {
  if (values.empty()) return fallback;
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = static_cast<float>(values.size() == 1 ? values[0] : values[i]);
  }
  return out;
}

ActionMap::ActionMap(const PolicySetup& setup)
    : clip_(static_cast<float>(setup.policy.action_clip)) {
  const PolicyConfig& p = setup.policy;
  const sm::JointTable& joints = setup.joints;
  const std::size_t n = p.joints.size();
  std::vector<float> default_kp, default_kd;
  for (std::size_t j : p.joints) {
    default_kp.push_back(joints[j].kp);
    default_kd.push_back(joints[j].kd);
  }
  const auto scale = PerItem(p.action_scale, n);
  const auto offset = PerItem(p.action_offset, n);  // empty: the default pose
  const auto kp = PerItem(p.kp, n, default_kp);
  const auto kd = PerItem(p.kd, n, default_kd);
  for (std::size_t i = 0; i < n; ++i) {
    const sm::JointParams& j = joints[p.joints[i]];
    const float zero = offset.empty() ? DefaultPoseOf(setup, p.joints[i]) : offset[i];
    joints_.push_back({p.joints[i], zero, scale[i], j.min_rad, j.max_rad, kp[i], kd[i]});
  }
  for (const sm::JointParams& j : joints) stand_.push_back({j.stand_rad, 0.0f, j.kp, j.kd, 0.0f});
}

ActionMap::Outcome ActionMap::Apply(std::span<const float> raw, std::span<float> action,
                                    std::span<sm::JointTarget> targets) const {
  std::copy_n(stand_.begin(), std::min(stand_.size(), targets.size()), targets.begin());
  Outcome outcome;
  for (std::size_t i = 0; i < joints_.size(); ++i) {
    float a = raw[i];
    if (!std::isfinite(a)) {
      a = 0.0f;
      if (outcome.nonfinite++ == 0)
        outcome.first_nonfinite_joint = static_cast<int>(joints_[i].index);
    }
    if (clip_ > 0.0f) a = std::clamp(a, -clip_, clip_);
    action[i] = a;
    const Joint& j = joints_[i];
    if (j.index < targets.size()) {
      targets[j.index] = {std::clamp(j.zero_rad + j.scale * a, j.min_rad, j.max_rad), 0.0f, j.kp,
                          j.kd, 0.0f};
    }
  }
  return outcome;
}

}  // namespace robot_edge::policy
