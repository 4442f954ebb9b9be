// One joint moved gently while every other joint stays in DAMP: robot-edgectl jog and
// check-direction during bring-up (edge_api.proto JogRequest). Pure, time passed in.
//
// The jogged joint's target ramps from where it was (the measured position when the jog begins,
// the last commanded position when it is renewed) towards the requested one, clamped to the
// joint's limits, at the requested speed, with a fifth of the joint's gains (kGainFraction): a
// finger can stop it. It lasts while it is renewed at least every `timeout_us` (the trajectory
// timeout); the state machine also ends it on any mode change and any critical alert.
#pragma once

#include <cstdint>

#include "statemachine/io.hpp"
#include "statemachine/joint_params.hpp"

namespace robot_edge::sm {

class Jog {
 public:
  static constexpr float kDefaultSpeedRadS = 0.2f;  // when the request gives 0
  static constexpr float kMaxSpeedRadS = 1.0f;
  static constexpr float kGainFraction = 0.2f;

  // Begins (or renews) a jog of `request.joint` at `now_us`; `measured_rad` is its position now.
  void Set(std::int64_t now_us, const JogRequest& request, float measured_rad,
           const JointParams& joint);
  void Stop() { active_ = false; }
  bool active() const { return active_; }
  std::uint32_t joint() const { return joint_; }

  // The jogged joint's target for the tick at `now_us`; false (and the jog ends) once it was not
  // renewed for `timeout_us`.
  bool Step(std::int64_t now_us, std::int64_t timeout_us, const JointParams& joint,
            JointTarget* out);

 private:
  bool active_ = false;
  std::uint32_t joint_ = 0;
  float target_rad_ = 0;
  float speed_rad_s_ = kDefaultSpeedRadS;
  float commanded_rad_ = 0;      // where the ramp is
  std::int64_t renewed_us_ = 0;  // last Set()
  std::int64_t stepped_us_ = 0;  // last Step()
};

}  // namespace robot_edge::sm
