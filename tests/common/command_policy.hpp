// The locomotion policy the end-to-end tests and the fault matrix run: a 45 -> 12 linear layer
// on the command only, action_i = a_i·2vx + b_i·2vy + c_i·0.25vyaw + d_i (its other weights are
// 0), so that every target on the wire is known exactly. Optionally it turns infinite above
// vx 1 m/s: a policy gone bad, on demand.
#pragma once

#include <string>
#include <utility>

#include "config/config.hpp"

namespace robot_edge::test {

inline constexpr int kPolicyJoints = 12;  // joints 0..11, the legs, in firmware order
inline constexpr float kPolicyKp = 77.0f, kPolicyKd = 2.5f;

// A model file in a directory of its own, removed with it.
class CommandPolicy {
 public:
  // `infinite_above_vx1`: the actions are divided by 1 - relu(2·vx - 2).
  explicit CommandPolicy(bool infinite_above_vx1 = false);
  ~CommandPolicy();
  CommandPolicy(const CommandPolicy&) = delete;
  CommandPolicy& operator=(const CommandPolicy&) = delete;

  const std::string& path() const { return path_; }
  // PolicyConfigEdit() for this model.
  std::pair<std::string, std::string> ConfigEdit() const;

 private:
  std::string dir_, path_;
};

// The config edit (RobotOptions::config_edits) that adds a policy: section for `model` with
// `gains`, the observation this policy reads, and a 300 ms stall timeout (user-mode-linux can
// hold a thread that long).
std::pair<std::string, std::string> PolicyConfigEdit(
    const std::string& model, const std::string& gains = "kp: 77\n  kd: 2.5");

// Joint i's target for the command (vx, vy, vyaw): its stand pose + 0.25 × action, clamped.
float PolicyTarget(const config::Config& c, int i, float vx, float vy, float vyaw);

}  // namespace robot_edge::test
