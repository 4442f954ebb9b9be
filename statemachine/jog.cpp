#include "statemachine/jog.hpp"

#include <algorithm>
#include <cmath>

namespace robot_edge::sm {

void Jog::Set(std::int64_t now_us, const JogRequest& request, float measured_rad,
              const JointParams& joint) {
  if (!active_ || joint_ != request.joint) {
    commanded_rad_ = std::clamp(measured_rad, joint.min_rad, joint.max_rad);
    stepped_us_ = now_us;
  }
  active_ = true;
  joint_ = request.joint;
  target_rad_ = std::clamp(request.target_rad, joint.min_rad, joint.max_rad);
  const float speed = std::fabs(request.speed_rad_s);
  speed_rad_s_ = !(speed > 0.0f) ? kDefaultSpeedRadS : std::min(speed, kMaxSpeedRadS);
  renewed_us_ = now_us;
}

bool Jog::Step(std::int64_t now_us, std::int64_t timeout_us, const JointParams& joint,
               JointTarget* out) {
  if (!active_) return false;
  if (now_us - renewed_us_ > timeout_us) {
    active_ = false;
    return false;
  }
  const float dt_s = static_cast<float>(std::max<std::int64_t>(now_us - stepped_us_, 0)) * 1e-6f;
  stepped_us_ = now_us;
  const float step = speed_rad_s_ * dt_s;
  const float error = target_rad_ - commanded_rad_;
  float velocity = 0.0f;
  if (std::fabs(error) <= step) {
    commanded_rad_ = target_rad_;
  } else {
    commanded_rad_ += std::copysign(step, error);
    velocity = std::copysign(speed_rad_s_, error);
  }
  *out = {commanded_rad_, velocity, kGainFraction * joint.kp, joint.kd, 0.0f};
  return true;
}

}  // namespace robot_edge::sm
