#include "can/motor_scheduler.hpp"

#include <stdexcept>

#include "can/imu_codec.hpp"
#include "can/socketcan_bus.hpp"

namespace robot_edge::can {
namespace {

can_frame MakeFrame(std::uint32_t id, const Payload& payload, std::uint8_t len = 8) {
  can_frame frame{};
  frame.can_id = id;
  frame.len = len;
  std::copy(payload.begin(), payload.begin() + len, frame.data);
  return frame;
}

}  // namespace

MitRanges RangesOf(const config::MotorModel& m) {
  return MitRanges{static_cast<float>(m.p_max_rad), static_cast<float>(m.v_max_rad_s),
                   static_cast<float>(m.t_max_nm), static_cast<float>(m.kp_max),
                   static_cast<float>(m.kd_max)};
}

ReplyLayout LayoutOf(const config::MotorModel& m) {
  return m.reply == config::ReplyFormat::kAk8Byte ? ReplyLayout::kAk8Byte
                                                   : ReplyLayout::kClassic6Byte;
}

std::vector<can_filter> ReceiveFiltersFor(const config::Config& config, std::size_t bus) {
  std::vector<can_filter> filters = {ExactStandardId(config.buses[bus].master_id)};
  if (config.imu.bus == bus) {
    filters.push_back(ExactStandardId(config.imu.quat_id));
    filters.push_back(ExactStandardId(config.imu.gyro_id));
  }
  return filters;
}

MotorScheduler::MotorScheduler(const config::Config& config, std::span<Bus* const> buses)
    : buses_(buses.begin(), buses.end()),
      by_bus_(buses.size()),
      joint_by_id_(buses.size()),
      missed_replies_(new std::atomic<std::uint64_t>[buses.size()]),
      imu_bus_(config.imu.bus),
      imu_quat_id_(config.imu.quat_id),
      imu_gyro_id_(config.imu.gyro_id),
      reply_timeout_us_(static_cast<std::int64_t>(config.control.motor_reply_timeout_ms) * 1000) {
  if (buses.size() != config.buses.size()) {
    throw std::invalid_argument("MotorScheduler: " + std::to_string(buses.size()) +
                                " buses given for " + std::to_string(config.buses.size()) +
                                " configured");
  }
  for (std::size_t b = 0; b < buses.size(); ++b) {
    missed_replies_[b].store(0);
    master_id_.push_back(config.buses[b].master_id);
    joint_by_id_[b].fill(0);
  }
  for (std::size_t j = 0; j < config.joints.size(); ++j) {
    const auto& joint = config.joints[j];
    const auto& motor = config.motors[joint.motor];
    motors_.push_back({j, joint.bus, joint.can_id, RangesOf(motor), LayoutOf(motor)});
    by_bus_[joint.bus].push_back(j);
    joint_by_id_[joint.bus][joint.can_id] = static_cast<std::uint16_t>(j + 1);
  }
  feedback_.resize(motors_.size());
  std::size_t most = 0;
  for (const auto& joints : by_bus_) most = std::max(most, joints.size());
  tx_.reserve(2 * most);  // a command and possibly an FC per motor
  rx_.resize(kReceiveBatch);
}

void MotorScheduler::EnterMotorMode(std::int64_t now_us) {
  for (std::size_t b = 0; b < buses_.size(); ++b) {
    tx_.clear();
    for (std::size_t j : by_bus_[b]) {
      tx_.push_back(MakeFrame(motors_[j].can_id, EncodeSpecial(SpecialCommand::kEnterMotorMode)));
      motors_[j].last_motor_mode_request_us = now_us;
    }
    buses_[b]->Send(tx_);
  }
}

void MotorScheduler::Receive(std::int64_t now_us) {
  for (std::size_t b = 0; b < buses_.size(); ++b) {
    std::size_t n;
    do {
      n = buses_[b]->Receive(rx_);
      for (std::size_t i = 0; i < n; ++i) HandleFrame(b, rx_[i], now_us);
    } while (n == rx_.size());
  }
}

void MotorScheduler::HandleFrame(std::size_t bus, const can_frame& frame, std::int64_t now_us) {
  const std::uint32_t id = frame.can_id & CAN_SFF_MASK;
  if ((frame.can_id & (CAN_EFF_FLAG | CAN_RTR_FLAG)) != 0) return;
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
  motor.awaiting_reply = false;
}

void MotorScheduler::Send(std::span<const MitCommand> targets, std::int64_t now_us) {
  for (std::size_t b = 0; b < buses_.size(); ++b) {
    tx_.clear();
    std::uint64_t missed = 0;
    for (std::size_t j : by_bus_[b]) {
      Motor& motor = motors_[j];
      const MotorFeedback& fb = feedback_[j];
      const bool silent = fb.last_reply_us < 0 || now_us - fb.last_reply_us > reply_timeout_us_;
      if (silent && now_us - motor.last_motor_mode_request_us >= kMotorModeRetryUs) {
        tx_.push_back(MakeFrame(motor.can_id, EncodeSpecial(SpecialCommand::kEnterMotorMode)));
        motor.last_motor_mode_request_us = now_us;
      }
      if (motor.awaiting_reply) ++missed;
      tx_.push_back(MakeFrame(motor.can_id, EncodeCommand(targets[j], motor.ranges)));
      motor.awaiting_reply = true;
    }
    buses_[b]->Send(tx_);
    if (missed != 0) BusCounters::Add(missed_replies_[b], missed);
  }
}

void MotorScheduler::SendDampThenExit(std::span<const MitCommand> damp_targets) {
  for (std::size_t b = 0; b < buses_.size(); ++b) {
    tx_.clear();
    for (std::size_t j : by_bus_[b]) {
      tx_.push_back(MakeFrame(motors_[j].can_id, EncodeCommand(damp_targets[j], motors_[j].ranges)));
    }
    buses_[b]->Send(tx_);
  }
  for (std::size_t b = 0; b < buses_.size(); ++b) {
    tx_.clear();
    for (std::size_t j : by_bus_[b]) {
      tx_.push_back(MakeFrame(motors_[j].can_id, EncodeSpecial(SpecialCommand::kExitMotorMode)));
    }
    buses_[b]->Send(tx_);
  }
}

}  // namespace robot_edge::can
