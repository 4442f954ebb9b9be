#include "sim/motor_model.hpp"

#include <algorithm>
#include <cmath>

#include "can/joint_transform.hpp"

namespace robot_edge::sim {

SimMotorParams MotorParamsFor(const config::Config& config, std::size_t joint) {
  const config::JointConfig& j = config.joints[joint];
  const config::MotorModel* model = &config.motor_of(joint);
  for (const config::SimFittedMotor& f : config.sim.fitted) {
    if (f.joint == j.name) model = &config.motors.at(f.motor);  // not the one the config names
  }
  SimMotorParams p = MotorParamsFor(config, j.bus, *model, j.can_id);
  p.mounting = config::TransformOf(j);
  return p;
}

SimMotorParams MotorParamsFor(const config::Config& config, std::size_t bus,
                              const config::MotorModel& m, std::uint32_t can_id) {
  const config::SimConfig& s = config.sim;
  SimMotorParams p;
  p.can_id = can_id;
  p.master_id = config.buses[bus].master_id;
  p.protocol = can::ProtocolOf(m);
  p.ambient_c = s.ambient_c;
  p.thermal_time_constant_s = s.thermal_time_constant_s;
  p.heating_c_per_nm2_s = s.heating_c_per_nm2_s;
  // Damiao and Robstride firmware ship with the timeout off; robot-edged writes it at start.
  p.can_timeout_us =
      can::HasCanTimeoutSetting(m.family) ? 0 : static_cast<std::int64_t>(m.can_timeout_ms) * 1000;
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
  // The motor's law, in motor space, seen from the joint.
  can::MitCommand motor = command_;
  motor.position_rad = static_cast<float>(command_.position_rad + zero_offset_rad_);
  const can::MitCommand joint = can::ToJoint(params_.mounting, motor);
  TorqueLaw law;
  law.active = IsActive(now_us);
  law.kp = joint.kp;
  law.kd = joint.kd;
  law.position_rad = joint.position_rad;
  law.velocity_rad_s = joint.velocity_rad_s;
  law.torque_nm = joint.torque_nm;
  law.torque_max_nm = params_.protocol.ranges.t_max / params_.mounting.gear_ratio;
  law.bandwidth_hz = params_.torque_bandwidth_hz;
  return law;
}

void SimMotor::OnStep(const ShaftState& shaft, std::int64_t start_us, double dt_s) {
  shaft_ = shaft;
  last_step_us_ = start_us;
  if (pinned_) return;
  // Exact over the step for a constant torque: T relaxes towards its equilibrium. The motor's
  // own torque heats it.
  const double tau_s = params_.thermal_time_constant_s;
  const double motor_nm = shaft.torque_nm * params_.mounting.gear_ratio;
  const double equilibrium =
      params_.ambient_c + params_.heating_c_per_nm2_s * motor_nm * motor_nm * tau_s;
  temperature_c_ = equilibrium + (temperature_c_ - equilibrium) * std::exp(-dt_s / tau_s);
}

std::optional<SimReply> SimMotor::OnFrame(const can_frame& frame, std::int64_t now_us) {
  if (silenced_) return std::nullopt;
  if (can::CanTimeoutRequest request;
      can::DecodeCanTimeoutRequest(params_.protocol, params_.can_id, frame, &request)) {
    return OnCanTimeoutRequest(request);
  }
  can::HostFrame host;
  if (!can::DecodeHostFrame(params_.protocol, frame, &host)) return std::nullopt;
  if (!host.is_command) {
    switch (host.request) {
      case can::MotorRequest::kEnable:
      case can::MotorRequest::kDisable:
        motor_mode_ = host.request == can::MotorRequest::kEnable;
        has_command_ = false;
        pending_count_ = 0;
        break;
      case can::MotorRequest::kSetZero: zero_offset_rad_ = MotorShaft().position_rad; break;
      case can::MotorRequest::kClearFault: error_code_ = 0; break;
    }
    return MakeReply();
  }
  if (!motor_mode_) return std::nullopt;
  if (pending_count_ == kMaxPending) {  // more in flight than the actuator holds: oldest lost
    std::copy(pending_.begin() + 1, pending_.end(), pending_.begin());
    --pending_count_;
  }
  pending_[pending_count_++] = {host.command, now_us + params_.latency_us};
  last_command_us_ = now_us;
  ++commands_;
  return MakeReply();
}

std::optional<SimReply> SimMotor::OnCanTimeoutRequest(const can::CanTimeoutRequest& request) {
  if (request.write) params_.can_timeout_us = std::int64_t{request.timeout_ms} * 1000;
  can_frame f{};
  if (!can::EncodeCanTimeoutReply(params_.protocol, params_.can_id, params_.master_id,
                                  request.write,
                                  static_cast<std::uint32_t>(params_.can_timeout_us / 1000), &f)) {
    return MakeReply();
  }
  return Answer(f);
}

SimReply SimMotor::Answer(const can_frame& f) {
  SimReply out;
  out.can_id = f.can_id;
  out.len = f.len;
  std::copy(f.data, f.data + f.len, out.data.begin());
  ++replies_;
  return out;
}

can::ShaftReading SimMotor::MotorShaft() const {
  return can::ToMotor(params_.mounting, can::ShaftReading{static_cast<float>(shaft_.position_rad),
                                                          static_cast<float>(shaft_.velocity_rad_s),
                                                          static_cast<float>(shaft_.torque_nm)});
}

SimReply SimMotor::MakeReply() {
  const can::ShaftReading motor = MotorShaft();
  can::MotorReply reply;
  reply.motor_id = params_.can_id;
  reply.position_rad = static_cast<float>(motor.position_rad - zero_offset_rad_);
  reply.velocity_rad_s = motor.velocity_rad_s;
  reply.torque_nm = motor.torque_nm;
  reply.temperature_c = static_cast<float>(std::round(temperature_c_));
  reply.error = static_cast<can::MotorError>(error_code_);
  reply.enabled = motor_mode_;
  return Answer(can::EncodeReplyFrame(params_.protocol, params_.master_id, reply));
}

void SimMotor::PinTemperature(double celsius) {
  temperature_c_ = celsius;
  pinned_ = true;
}

void SimMotor::ReleaseTemperature() { pinned_ = false; }

SimMotorState SimMotor::state() const {
  SimMotorState s;
  s.position_rad = MotorShaft().position_rad - zero_offset_rad_;
  s.joint_position_rad = shaft_.position_rad;
  s.velocity_rad_s = shaft_.velocity_rad_s;
  s.torque_nm = shaft_.torque_nm;
  s.temperature_c = temperature_c_;
  s.motor_mode = motor_mode_;
  s.active = IsActive(last_step_us_);
  if (has_command_) {
    s.kp = command_.kp;
    s.kd = command_.kd;
  }
  s.silenced = silenced_;
  s.temperature_pinned = pinned_;
  s.error_code = error_code_;
  s.commands = commands_;
  s.replies = replies_;
  s.can_timeout_us = params_.can_timeout_us;
  return s;
}

}  // namespace robot_edge::sim
