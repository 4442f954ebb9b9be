#include "statemachine/target_shaper.hpp"

#include <algorithm>
#include <cmath>

namespace robot_edge::sm {

// A tick longer than this (a stalled loop) is shaped as this: the target never leaps ahead.
constexpr float kMaxStepS = 0.02f;

TargetShaper::TargetShaper(const JointTable& joints) : state_(joints.size()) {
  for (const JointParams& j : joints) {
    limits_.push_back({j.target_v_max, j.target_a_max, j.target_low_pass});
    active_ = active_ || limits_.back().any();
  }
}

void TargetShaper::Reset(std::int64_t now_us, std::span<const JointTarget> from) {
  for (std::size_t j = 0; j < state_.size() && j < from.size(); ++j) {
    state_[j] = {from[j].position_rad, from[j].position_rad, 0.0f};
  }
  last_us_ = now_us;
}

float TargetShaper::LimitedVelocity(const Limits& l, const State& s, float error, float dt) {
  float v = error / dt;  // reach the target this tick
  if (l.v_max > 0) v = std::clamp(v, -l.v_max, l.v_max);
  if (l.a_max > 0) {
    // No faster than can still stop on the target — braking by a_max·dt a tick, it covers
    // v²/(2·a_max) + v·dt/2 — and no faster change than a_max allows.
    const float stop =
        l.a_max * (-0.5f * dt + std::sqrt(0.25f * dt * dt + 2.0f * std::fabs(error) / l.a_max));
    v = std::clamp(v, -stop, stop);
    v = std::clamp(v, s.velocity - l.a_max * dt, s.velocity + l.a_max * dt);
  }
  return v;
}

void TargetShaper::Apply(std::int64_t now_us, std::span<JointTarget> targets) {
  if (!active_) return;
  const float dt = std::clamp(static_cast<float>(now_us - last_us_) * 1e-6f, 0.0f, kMaxStepS);
  last_us_ = now_us;
  if (dt <= 0) {  // a second call in the same tick: hold the shaped targets
    for (std::size_t j = 0; j < targets.size() && j < state_.size(); ++j) {
      if (limits_[j].any()) targets[j].position_rad = state_[j].position;
    }
    return;
  }
  for (std::size_t j = 0; j < targets.size() && j < state_.size(); ++j) {
    const Limits& l = limits_[j];
    if (!l.any()) continue;
    State& s = state_[j];
    JointTarget& t = targets[j];
    s.filtered = (1.0f - l.low_pass) * s.filtered + l.low_pass * t.position_rad;
    s.velocity = LimitedVelocity(l, s, s.filtered - s.position, dt);
    s.position += s.velocity * dt;
    const bool held_back = std::fabs(s.filtered - s.position) > 1e-6f;
    t.position_rad = s.position;
    if (held_back) {
      t.velocity_rad_s = s.velocity;
    } else if (l.v_max > 0) {
      t.velocity_rad_s = std::clamp(t.velocity_rad_s, -l.v_max, l.v_max);
    }
  }
}

}  // namespace robot_edge::sm
