#include "can/motor_scheduler.hpp"

#include <algorithm>
#include <stdexcept>

#include "can/imu_codec.hpp"

namespace robot_edge::can {

std::vector<can_filter> ReceiveFilters(const Wiring& wiring) {
  std::vector<std::uint32_t> ids = {wiring.imu.quat_id, wiring.imu.gyro_id};
  if (wiring.imu.accel_id != 0) ids.push_back(wiring.imu.accel_id);
  if (wiring.bms.on_can) ids.push_back(wiring.bms.can_id);
  for (const auto& bus : wiring.buses) ids.push_back(bus.master_id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<can_filter> filters;
  for (std::uint32_t id : ids) filters.push_back(ExactStandardId(id));
  // Robstride replies carry the host id in the low byte of a 29-bit id.
  std::vector<std::uint32_t> hosts;
  for (const auto& joint : wiring.joints) {
    if (wiring.motors[joint.motor].family == MotorFamily::kRobstride) {
      hosts.push_back(wiring.buses[joint.bus].master_id & 0xFF);
    }
  }
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  for (std::uint32_t host : hosts) {
    filters.push_back({host | CAN_EFF_FLAG, 0xFF | CAN_EFF_FLAG | CAN_RTR_FLAG});
  }
  return filters;
}

MotorScheduler::MotorScheduler(const Wiring& wiring, Transport& transport)
    : transport_(transport),
      bus_count_(wiring.buses.size()),
      missed_replies_(new std::atomic<std::uint64_t>[wiring.buses.size()]),
      imu_bus_(wiring.imu.bus),
      imu_quat_id_(wiring.imu.quat_id),
      imu_gyro_id_(wiring.imu.gyro_id),
      imu_accel_id_(wiring.imu.accel_id),
      bms_bus_(wiring.bms.on_can ? wiring.bms.bus : kUnresolved),
      bms_id_(wiring.bms.can_id),
      reply_timeout_us_(static_cast<std::int64_t>(wiring.motor_reply_timeout_ms) * 1000),
      missed_this_tick_(wiring.buses.size()),
      rx_(kReceiveBatch) {
  if (transport.bus_count() != wiring.buses.size()) {
    throw std::invalid_argument("MotorScheduler: the transport has " +
                                std::to_string(transport.bus_count()) + " buses, the config " +
                                std::to_string(wiring.buses.size()));
  }
  joint_by_id_ = std::vector<IdTable>(bus_count_);
  families_on_bus_.assign(bus_count_, 0);
  strays_.resize(bus_count_);
  stray_count_.assign(bus_count_, 0);
  for (std::size_t b = 0; b < bus_count_; ++b) {
    missed_replies_[b].store(0);
    master_id_.push_back(wiring.buses[b].master_id);
    for (auto& table : joint_by_id_[b]) table.fill(0);
  }
  for (std::size_t j = 0; j < wiring.joints.size(); ++j) {
    const JointMotor& joint = wiring.joints[j];
    const MotorProtocol protocol = ProtocolOf(wiring.motor_of(j));
    const auto family = static_cast<std::size_t>(protocol.family);
    motors_.push_back(
        {j, joint.bus, joint.can_id, master_id_[joint.bus], protocol, joint.transform});
    // A damiao reply names its motor by the low nibble only.
    const std::uint32_t reply_id =
        protocol.family == MotorFamily::kDamiao ? (joint.can_id & 0x0F) : joint.can_id;
    joint_by_id_[joint.bus][family][reply_id & CAN_SFF_MASK] = static_cast<std::uint16_t>(j + 1);
    families_on_bus_[joint.bus] |= static_cast<std::uint8_t>(1u << family);
  }
  feedback_.resize(motors_.size());
  special_pending_.assign(motors_.size(), 0);
  scan_cursor_.assign(bus_count_, 0);
  // A command, an enable and a set-zero per motor; the probes of a scan.
  tx_.reserve(3 * motors_.size() + kProbesPerBus * bus_count_);
}

void MotorScheduler::PushCommand(const Motor& motor, const MitCommand& joint_target) {
  BusFrame f;
  f.bus = static_cast<std::uint32_t>(motor.bus);
  f.frame = EncodeCommandFrame(motor.protocol, motor.can_id, motor.master_id,
                               ToMotor(motor.transform, joint_target));
  tx_.push_back(f);
}

void MotorScheduler::PushRequest(const Motor& motor, MotorRequest request) {
  BusFrame f;
  f.bus = static_cast<std::uint32_t>(motor.bus);
  if (EncodeRequestFrame(motor.protocol, motor.can_id, motor.master_id, request, &f.frame)) {
    tx_.push_back(f);
  }
}

void MotorScheduler::EnterMotorMode(std::int64_t now_us) {
  tx_.clear();
  for (Motor& motor : motors_) {
    PushRequest(motor, MotorRequest::kEnable);
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
  if (bus >= bus_count_ || (frame.can_id & (CAN_RTR_FLAG | CAN_ERR_FLAG)) != 0) return;
  const bool standard = (frame.can_id & CAN_EFF_FLAG) == 0;
  const std::uint32_t id = frame.can_id & CAN_SFF_MASK;
  const std::span<const std::uint8_t> data(frame.data, std::min<std::size_t>(frame.len, 8));
  if (standard && bus == imu_bus_ && HandleImuFrame(id, data, now_us)) return;
  if (standard && bus == bms_bus_ && HandleBmsFrame(id, data, now_us)) return;
  bool shaped = false;  // shaped as some present family's reply
  MotorFamily first_shape = MotorFamily::kAk;
  std::uint32_t first_id = 0;
  for (std::size_t f = 0; f < kFamilies; ++f) {
    if ((families_on_bus_[bus] & (1u << f)) == 0) continue;
    const auto family = static_cast<MotorFamily>(f);
    std::uint32_t sender = 0;
    if (!ReplySender(family, master_id_[bus], frame, &sender) || sender > CAN_SFF_MASK) continue;
    if (!shaped) first_shape = family, first_id = sender;
    shaped = true;
    const std::uint16_t entry = joint_by_id_[bus][f][sender];
    if (entry == 0) continue;
    Motor& motor = motors_[entry - 1];
    MotorReply reply;
    if (DecodeReplyFrame(motor.protocol, frame, &reply)) {
      Update(motor, reply, now_us);
    } else {
      ++feedback_[motor.joint].malformed_replies;
    }
    return;
  }
  if (shaped) {
    NoteStray(bus, first_shape, first_id, now_us);
    return;
  }
  for (std::size_t f = 0; f < kFamilies; ++f) {  // the shape of a family the bus does not have
    const auto family = static_cast<MotorFamily>(f);
    std::uint32_t sender = 0;
    if (ReplySender(family, master_id_[bus], frame, &sender)) {
      NoteStray(bus, family, sender, now_us);
      return;
    }
  }
}

bool MotorScheduler::HandleImuFrame(std::uint32_t id, std::span<const std::uint8_t> data,
                                    std::int64_t now_us) {
  if (id == imu_quat_id_) {
    if (DecodeImuQuaternion(data, &imu_.quat_wxyz)) imu_.last_quat_us = now_us;
    return true;
  }
  if (id == imu_gyro_id_) {
    if (DecodeImuGyro(data, &imu_.gyro_rad_s)) imu_.last_gyro_us = now_us;
    return true;
  }
  if (imu_accel_id_ != 0 && id == imu_accel_id_) {  // 0 = none (0 may be a master id)
    if (DecodeImuAccel(data, &imu_.accel_m_s2)) imu_.last_accel_us = now_us;
    return true;
  }
  return false;
}

bool MotorScheduler::HandleBmsFrame(std::uint32_t id, std::span<const std::uint8_t> data,
                                    std::int64_t now_us) {
  if (id != bms_id_) return false;
  if (DecodeBms(data, &battery_.reading)) battery_.last_update_us = now_us;
  return true;
}

void MotorScheduler::StartScan(std::uint32_t max_id) {
  scan_max_id_ = std::clamp<std::uint32_t>(max_id, 1, kMaxScanId);
  std::fill(scan_cursor_.begin(), scan_cursor_.end(), 0);
  std::fill(stray_count_.begin(), stray_count_.end(), 0);
}

bool MotorScheduler::Configured(std::size_t bus, std::uint32_t id, bool extended) const {
  for (const Motor& m : motors_) {
    const bool m_extended = m.protocol.family == MotorFamily::kRobstride;
    if (m.bus == bus && m.can_id == id && m_extended == extended) return true;
  }
  return !extended && id == master_id_[bus];
}

void MotorScheduler::PushProbes() {
  if (scan_max_id_ == 0) return;
  MotorProtocol standard, extended;
  extended.family = MotorFamily::kRobstride;
  bool done = true;
  for (std::size_t b = 0; b < bus_count_; ++b) {
    std::size_t sent = 0;
    while (sent < kProbesPerBus && scan_cursor_[b] < 2 * scan_max_id_) {
      const std::uint32_t k = scan_cursor_[b]++;
      const bool is_extended = k >= scan_max_id_;
      const std::uint32_t id = k % scan_max_id_ + 1;
      if (Configured(b, id, is_extended)) continue;
      BusFrame f;
      f.bus = static_cast<std::uint32_t>(b);
      if (EncodeRequestFrame(is_extended ? extended : standard, id, master_id_[b],
                             MotorRequest::kDisable, &f.frame)) {
        tx_.push_back(f);
        ++sent;
      }
    }
    done &= scan_cursor_[b] >= 2 * scan_max_id_;
  }
  if (done) scan_max_id_ = 0;
}

void MotorScheduler::Update(Motor& motor, const MotorReply& reply, std::int64_t now_us) {
  const ShaftReading joint = ToJoint(
      motor.transform, ShaftReading{reply.position_rad, reply.velocity_rad_s, reply.torque_nm});
  MotorFeedback& fb = feedback_[motor.joint];
  fb.position_rad = joint.position_rad;
  fb.velocity_rad_s = joint.velocity_rad_s;
  fb.torque_nm = joint.torque_nm;
  fb.temperature_c = reply.has_temperature ? reply.temperature_c : 0.0f;
  fb.error_code = static_cast<std::uint8_t>(reply.error);
  fb.raw_fault = reply.raw_fault;
  fb.enabled = reply.enabled;
  fb.last_reply_us = now_us;
  ++fb.replies;
  fb.unanswered = 0;
  motor.awaiting_reply = false;
}

void MotorScheduler::NoteStray(std::size_t bus, MotorFamily family, std::uint32_t motor_id,
                               std::int64_t now_us) {
  auto& list = strays_[bus];
  std::size_t& count = stray_count_[bus];
  for (std::size_t i = 0; i < count; ++i) {
    if (list[i].motor_id == motor_id && list[i].family == family) {
      ++list[i].frames;
      list[i].last_us = now_us;
      return;
    }
  }
  if (count < kMaxStrays) list[count++] = {family, motor_id, 1, now_us};
}

void MotorScheduler::Send(std::span<const MitCommand> targets, std::int64_t now_us) {
  tx_.clear();
  std::fill(missed_this_tick_.begin(), missed_this_tick_.end(), 0);
  for (Motor& motor : motors_) {
    const MotorFeedback& fb = feedback_[motor.joint];
    const bool silent = fb.last_reply_us < 0 || now_us - fb.last_reply_us > reply_timeout_us_;
    if (silent && now_us - motor.last_motor_mode_request_us >= kMotorModeRetryUs) {
      PushRequest(motor, MotorRequest::kEnable);
      motor.last_motor_mode_request_us = now_us;
    }
    if (motor.awaiting_reply) ++missed_this_tick_[motor.bus];
    if (const std::uint8_t pending = special_pending_[motor.joint]; pending != 0) {
      special_pending_[motor.joint] = 0;
      const auto request = static_cast<MotorRequest>(pending - 1);
      PushRequest(motor, request);
      if (request == MotorRequest::kClearFault) PushRequest(motor, MotorRequest::kEnable);
    }
    PushCommand(motor, targets[motor.joint]);
    motor.awaiting_reply = true;
    ++feedback_[motor.joint].unanswered;
  }
  PushProbes();
  transport_.Send(tx_);
  for (std::size_t b = 0; b < bus_count_; ++b) {
    if (missed_this_tick_[b] != 0) BusCounters::Add(missed_replies_[b], missed_this_tick_[b]);
  }
}

void MotorScheduler::SendNow(std::span<const MitCommand> targets) {
  tx_.clear();
  for (const Motor& motor : motors_) PushCommand(motor, targets[motor.joint]);
  transport_.Send(tx_);
}

void MotorScheduler::SendDampThenExit(std::span<const MitCommand> damp_targets) {
  tx_.clear();
  for (const Motor& motor : motors_) PushCommand(motor, damp_targets[motor.joint]);
  transport_.Send(tx_);
  tx_.clear();
  for (const Motor& motor : motors_) PushRequest(motor, MotorRequest::kDisable);
  transport_.Send(tx_);
}

}  // namespace robot_edge::can
