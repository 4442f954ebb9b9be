#include "daemon/api/messages.hpp"

#include <algorithm>
#include <cstdio>

#include "can/mit_codec.hpp"
#include "statemachine/imu_math.hpp"

namespace robot_edge::daemon {
namespace {

std::string JointName(const config::Config& c, std::uint32_t j) {
  if (j >= c.joints.size()) return "joint " + std::to_string(j);
  const auto& joint = c.joints[j];
  const auto& bus = c.buses[joint.bus];
  return joint.name + " (joint " + std::to_string(j) + ", " + bus.name + "/" + bus.interface +
         " id " + std::to_string(joint.can_id) + ")";
}

std::string BusName(const config::Config& c, std::uint32_t b) {
  if (b >= c.buses.size()) return "bus " + std::to_string(b);
  return c.buses[b].name + " (" + c.buses[b].interface + ")";
}

edge::Subsystem SubsystemOf(sm::AlertId id) {
  switch (id) {
    case sm::AlertId::kMotorTimeout:
    case sm::AlertId::kCanBusOff:
    case sm::AlertId::kImuTimeout: return edge::SUBSYSTEM_FW_LINK;
    case sm::AlertId::kMotorOvertemp:
    case sm::AlertId::kFallDetected:
    case sm::AlertId::kMotorFault:
    case sm::AlertId::kJointOutOfRange:
    case sm::AlertId::kJointPastLimit:
    case sm::AlertId::kBatteryLow:
    case sm::AlertId::kLoopSlow:
    case sm::AlertId::kControlStalled: return edge::SUBSYSTEM_FIRMWARE;
  }
  return edge::SUBSYSTEM_FIRMWARE;
}

std::string AlertText(const sm::Alert& a, const config::Config& c) {
  const auto& s = c.safety;
  char limits[96];
  switch (a.id) {
    case sm::AlertId::kMotorOvertemp:
      std::snprintf(limits, sizeof(limits), " at %u °C (trips at %u °C, clears below %g °C)",
                    a.value, a.threshold, s.overtemp_clear_c);
      return JointName(c, a.source) + " motor overtemperature" + limits;
    case sm::AlertId::kMotorTimeout: {
      std::string text = JointName(c, a.source) + " has not replied for " +
                         std::to_string(a.value) + " ms (timeout " + std::to_string(a.threshold) +
                         " ms)";
      if (a.reading > 0) {  // something answers from its id, in another format
        text += "; " + std::to_string(static_cast<std::uint64_t>(a.reading)) +
                " frames from its id did not decode as " +
                config::ToString(c.motor_of(a.source).family) +
                ": a motor of another family, or another reply layout?";
      }
      return text;
    }
    case sm::AlertId::kMotorFault:
      return JointName(c, a.source) + " reports error " + std::to_string(a.value) + " (" +
             can::ToString(static_cast<can::MotorError>(a.value)) + ")";
    case sm::AlertId::kFallDetected:
      std::snprintf(limits, sizeof(limits), "tilt %u° beyond %u° for %u ms: fall detected", a.value,
                    a.threshold, s.fall_hold_ms);
      return limits;
    case sm::AlertId::kCanBusOff:
      return "CAN bus " + BusName(c, a.source) + " went bus-off (bus-off count " +
             std::to_string(a.value) + ")";
    case sm::AlertId::kImuTimeout:
      return "no IMU frame on " + BusName(c, static_cast<std::uint32_t>(c.imu.bus)) + " for " +
             std::to_string(a.value) + " ms (timeout " + std::to_string(a.threshold) + " ms)";
    case sm::AlertId::kJointOutOfRange:
      std::snprintf(limits, sizeof(limits),
                    " reads %.3f rad, beyond its limits [%.2f, %.2f] by more than %.2f rad",
                    static_cast<double>(a.reading), c.joints[a.source].min_rad,
                    c.joints[a.source].max_rad, s.joint_limit_margin_rad);
      return JointName(c, a.source) + limits +
             ": a wrong offset, a reversed motor or a slipped encoder? (docs/bring-up.md, \"First "
             "power-on\")";
    case sm::AlertId::kJointPastLimit:
      std::snprintf(limits, sizeof(limits),
                    " reads %.3f rad, %u mrad past its limits [%.2f, %.2f] (within the %.2f rad "
                    "margin)",
                    static_cast<double>(a.reading), a.value, c.joints[a.source].min_rad,
                    c.joints[a.source].max_rad, s.joint_limit_margin_rad);
      return JointName(c, a.source) + limits +
             ": driven past its limit, or an overshoot (a warning: no DAMP)";
    case sm::AlertId::kBatteryLow:
      std::snprintf(limits, sizeof(limits),
                    "battery at %u %% (warns at %u %%, clears at %g %%): charge or swap it",
                    a.value, a.threshold, c.battery.clear_percent);
      return limits;
    case sm::AlertId::kLoopSlow:
      return "the control loop ran at " + std::to_string(a.value) + " Hz over the last second, " +
             "below " + std::to_string(a.threshold) + " Hz (real-time priority refused? CPU " +
             "overloaded?)";
    case sm::AlertId::kControlStalled:
      return "the control thread did not tick for " + std::to_string(a.value) +
             " ms (safety.control_stall_ms " + std::to_string(a.threshold) +
             "): the supervisor sent DAMP to every motor";
  }
  return "alert";
}

edge::EdgeError MakeError(edge::Subsystem subsystem, std::string code, std::string message) {
  edge::EdgeError e;
  e.set_subsystem(subsystem);
  e.set_code(std::move(code));
  e.set_message(std::move(message));
  return e;
}

std::string BlockedText(const sm::Event& e, const config::Config& c) {
  switch (e.reason) {
    case sm::Reason::kBlockedByAlert:
      return std::string(sm::ToString(e.alert.id)) + " is active: " + AlertText(e.alert, c);
    case sm::Reason::kMotorsNotReady: return "not every motor has replied yet";
    case sm::Reason::kImuNotReady: return "the IMU has not reported yet (fall detection is blind)";
    case sm::Reason::kCalibrationStale:
      return "a motor's zero was set (robot-edgectl zero): the joint offsets are stale; run "
             "robot-edgectl calibrate, then restart robot-edged";
    case sm::Reason::kStopLatched:
      return std::string("the robot was stopped by ") + e.stopped_by.data() +
             "; the controller that held control then releases the stop with its "
             "ModeCommand(STAND), or someone on the robot with robot-edgectl release-stop "
             "(the stop outlives restarts)";
    case sm::Reason::kSentBeforeDamp:
      return "the command was sent before the robot went to DAMP (a late packet); send a new one";
    default:
      return "this trajectory stream was running when the robot went to DAMP; pause it for " +
             std::to_string(c.control.trajectory_timeout_ms) + " ms or send STAND first";
  }
}

std::string PolicyFaultText(const sm::Event& e, const config::Config& c, std::string_view failure) {
  std::string what;
  switch (e.policy_fault) {
    case sm::PolicyFault::kStale:
      what = "its targets are " + std::to_string(e.detail) + " ms old (limit " +
             std::to_string(c.policy.stall_timeout_us() / 1000) + " ms): the inference stalled";
      break;
    case sm::PolicyFault::kNoTargets:
      what = "it gave no targets within " + std::to_string(e.detail) + " ms of MOVE/POLICY";
      break;
    case sm::PolicyFault::kNonFinite: {
      if (e.detail == sm::kNonFiniteState) {
        what = "its recurrent state went non-finite (NaN or infinity)";
        if (!failure.empty()) what += ": " + std::string(failure);
        break;
      }
      const std::string joint = e.detail < c.joints.size() ? c.joints[e.detail].name
                                                           : "joint " + std::to_string(e.detail);
      what = "it output a non-finite action (NaN or infinity) for " + joint;
      break;
    }
    case sm::PolicyFault::kFailed:
      what = "its inference thread failed: " + std::string(failure.empty() ? "?" : failure);
      break;
  }
  const bool damp = c.policy.on_fault == config::PolicyFaultAction::kDamp;
  return "the locomotion policy faulted: " + what + "; walking stopped, " +
         (damp ? "DAMP (policy.on_fault: damp)" : "STAND, ramping from the measured pose");
}

}  // namespace

edge::MaintenanceResult MaintenanceError(std::uint32_t request_id, std::string error) {
  edge::MaintenanceResult r;
  r.set_request_id(request_id);
  r.set_ok(false);
  r.set_error(std::move(error));
  return r;
}

edge::Subsystem SubsystemOfController(const std::string& controller) {
  if (controller.empty()) return edge::SUBSYSTEM_FIRMWARE;
  return controller == "ble" ? edge::SUBSYSTEM_BLE : edge::SUBSYSTEM_CLOUD;
}

edge::ControlMode ToProto(sm::Mode mode) {
  switch (mode) {
    case sm::Mode::kDamp: return edge::CONTROL_MODE_DAMP;
    case sm::Mode::kStand: return edge::CONTROL_MODE_STAND;
    case sm::Mode::kMovePolicy: return edge::CONTROL_MODE_MOVE_POLICY;
    case sm::Mode::kMoveTrajectory: return edge::CONTROL_MODE_MOVE_TRAJECTORY;
    case sm::Mode::kMoveJointStream: return edge::CONTROL_MODE_MOVE_JOINT_STREAM;
  }
  return edge::CONTROL_MODE_DAMP;
}

edge::FirmwareMode ToFirmwareProto(sm::Mode mode) {
  return static_cast<edge::FirmwareMode>(sm::ToFirmwareMode(mode));
}

edge::FirmwareAlert ToProto(const sm::Alert& a, const Clocks& now) {
  edge::FirmwareAlert out;
  out.set_id(static_cast<std::uint32_t>(a.id));
  out.set_severity(static_cast<std::uint32_t>(a.severity));
  out.set_value(a.value);
  out.set_threshold(a.threshold);
  out.set_first_set_us(now.ToWall(a.first_set_us));
  out.set_source_id(a.source);
  return out;
}

edge::BatteryStatus ToProto(sm::BatteryStatus status) {
  switch (status) {
    case sm::BatteryStatus::kUnknown: return edge::BATTERY_STATUS_UNKNOWN;
    case sm::BatteryStatus::kDischarging: return edge::BATTERY_STATUS_DISCHARGING;
    case sm::BatteryStatus::kCharging: return edge::BATTERY_STATUS_CHARGING;
    case sm::BatteryStatus::kFull: return edge::BATTERY_STATUS_FULL;
    case sm::BatteryStatus::kFault: return edge::BATTERY_STATUS_FAULT;
  }
  return edge::BATTERY_STATUS_UNKNOWN;
}

void FillBattery(const sm::BatteryMeasurement& b, double wh, edge::BatteryState* out) {
  out->set_reading_time_us(b.last_update_us);
  out->set_voltage_v(b.voltage_v);
  out->set_current_a(b.current_a);
  out->set_power_w(b.voltage_v * b.current_a);
  out->set_wh_accumulated(static_cast<float>(wh));
  out->set_percent(b.percent);
  out->set_temperature_c(b.temperature_c);
  out->set_status(ToProto(b.status));
}

void FillTelemetry(const ControlSnapshot& s, const config::Config& c, std::uint32_t sequence,
                   const Clocks& now, edge::EdgeTelemetry* out,
                   edge::TelemetryExtension* extension) {
  out->Clear();
  // Clear() would delete the battery submessage: kept across it, so that a frame allocates
  // nothing in steady state.
  edge::BatteryState* battery = extension->release_battery();
  extension->Clear();
  if (s.battery.last_update_us >= 0) {
    if (battery == nullptr) battery = new edge::BatteryState;
    FillBattery(s.battery, s.battery_wh, battery);
    extension->set_allocated_battery(battery);
  } else {
    delete battery;
  }
  out->set_timestamp_us(now.wall_us);
  out->set_sequence(sequence);
  out->set_fw_mode(ToFirmwareProto(s.mode));
  extension->set_control_mode(ToProto(s.mode));
  extension->set_last_command_sequence(s.last_command_sequence);
  extension->set_last_user_command_key(s.user_command_key);
  extension->set_user_command_key_applied_us(
      std::max<std::int64_t>(0, s.user_command_key_applied_us));
  extension->set_robot_time_us(now.steady_us);
  std::int64_t oldest = -1;
  bool every_motor_replied = !s.joints.empty();
  for (std::size_t j = 0; j < s.joints.size(); ++j) {
    const sm::JointMeasurement& m = s.joints[j];
    out->add_joint_pos(m.position_rad);
    out->add_joint_vel(m.velocity_rad_s);
    extension->add_joint_torque(m.torque_nm);
    out->add_joint_current(m.torque_nm /
                           static_cast<float>(c.motor_of(j).torque_constant_nm_per_a));
    out->add_joint_temp(m.temperature_c);
    if (m.last_reply_us < 0) {
      every_motor_replied = false;
    } else if (oldest < 0 || m.last_reply_us < oldest) {
      oldest = m.last_reply_us;
    }
  }
  if (oldest >= 0) {
    out->set_fw_timestamp_us(now.ToWall(oldest));
    out->set_fw_age_ms(
        static_cast<std::uint32_t>(std::max<std::int64_t>(0, now.steady_us - oldest) / 1000));
  }
  if (!every_motor_replied) out->set_fw_age_ms(kNeverAgeMs);
  for (float q : s.imu.quat_wxyz) out->add_imu_quat(q);
  for (float g : s.imu.gyro_rad_s) out->add_imu_gyro(g);
  for (float g : sm::ProjectedGravity(s.imu.quat_wxyz)) out->add_imu_gravity(g);
  out->set_error_flags(s.error_flags);
  for (std::size_t i = 0; i < s.alert_count; ++i)
    *out->add_active_alerts() = ToProto(s.alerts[i], now);
}

void FillLoopDiagnostics(const ControlSnapshot& s, const sm::Counters& api_counters,
                         edge::DiagnosticsExtension* x) {
  x->set_loop_rate_hz(static_cast<float>(s.loop.rate_hz));
  x->set_loop_overruns(s.overruns);
  x->set_period_jitter_us(static_cast<float>(s.loop.max_jitter_us));
  x->set_period_max_us(static_cast<float>(s.loop.max_period_us));
  x->set_wake_latency_max_us(static_cast<float>(s.loop.max_latency_us));
  x->set_tick_work_max_us(static_cast<float>(s.loop.max_work_us));
  x->set_control_mode(ToProto(s.mode));
  if (s.battery.last_update_us >= 0) FillBattery(s.battery, s.battery_wh, x->mutable_battery());
  for (std::size_t r = 0; r < sm::kReasonCount; ++r) {
    const auto reason = static_cast<sm::Reason>(r);
    edge::DropCounter* c = x->add_command_drops();
    c->set_reason(sm::ToString(reason));
    c->set_count(api_counters[reason] + s.counters[reason]);
  }
}

std::optional<edge::EdgeError> ErrorFor(const sm::Event& e, const config::Config& c,
                                        const std::string& controller,
                                        std::string_view policy_failure) {
  switch (e.kind) {
    case sm::EventKind::kAlertRaised:
      return MakeError(SubsystemOf(e.alert.id), sm::ToString(e.alert.id), AlertText(e.alert, c));
    case sm::EventKind::kTrajectoryTimeout: {
      const char* what =
          e.from == sm::Mode::kMoveJointStream ? "JointCommand" : "TrajectoryRequest";
      return MakeError(SubsystemOfController(controller), "TRAJECTORY_TIMEOUT",
                       std::string("no ") + what + " for " + std::to_string(e.silence_ms) +
                           " ms (timeout " + std::to_string(c.control.trajectory_timeout_ms) +
                           " ms): DAMP");
    }
    case sm::EventKind::kVelocityLimit: {
      char text[160];
      std::snprintf(
          text, sizeof(text), " moved at %.2f rad/s, over %s %.2f rad/s: DAMP",
          static_cast<double>(e.velocity_rad_s),
          e.joint_limit ? "its max_velocity (config)" : "the joint stream's velocity_safety_limit",
          static_cast<double>(e.limit_rad_s));
      return MakeError(SubsystemOfController(controller), "JOINT_VELOCITY_LIMIT",
                       JointName(c, e.joint) + text);
    }
    case sm::EventKind::kModeBlocked:
      return MakeError(edge::SUBSYSTEM_FIRMWARE, "MODE_BLOCKED",
                       std::string(sm::ToString(e.to)) +
                           " refused, the robot stays in DAMP: " + BlockedText(e, c));
    case sm::EventKind::kPolicyFault:
      return MakeError(static_cast<edge::Subsystem>(edge::SUBSYSTEM_POLICY), "POLICY_FAULT",
                       PolicyFaultText(e, c, policy_failure));
    case sm::EventKind::kModeChanged:
    case sm::EventKind::kAlertCleared: return std::nullopt;
  }
  return std::nullopt;
}

std::string Describe(const sm::Event& e, const config::Config& c) {
  switch (e.kind) {
    case sm::EventKind::kModeChanged: {
      const char* cause = e.cause == sm::Cause::kCommand             ? "command"
                          : e.cause == sm::Cause::kTrajectoryTimeout ? "trajectory timeout"
                          : e.cause == sm::Cause::kPolicyFault       ? "policy fault"
                          : e.cause == sm::Cause::kVelocityLimit     ? "velocity safety limit"
                                                                     : "alert";
      return std::string("mode ") + sm::ToString(e.from) + " -> " + sm::ToString(e.to) + " (" +
             cause + ")";
    }
    case sm::EventKind::kAlertRaised:
      return std::string("alert ") + sm::ToString(e.alert.id) + ": " + AlertText(e.alert, c);
    case sm::EventKind::kAlertCleared:
      return std::string("alert cleared ") + sm::ToString(e.alert.id) + ": " +
             AlertText(e.alert, c);
    case sm::EventKind::kTrajectoryTimeout:
    case sm::EventKind::kModeBlocked:
    case sm::EventKind::kPolicyFault:
    case sm::EventKind::kVelocityLimit: return ErrorFor(e, c, "")->message();
  }
  return "event";
}

}  // namespace robot_edge::daemon
