#include "can/motor_scheduler.hpp"

#include <algorithm>
#include <stdexcept>

#include "can/imu_codec.hpp"
#include "can/socketcan_transport.hpp"

namespace robot_edge::can {

MitRanges RangesOf(const config::MotorModel& m) {
  return MitRanges{static_cast<float>(m.p_max_rad), static_cast<float>(m.v_max_rad_s),
                   static_cast<float>(m.t_max_nm), static_cast<float>(m.kp_max),
                   static_cast<float>(m.kd_max)};
}

ReplyLayout LayoutOf(const config::MotorModel& m) {
  return m.reply == config::ReplyFormat::kAk8Byte ? ReplyLayout::kAk8Byte
                                                   : ReplyLayout::kClassic6Byte;
}

std::vector<can_filter> ReceiveFilters(const config::Config& config) {
  std::vector<std::uint32_t> ids = {config.imu.quat_id, config.imu.gyro_id};
  for (const auto& bus : config.buses) ids.push_back(bus.master_id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<can_filter> filters;
  for (std::uint32_t id : ids) filters.push_back(ExactStandardId(id));
  return filters;
}

MotorScheduler::MotorScheduler(const config::Config& config, Transport& transport)
    : transport_(transport),
      bus_count_(config.buses.size()),
      joint_by_id_(config.buses.size()),
      missed_replies_(new std::atomic<std::uint64_t>[config.buses.size()]),
      imu_bus_(config.imu.bus),
      imu_quat_id_(config.imu.quat_id),
      imu_gyro_id_(config.imu.gyro_id),
      reply_timeout_us_(static_cast<std::int64_t>(config.control.motor_reply_timeout_ms) * 1000),
      missed_this_tick_(config.buses.size()),
      rx_(kReceiveBatch) {
  if (transport.bus_count() != config.buses.size()) {
    throw std::invalid_argument("MotorScheduler: the transport has " +
                                std::to_string(transport.bus_count()) + " buses, the config " +
                                std::to_string(config.buses.size()));
  }
  for (std::size_t b = 0; b < bus_count_; ++b) {
    missed_replies_[b].store(0);
    master_id_.push_back(config.buses[b].master_id);
    joint_by_id_[b].fill(0);
  }
  for (std::size_t j = 0; j < config.joints.size(); ++j) {
    const auto& joint = config.joints[j];
    const auto& motor = config.motors[joint.motor];
    motors_.push_back({j, joint.bus, joint.can_id, RangesOf(motor), LayoutOf(motor)});
    joint_by_id_[joint.bus][joint.can_id] = static_cast<std::uint16_t>(j + 1);
  }
  feedback_.resize(motors_.size());
  tx_.reserve(2 * motors_.size());  // a command and possibly an FC per motor
}

void MotorScheduler::Push(const Motor& motor, const Payload& payload) {
  BusFrame f;
  f.bus = static_cast<std::uint32_t>(motor.bus);
  f.frame.can_id = motor.can_id;
  f.frame.len = 8;
  std::copy(payload.begin(), payload.end(), f.frame.data);
  tx_.push_back(f);
}

void MotorScheduler::EnterMotorMode(std::int64_t now_us) {
  tx_.clear();
  for (Motor& motor : motors_) {
    Push(motor, EncodeSpecial(SpecialCommand::kEnterMotorMode));
    motor.last_motor_mode_request_us = now_us;
  }
  transport_.Send(tx_);
}

void MotorScheduler::Receive(std::int64_t now_us) {
  std::size_t n;
  do {
    n = transport_.Receive(rx_);
    for (std::size_t i = 0; i < n; ++i) HandleFrame(rx_[i].bus, rx_[i].frame, now_us);
  } while (n == rx_.size());
}

void MotorScheduler::HandleFrame(std::size_t bus, const can_frame& frame, std::int64_t now_us) {
  if (bus >= bus_count_ || (frame.can_id & (CAN_EFF_FLAG | CAN_RTR_FLAG)) != 0) return;
  const std::uint32_t id = frame.can_id & CAN_SFF_MASK;
  const std::span<const std::uint8_t> data(frame.data, std::min<std::size_t>(frame.len, 8));
  if (bus == imu_bus_ && id == imu_quat_id_) {
    if (DecodeImuQuaternion(data, &imu_.quat_wxyz)) imu_.last_quat_us = now_us;
    return;
  }
  if (bus == imu_bus_ && id == imu_gyro_id_) {
    if (DecodeImuGyro(data, &imu_.gyro_rad_s)) imu_.last_gyro_us = now_us;
    return;
  }
  if (id != master_id_[bus] || data.empty()) return;
  const std::uint16_t entry = joint_by_id_[bus][data[0] & 0x7FF];
  if (entry == 0) return;  // a motor id that is not configured on this bus
  Motor& motor = motors_[entry - 1];
  MitReply reply;
  if (!DecodeReply(data, motor.ranges, motor.layout, &reply)) return;
  MotorFeedback& fb = feedback_[motor.joint];
  fb.position_rad = reply.position_rad;
  fb.velocity_rad_s = reply.velocity_rad_s;
  fb.torque_nm = reply.torque_nm;
  fb.temperature_c = reply.temperature_c;
  fb.error_code = reply.error_code;
  fb.last_reply_us = now_us;
  ++fb.replies;
  fb.unanswered = 0;
  motor.awaiting_reply = false;
}

void MotorScheduler::Send(std::span<const MitCommand> targets, std::int64_t now_us) {
  tx_.clear();
  std::fill(missed_this_tick_.begin(), missed_this_tick_.end(), 0);
  for (Motor& motor : motors_) {
    const MotorFeedback& fb = feedback_[motor.joint];
    const bool silent = fb.last_reply_us < 0 || now_us - fb.last_reply_us > reply_timeout_us_;
    if (silent && now_us - motor.last_motor_mode_request_us >= kMotorModeRetryUs) {
      Push(motor, EncodeSpecial(SpecialCommand::kEnterMotorMode));
      motor.last_motor_mode_request_us = now_us;
    }
    if (motor.awaiting_reply) ++missed_this_tick_[motor.bus];
    Push(motor, EncodeCommand(targets[motor.joint], motor.ranges));
    motor.awaiting_reply = true;
    ++feedback_[motor.joint].unanswered;
  }
  transport_.Send(tx_);
  for (std::size_t b = 0; b < bus_count_; ++b) {
    if (missed_this_tick_[b] != 0) BusCounters::Add(missed_replies_[b], missed_this_tick_[b]);
  }
}

void MotorScheduler::SendNow(std::span<const MitCommand> targets) {
  tx_.clear();
  for (const Motor& motor : motors_) Push(motor, EncodeCommand(targets[motor.joint], motor.ranges));
  transport_.Send(tx_);
}

void MotorScheduler::SendDampThenExit(std::span<const MitCommand> damp_targets) {
  tx_.clear();
  for (const Motor& motor : motors_) Push(motor, EncodeCommand(damp_targets[motor.joint], motor.ranges));
  transport_.Send(tx_);
  tx_.clear();
  for (const Motor& motor : motors_) Push(motor, EncodeSpecial(SpecialCommand::kExitMotorMode));
  transport_.Send(tx_);
}

}  // namespace robot_edge::can
