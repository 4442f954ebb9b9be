// Guards on the targets a client streams (config target_limits; the model: Agibot A2's arm
// interface, seed 003): per joint, a first-order low-pass y(k) = (1 − a)·y(k−1) + a·x(k), then the
// target moves towards it at most at the joint's max velocity, speeding up and slowing down at
// most at its max acceleration (it starts braking early enough to stop on the target). A joint
// without limits passes through unchanged. Pure, time passed in; no allocation after
// construction.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "statemachine/io.hpp"
#include "statemachine/joint_params.hpp"

namespace robot_edge::sm {

class TargetShaper {
 public:
  explicit TargetShaper(const JointTable& joints);

  // Starts over at `from`'s positions, at rest, at `now_us` (entering a streamed MOVE: from
  // DAMP the measured pose, from STAND the last targets).
  void Reset(std::int64_t now_us, std::span<const JointTarget> from);
  // Shapes one tick's targets in place. A limited joint's velocity target becomes the shaped
  // target's velocity while the limits hold it back, else the requested one (within the max).
  void Apply(std::int64_t now_us, std::span<JointTarget> targets);

  // Any joint has a limit.
  bool active() const { return active_; }

 private:
  struct Limits {
    float v_max = 0;     // rad/s; 0 = none
    float a_max = 0;     // rad/s²; 0 = none
    float low_pass = 1;  // a; 1 = none
    bool any() const { return v_max > 0 || a_max > 0 || low_pass < 1; }
  };
  struct State {
    float filtered = 0;  // the low-pass's output (rad)
    float position = 0;  // the shaped target (rad)
    float velocity = 0;  // its velocity (rad/s)
  };
  static float LimitedVelocity(const Limits& l, const State& s, float error, float dt);

  std::vector<Limits> limits_;
  std::vector<State> state_;
  std::int64_t last_us_ = -1;
  bool active_ = false;
};

}  // namespace robot_edge::sm
