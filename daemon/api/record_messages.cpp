#include "daemon/api/record_messages.hpp"

#include <cstring>

#include "statemachine/alerts.hpp"
#include "statemachine/imu_math.hpp"

namespace robot_edge::daemon {

const RecordChannelSpec& SpecOf(RecordChannel channel) {
  static const RecordChannelSpec kSpecs[kRecordChannelCount] = {
      {"joint_state", "/joint_state", edge::JointState::descriptor()},
      {"telemetry", "/telemetry", edge::EdgeTelemetry::descriptor()},
      {"events", "/events", edge::EdgeEvent::descriptor()},
      {"commands", "/commands", edge::CommandRecord::descriptor()},
      {"diagnostics", "/diagnostics", edge::DiagnosticsExtension::descriptor()},
      {"can", "/can", edge::CanFrames::descriptor()},
  };
  return kSpecs[static_cast<std::size_t>(channel)];
}

edge::MotorStatus MotorStatusOf(const sm::JointMeasurement& m, std::int64_t now_us,
                                std::int64_t reply_timeout_us) {
  if (m.last_reply_us < 0) return edge::MOTOR_STATUS_NO_REPLY;
  if (now_us - m.last_reply_us > reply_timeout_us &&
      m.unanswered >= sm::AlertMonitor::kMinUnanswered) {
    return edge::MOTOR_STATUS_SILENT;
  }
  return m.error_code != 0 ? edge::MOTOR_STATUS_FAULT : edge::MOTOR_STATUS_OK;
}

void FillJointState(const StateSample& s, const Clocks& clocks, std::int64_t reply_timeout_us,
                    edge::JointState* out) {
  // Clear() would delete the submessages (proto3): kept across it, so that filling a kept
  // message allocates nothing.
  edge::TickTiming* timing = out->release_timing();
  edge::BatteryState* battery = out->release_battery();
  out->Clear();
  out->set_allocated_timing(timing);
  if (s.battery.last_update_us >= 0) {
    if (battery == nullptr) battery = new edge::BatteryState;
    FillBattery(s.battery, s.battery_wh, battery);
    out->set_allocated_battery(battery);
  } else {
    delete battery;
  }
  out->set_timestamp_us(clocks.ToWall(s.tick_us));
  out->set_robot_time_us(static_cast<std::uint64_t>(s.tick_us));
  out->set_tick(s.tick);
  out->set_fw_mode(ToFirmwareProto(s.mode));
  out->set_control_mode(ToProto(s.mode));
  out->set_error_flags(s.error_flags);
  for (const sm::JointMeasurement& m : s.joints) {
    out->add_q(m.position_rad);
    out->add_dq(m.velocity_rad_s);
    out->add_tau(m.torque_nm);
    out->add_temperature_c(m.temperature_c);
    out->add_motor_fault(m.error_code);
    out->add_motor_status(MotorStatusOf(m, s.tick_us, reply_timeout_us));
  }
  for (const sm::JointTarget& t : s.commands) {
    out->add_q_des(t.position_rad);
    out->add_dq_des(t.velocity_rad_s);
    out->add_kp(t.kp);
    out->add_kd(t.kd);
    out->add_tau_ff(t.torque_nm);
  }
  for (float q : s.imu.quat_wxyz) out->add_imu_quat(q);
  for (float g : s.imu.gyro_rad_s) out->add_imu_gyro(g);
  if (s.imu.has_accel) {
    for (float a : s.imu.accel_m_s2) out->add_imu_accel(a);
  }
  for (float a : sm::YawPitchRoll(s.imu.quat_wxyz)) out->add_imu_ypr(a);
  timing = out->mutable_timing();
  timing->set_period_us(static_cast<float>(s.period_us));
  timing->set_work_us(static_cast<float>(s.work_us));
  timing->set_wake_latency_us(static_cast<float>(s.wake_latency_us));
  out->set_last_command_sequence(s.last_command_sequence);
  out->set_user_command_key(s.user_command_key);
  out->set_user_command_key_applied_us(std::max<std::int64_t>(0, s.user_command_key_applied_us));
}

void FillCommandRecord(const CommandNote& note, std::span<const std::uint8_t> command,
                       const ClientInfo& client, edge::CommandRecord* out, bool joint) {
  out->Clear();
  out->set_received_us(note.time_us);
  out->set_client_id(note.client_id);
  out->set_peer(client.peer);
  out->set_controller(client.controller);
  out->set_sequence(note.sequence);
  if (!command.empty()) {
    google::protobuf::MessageLite* message =
        joint ? static_cast<google::protobuf::MessageLite*>(out->mutable_joint_command())
              : out->mutable_command();
    message->ParseFromArray(command.data(), static_cast<int>(command.size()));
  }
  out->set_decided(note.decided != 0);
  if (note.decided == 0) return;
  out->set_accepted(note.accepted != 0);
  if (note.reason < sm::kReasonCount) {
    out->set_reason(sm::ToString(static_cast<sm::Reason>(note.reason)));
  }
  out->set_control_mode(ToProto(static_cast<sm::Mode>(note.mode)));
}

std::string ClientPayload(std::uint64_t id, std::string_view peer, std::string_view controller) {
  std::string out(12, '\0');
  const auto length = static_cast<std::uint32_t>(peer.size());
  std::memcpy(out.data(), &id, 8);
  std::memcpy(out.data() + 8, &length, 4);
  out.append(peer);
  out.append(controller);
  return out;
}

bool ParseClientPayload(std::span<const std::uint8_t> p, std::uint64_t* id, ClientInfo* out) {
  if (p.size() < 12) return false;
  std::uint32_t length = 0;
  std::memcpy(id, p.data(), 8);
  std::memcpy(&length, p.data() + 8, 4);
  if (length > p.size() - 12) return false;
  out->peer.assign(reinterpret_cast<const char*>(p.data()) + 12, length);
  out->controller.assign(reinterpret_cast<const char*>(p.data()) + 12 + length,
                         p.size() - 12 - length);
  return true;
}

bool TriggersBlackBox(std::string_view code) {
  static constexpr std::string_view kCodes[] = {
      "MOTOR_OVERTEMP", "FALL_DETECTED",        "FW_LINK_TIMEOUT",   "CAN_BUS_OFF",
      "MOTOR_FAULT",    "IMU_TIMEOUT",          "CONTROL_LOOP_SLOW", "JOINT_OUT_OF_RANGE",
      "POLICY_FAULT",   "JOINT_VELOCITY_LIMIT", "CONTROL_STALLED"};
  for (std::string_view c : kCodes) {
    if (c == code) return true;
  }
  return false;
}

}  // namespace robot_edge::daemon
