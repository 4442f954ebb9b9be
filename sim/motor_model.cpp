#include "sim/motor_model.hpp"

#include <algorithm>
#include <cmath>

#include "can/motor_scheduler.hpp"

namespace robot_edge::sim {

SimMotorParams MotorParamsFor(const config::Config& config, std::size_t joint) {
  const config::JointConfig& j = config.joints[joint];
  const config::MotorModel& m = config.motor_of(joint);
  const config::SimConfig& s = config.sim;
  SimMotorParams p;
  p.can_id = j.can_id;
  p.ranges = can::RangesOf(m);
  p.layout = can::LayoutOf(m);
  p.ambient_c = s.ambient_c;
  p.thermal_time_constant_s = s.thermal_time_constant_s;
  p.heating_c_per_nm2_s = s.heating_c_per_nm2_s;
  p.can_timeout_us = static_cast<std::int64_t>(m.can_timeout_ms) * 1000;
  p.latency_us = static_cast<std::int64_t>(std::llround(s.command_latency_ms * 1000));
  p.torque_bandwidth_hz = s.torque_bandwidth_hz;
  return p;
}

SimMotor::SimMotor(const SimMotorParams& params)
    : params_(params), temperature_c_(params.ambient_c) {}

bool SimMotor::IsActive(std::int64_t now_us) const {
  if (!motor_mode_ || !has_command_) return false;
  return params_.can_timeout_us == 0 || now_us - last_command_us_ <= params_.can_timeout_us;
}

TorqueLaw SimMotor::LawAt(std::int64_t now_us) {
  std::size_t due = 0;
  while (due < pending_count_ && pending_[due].effective_us <= now_us) ++due;
  if (due > 0) {
    command_ = pending_[due - 1].command;
    has_command_ = true;
    std::copy(pending_.begin() + static_cast<std::ptrdiff_t>(due),
              pending_.begin() + static_cast<std::ptrdiff_t>(pending_count_), pending_.begin());
    pending_count_ -= due;
  }
  TorqueLaw law;
  law.active = IsActive(now_us);
  law.kp = command_.kp;
  law.kd = command_.kd;
  law.position_rad = command_.position_rad + zero_offset_rad_;
  law.velocity_rad_s = command_.velocity_rad_s;
  law.torque_nm = command_.torque_nm;
  law.torque_max_nm = params_.ranges.t_max;
  law.bandwidth_hz = params_.torque_bandwidth_hz;
  return law;
}

void SimMotor::OnStep(const ShaftState& shaft, std::int64_t start_us, double dt_s) {
  shaft_ = shaft;
  last_step_us_ = start_us;
  if (pinned_) return;
  // Exact over the step for a constant torque: T relaxes towards its equilibrium.
  const double tau_s = params_.thermal_time_constant_s;
  const double equilibrium =
      params_.ambient_c + params_.heating_c_per_nm2_s * shaft.torque_nm * shaft.torque_nm * tau_s;
  temperature_c_ = equilibrium + (temperature_c_ - equilibrium) * std::exp(-dt_s / tau_s);
}

std::optional<SimReply> SimMotor::OnFrame(std::span<const std::uint8_t> data, std::int64_t now_us) {
  if (silenced_) return std::nullopt;
  can::SpecialCommand special;
  if (can::DecodeSpecial(data, &special)) {
    switch (special) {
      case can::SpecialCommand::kEnterMotorMode:
      case can::SpecialCommand::kExitMotorMode:
        motor_mode_ = special == can::SpecialCommand::kEnterMotorMode;
        has_command_ = false;
        pending_count_ = 0;
        break;
      case can::SpecialCommand::kSetZero:
        zero_offset_rad_ = shaft_.position_rad;
        break;
    }
    return MakeReply();
  }
  if (!motor_mode_) return std::nullopt;
  can::MitCommand command;
  if (!can::DecodeCommand(data, params_.ranges, &command)) return std::nullopt;
  if (pending_count_ == kMaxPending) {  // more in flight than the actuator holds: oldest lost
    std::copy(pending_.begin() + 1, pending_.end(), pending_.begin());
    --pending_count_;
  }
  pending_[pending_count_++] = {command, now_us + params_.latency_us};
  last_command_us_ = now_us;
  ++commands_;
  return MakeReply();
}

SimReply SimMotor::MakeReply() {
  can::MitReply reply;
  reply.motor_id = static_cast<std::uint8_t>(params_.can_id & 0xFF);
  reply.position_rad = static_cast<float>(shaft_.position_rad - zero_offset_rad_);
  reply.velocity_rad_s = static_cast<float>(shaft_.velocity_rad_s);
  reply.torque_nm = static_cast<float>(shaft_.torque_nm);
  reply.temperature_c =
      static_cast<std::uint8_t>(std::clamp(std::round(temperature_c_), 0.0, 255.0));
  reply.error_code = error_code_;
  SimReply out;
  out.len = can::EncodeReply(reply, params_.ranges, params_.layout, &out.data);
  ++replies_;
  return out;
}

void SimMotor::PinTemperature(double celsius) {
  temperature_c_ = celsius;
  pinned_ = true;
}

void SimMotor::ReleaseTemperature() { pinned_ = false; }

SimMotorState SimMotor::state() const {
  SimMotorState s;
  s.position_rad = shaft_.position_rad - zero_offset_rad_;
  s.joint_position_rad = shaft_.position_rad;
  s.velocity_rad_s = shaft_.velocity_rad_s;
  s.torque_nm = shaft_.torque_nm;
  s.temperature_c = temperature_c_;
  s.motor_mode = motor_mode_;
  s.active = IsActive(last_step_us_);
  s.silenced = silenced_;
  s.temperature_pinned = pinned_;
  s.error_code = error_code_;
  s.commands = commands_;
  s.replies = replies_;
  return s;
}

}  // namespace robot_edge::sim
