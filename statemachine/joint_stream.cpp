#include "statemachine/joint_stream.hpp"

#include <algorithm>
#include <cmath>

namespace robot_edge::sm {

void JointStreamCommand::CopyFrom(const JointStreamCommand& other) {
  std::copy(other.position_rad.begin(), other.position_rad.end(), position_rad.begin());
  std::copy(other.velocity_rad_s.begin(), other.velocity_rad_s.end(), velocity_rad_s.begin());
  std::copy(other.torque_nm.begin(), other.torque_nm.end(), torque_nm.begin());
  std::copy(other.kp.begin(), other.kp.end(), kp.begin());
  std::copy(other.kd.begin(), other.kd.end(), kd.begin());
  has_gains = other.has_gains;
  end_us = other.end_us;
  reference_us = other.reference_us;
  extrapolation_us = other.extrapolation_us;
  key = other.key;
  velocity_limit_rad_s = other.velocity_limit_rad_s;
}

void JointStream::Set(std::int64_t now_us, const JointStreamCommand& command) {
  if (command.has_gains) {
    command_.CopyFrom(command);
  } else {  // keep the gains of the stream
    std::copy(command.position_rad.begin(), command.position_rad.end(),
              command_.position_rad.begin());
    std::copy(command.velocity_rad_s.begin(), command.velocity_rad_s.end(),
              command_.velocity_rad_s.begin());
    std::copy(command.torque_nm.begin(), command.torque_nm.end(), command_.torque_nm.begin());
    command_.end_us = command.end_us;
    command_.reference_us = command.reference_us;
    command_.extrapolation_us = command.extrapolation_us;
    command_.key = command.key;
    command_.velocity_limit_rad_s = command.velocity_limit_rad_s;
  }
  applied_us_ = now_us;
}

float JointStream::Position(std::size_t j, std::int64_t t_us) const {
  const JointStreamCommand& c = command_;
  if (c.reference_us <= 0 || c.extrapolation_us <= 0) return c.position_rad[j];
  const std::int64_t ahead = std::clamp<std::int64_t>(t_us - c.reference_us, 0, c.extrapolation_us);
  return c.position_rad[j] +
         c.velocity_rad_s[j] * static_cast<float>(static_cast<double>(ahead) * 1e-6);
}

void JointStream::Targets(std::int64_t now_us, std::span<JointTarget> out) const {
  const JointStreamCommand& c = command_;
  const bool expired = Expired(now_us);
  const std::size_t n = std::min(out.size(), c.position_rad.size());
  for (std::size_t j = 0; j < n; ++j) {
    if (expired) {  // hold where the command left the joint
      out[j] = {Position(j, c.end_us), 0.0f, c.kp[j], c.kd[j], 0.0f};
    } else {
      out[j] = {Position(j, now_us), c.velocity_rad_s[j], c.kp[j], c.kd[j], c.torque_nm[j]};
    }
  }
}

int JointStream::OverVelocityLimit(std::span<const JointMeasurement> joints) const {
  if (command_.velocity_limit_rad_s <= 0) return -1;
  for (std::size_t j = 0; j < joints.size(); ++j) {
    if (std::fabs(joints[j].velocity_rad_s) > command_.velocity_limit_rad_s) {
      return static_cast<int>(j);
    }
  }
  return -1;
}

}  // namespace robot_edge::sm
