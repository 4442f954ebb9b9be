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
  p.min_rad = j.min_rad;
  p.max_rad = j.max_rad;
  p.inertia_kgm2 = j.sim_inertia_kgm2 > 0 ? j.sim_inertia_kgm2 : s.joint_inertia;
  p.friction_nms = j.sim_friction_nms > 0 ? j.sim_friction_nms : s.joint_friction;
  p.ambient_c = s.ambient_c;
  p.thermal_time_constant_s = s.thermal_time_constant_s;
  p.heating_c_per_nm2_s = s.heating_c_per_nm2_s;
  p.can_timeout_us = static_cast<std::int64_t>(m.can_timeout_ms) * 1000;
  return p;
}

SimMotor::SimMotor(const SimMotorParams& params, std::int64_t start_us)
    : params_(params), last_us_(start_us), temperature_c_(params.ambient_c) {
  position_rad_ =
      std::clamp(0.0, params_.min_rad - kHardStopMarginRad, params_.max_rad + kHardStopMarginRad);
}

bool SimMotor::IsActive(std::int64_t now_us) const {
  if (!motor_mode_ || !has_command_) return false;
  return params_.can_timeout_us == 0 || now_us - last_command_us_ <= params_.can_timeout_us;
}

void SimMotor::Advance(std::int64_t now_us) {
  while (last_us_ < now_us) {
    const std::int64_t step_us = std::min(kSubstepUs, now_us - last_us_);
    Step(last_us_, static_cast<double>(step_us) * 1e-6);
    last_us_ += step_us;
  }
}

double SimMotor::Target() const { return command_.position_rad + zero_offset_rad_; }

double SimMotor::ClampedTorque(double p, double v) const {
  const double torque = command_.kp * (Target() - p) + command_.kd * (command_.velocity_rad_s - v) +
                        command_.torque_nm;
  const double t_max = params_.ranges.t_max;
  return std::clamp(torque, -t_max, t_max);
}

// One backward-Euler substep starting at `start_us`. With a = kp·(p_des' − p) + kd·v_des + t_ff
// (p_des' the target in the true joint frame) and p_new = p + dt·v_new:
//   J·(v_new − v)/dt = a − kp·dt·v_new − kd·v_new − b·v_new
// which solves for v_new directly; if the torque that gives exceeds t_max, the clamped torque is
// applied as a constant with implicit friction instead.
void SimMotor::Step(std::int64_t start_us, double dt) {
  const double j = params_.inertia_kgm2;
  const double b = params_.friction_nms;
  const double p = position_rad_;
  const double v = velocity_rad_s_;
  double torque = 0;
  double v_new;
  if (IsActive(start_us)) {
    const double kp = command_.kp, kd = command_.kd;
    const double a = kp * (Target() - p) + kd * command_.velocity_rad_s + command_.torque_nm;
    v_new = (v + dt / j * a) / (1.0 + dt / j * (kp * dt + kd + b));
    torque = a - (kp * dt + kd) * v_new;
    const double t_max = params_.ranges.t_max;
    if (std::abs(torque) > t_max) {
      torque = std::copysign(t_max, torque);
      v_new = (v + dt / j * torque) / (1.0 + dt / j * b);
    }
  } else {
    v_new = v / (1.0 + dt / j * b);
  }
  double p_new = p + dt * v_new;
  const double lo = params_.min_rad - kHardStopMarginRad;
  const double hi = params_.max_rad + kHardStopMarginRad;
  if (p_new <= lo || p_new >= hi) {
    // Against a stop: held there, not moving into it; the motor sees that state.
    p_new = std::clamp(p_new, lo, hi);
    v_new = p_new == lo ? std::max(v_new, 0.0) : std::min(v_new, 0.0);
    if (IsActive(start_us)) torque = ClampedTorque(p_new, v_new);
  }
  position_rad_ = p_new;
  velocity_rad_s_ = v_new;
  torque_nm_ = torque;
  if (!pinned_) {
    // Exact over the substep for a constant torque: T relaxes towards its equilibrium.
    const double tau_s = params_.thermal_time_constant_s;
    const double equilibrium =
        params_.ambient_c + params_.heating_c_per_nm2_s * torque * torque * tau_s;
    temperature_c_ = equilibrium + (temperature_c_ - equilibrium) * std::exp(-dt / tau_s);
  }
}

std::optional<SimReply> SimMotor::OnFrame(std::span<const std::uint8_t> data, std::int64_t now_us) {
  if (silenced_) return std::nullopt;
  Advance(now_us);
  can::SpecialCommand special;
  if (can::DecodeSpecial(data, &special)) {
    switch (special) {
      case can::SpecialCommand::kEnterMotorMode:
        motor_mode_ = true;
        has_command_ = false;
        break;
      case can::SpecialCommand::kExitMotorMode:
        motor_mode_ = false;
        has_command_ = false;
        break;
      case can::SpecialCommand::kSetZero:
        zero_offset_rad_ = position_rad_;
        break;
    }
    return MakeReply();
  }
  if (!motor_mode_) return std::nullopt;
  can::MitCommand command;
  if (!can::DecodeCommand(data, params_.ranges, &command)) return std::nullopt;
  command_ = command;
  has_command_ = true;
  last_command_us_ = now_us;
  ++commands_;
  return MakeReply();
}

SimReply SimMotor::MakeReply() {
  can::MitReply reply;
  reply.motor_id = static_cast<std::uint8_t>(params_.can_id & 0xFF);
  reply.position_rad = static_cast<float>(position_rad_ - zero_offset_rad_);
  reply.velocity_rad_s = static_cast<float>(velocity_rad_s_);
  reply.torque_nm = static_cast<float>(torque_nm_);
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
  s.position_rad = position_rad_ - zero_offset_rad_;
  s.joint_position_rad = position_rad_;
  s.velocity_rad_s = velocity_rad_s_;
  s.torque_nm = torque_nm_;
  s.temperature_c = temperature_c_;
  s.motor_mode = motor_mode_;
  s.active = IsActive(last_us_);
  s.silenced = silenced_;
  s.temperature_pinned = pinned_;
  s.error_code = error_code_;
  s.commands = commands_;
  s.replies = replies_;
  return s;
}

}  // namespace robot_edge::sim
