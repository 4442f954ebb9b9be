#include "tools/edgectl/format.hpp"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <iterator>

namespace robot_edge::edgectl {

namespace {

__attribute__((format(printf, 1, 2))) std::string Fmt(const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  return n < 0 ? std::string() : std::string(buffer, std::min<std::size_t>(n, sizeof(buffer) - 1));
}

// The enum value's name without its prefix: ("CAN_STATE_BUS_OFF", "CAN_STATE_") -> "BUS_OFF".
std::string Strip(const std::string& name, const std::string& prefix, int value) {
  if (name.empty()) return std::to_string(value);
  return name.compare(0, prefix.size(), prefix) == 0 ? name.substr(prefix.size()) : name;
}

std::string JointName(std::span<const std::string> joints, std::uint32_t index) {
  return index < joints.size() ? joints[index] : "joint " + std::to_string(index);
}

float At(const google::protobuf::RepeatedField<float>& values, std::size_t i) {
  return i < static_cast<std::size_t>(values.size()) ? values[static_cast<int>(i)] : 0.0f;
}

const char* SeverityName(std::uint32_t severity) {
  switch (severity) {
    case edge::SEVERITY_CRITICAL: return "critical";
    case edge::SEVERITY_WARNING: return "warning";
    case edge::SEVERITY_INFO: return "info";
    default: return "severity ?";
  }
}

const char* MotorFaultName(std::uint32_t code) {
  static const char* const names[] = {
      "?", "overtemp", "overcurrent", "overvoltage", "undervoltage", "encoder", "phase"};
  return code < std::size(names) ? names[code] : "?";
}

std::string AlertDetail(const edge::FirmwareAlert& a, std::span<const std::string> joints) {
  const std::string joint = JointName(joints, a.source_id());
  switch (a.id()) {
    case edge::ALERT_MOTOR_OVERTEMP:
      return Fmt("%s: %u °C (trips at %u °C)", joint.c_str(), a.value(), a.threshold());
    case edge::ALERT_FALL_DETECTED: return Fmt("tilt %u° (limit %u°)", a.value(), a.threshold());
    case edge::ALERT_MOTOR_TIMEOUT:
      return Fmt("%s: no reply for %u ms (timeout %u ms)", joint.c_str(), a.value(), a.threshold());
    case edge::ALERT_CAN_BUS_OFF: return Fmt("bus %u: %u bus-off", a.source_id(), a.value());
    case edge::ALERT_MOTOR_FAULT:
      return Fmt("%s: fault code %u (%s)", joint.c_str(), a.value(), MotorFaultName(a.value()));
    case edge::ALERT_IMU_TIMEOUT: return Fmt("no IMU frame for %u ms", a.value());
    case edge::ALERT_CONTROL_LOOP_SLOW:
      return Fmt("control loop at %u Hz (floor %u Hz)", a.value(), a.threshold());
    case edge::ALERT_JOINT_OUT_OF_RANGE:
      return Fmt("%s: %u mrad beyond its limits (margin %u mrad): offset? encoder?", joint.c_str(),
                 a.value(), a.threshold());
    case edge::ALERT_JOINT_PAST_LIMIT:
      return Fmt("%s: %u mrad past its limits (within the margin)", joint.c_str(), a.value());
    case edge::ALERT_BATTERY_LOW:
      return Fmt("charge %u %% (low at %u %%)", a.value(), a.threshold());
    default: return Fmt("source %u value %u threshold %u", a.source_id(), a.value(), a.threshold());
  }
}

// "battery     48.1 V  3.2 A (154 W)  72 %  31 °C  discharging, 12.4 Wh drawn": one line of
// status.
std::string FormatBattery(const edge::BatteryState& b) {
  std::string status =
      edge::BatteryStatus_IsValid(b.status())
          ? Strip(edge::BatteryStatus_Name(b.status()), "BATTERY_STATUS_", b.status())
          : std::to_string(b.status());
  for (char& c : status) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (b.reading_time_us() < 0) return "battery     no reading yet\n";
  return Fmt("battery     %.1f V  %.1f A (%.0f W)  %.0f %%  %.0f °C  %s, %.1f Wh drawn\n",
             b.voltage_v(), b.current_a(), b.power_w(), b.percent(), b.temperature_c(),
             status.c_str(), b.wh_accumulated());
}

std::string JoinStrings(const google::protobuf::RepeatedPtrField<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string OrNone(const std::string& controller) {
  return controller.empty() ? "(none)" : controller;
}

std::string JointTable(const edge::Welcome& welcome, const edge::EdgeTelemetry& t,
                       const edge::TelemetryExtension& x) {
  // "°" and "·" take two bytes for one column: those headers are padded by hand.
  std::string out = Fmt("%3s  %-18s %9s %10s", "#", "joint", "pos rad", "vel rad/s") + "  temp °C" +
                    Fmt(" %10s", "current A") + "  torque N·m\n";
  for (int i = 0; i < welcome.joint_names_size(); ++i) {
    const auto j = static_cast<std::size_t>(i);
    out += Fmt("%3d  %-18s %9.3f %10.3f %8.1f %10.2f %11.2f\n", i, welcome.joint_names(i).c_str(),
               At(t.joint_pos(), j), At(t.joint_vel(), j), At(t.joint_temp(), j),
               At(t.joint_current(), j), At(x.joint_torque(), j));
  }
  return out;
}

std::string CanSummary(const edge::EdgeDiagnostics& d, const edge::DiagnosticsExtension& x) {
  int up = 0;
  std::uint64_t errors = 0, bus_off = 0;
  for (const edge::CanBusExtension& bus : x.can_buses()) up += bus.link_up() ? 1 : 0;
  for (const edge::CanBusHealth& bus : d.can_health()) {
    errors += bus.error_frames();
    bus_off += bus.bus_off_count();
  }
  return Fmt("CAN %d/%d up, %llu error frames, %llu bus-off", up, d.can_health_size(),
             static_cast<unsigned long long>(errors), static_cast<unsigned long long>(bus_off));
}

std::uint64_t TotalDrops(const edge::DiagnosticsExtension& d) {
  std::uint64_t total = 0;
  for (const edge::DropCounter& drop : d.command_drops()) total += drop.count();
  return total;
}

std::string CanTable(const edge::EdgeDiagnostics& d, const edge::DiagnosticsExtension& x) {
  std::string out = Fmt("%-12s %-7s %-4s %-13s %10s %10s %6s %7s %9s %7s %8s %5s %4s %4s\n",
                        "CAN bus", "iface", "link", "state", "sent", "received", "errors",
                        "bus-off", "send-fail", "missed", "overflow", "load", "TEC", "REC");
  for (int i = 0; i < d.can_health_size(); ++i) {
    const edge::CanBusHealth& b = d.can_health(i);
    const edge::CanBusExtension& e =
        i < x.can_buses_size() ? x.can_buses(i) : edge::CanBusExtension::default_instance();
    const std::string state =
        Strip(edge::CanControllerState_Name(e.state()), "CAN_STATE_", e.state());
    out +=
        Fmt("%-12s %-7s %-4s %-13s %10llu %10llu %6llu %7llu %9llu %7llu %8llu %4.0f%% %4u "
            "%4u\n",
            e.name().c_str(), b.interface().c_str(), e.link_up() ? "up" : "DOWN", state.c_str(),
            static_cast<unsigned long long>(b.frames_sent()),
            static_cast<unsigned long long>(b.frames_received()),
            static_cast<unsigned long long>(b.error_frames()),
            static_cast<unsigned long long>(b.bus_off_count()),
            static_cast<unsigned long long>(e.send_failures()),
            static_cast<unsigned long long>(e.missed_replies()),
            static_cast<unsigned long long>(e.rx_overflows()), e.bus_load() * 100.0,
            e.tx_error_counter(), e.rx_error_counter());
  }
  return out;
}

}  // namespace

std::string ModeName(edge::ControlMode mode) {
  switch (mode) {
    case edge::CONTROL_MODE_DAMP: return "DAMP";
    case edge::CONTROL_MODE_STAND: return "STAND";
    case edge::CONTROL_MODE_MOVE_POLICY: return "MOVE/POLICY";
    case edge::CONTROL_MODE_MOVE_TRAJECTORY: return "MOVE/TRAJECTORY";
    case edge::CONTROL_MODE_MOVE_JOINT_STREAM: return "MOVE/JOINT_STREAM";
    default: return "mode " + std::to_string(static_cast<int>(mode));
  }
}

std::string FirmwareModeName(edge::FirmwareMode mode) {
  return Strip(edge::FirmwareMode_Name(mode), "FW_MODE_", mode);
}

std::string FormatTimestamp(std::uint64_t unix_us) {
  const std::time_t seconds = static_cast<std::time_t>(unix_us / 1000000);
  std::tm tm{};
  if (gmtime_r(&seconds, &tm) == nullptr) return std::to_string(unix_us) + " us";
  char date[32];
  std::strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
  return Fmt("%s.%03uZ", date, static_cast<unsigned>(unix_us / 1000 % 1000));
}

std::string FormatAlert(const edge::FirmwareAlert& alert, std::span<const std::string> joints) {
  const std::string name = Strip(edge::AlertId_IsValid(static_cast<int>(alert.id()))
                                     ? edge::AlertId_Name(static_cast<edge::AlertId>(alert.id()))
                                     : std::string(),
                                 "ALERT_", static_cast<int>(alert.id()));
  return name + " (" + SeverityName(alert.severity()) + ") " + AlertDetail(alert, joints);
}

std::string FormatStatus(const edge::Welcome& welcome, const edge::EdgeTelemetry& t,
                         const edge::TelemetryExtension& x) {
  const std::vector<std::string> joints(welcome.joint_names().begin(), welcome.joint_names().end());
  std::string out = Fmt("robot       %s (robot-edged %s, control %.0f Hz, telemetry %.0f Hz)\n",
                        welcome.robot_name().c_str(), welcome.version().c_str(),
                        welcome.control_rate_hz(), welcome.telemetry_rate_hz());
  out += "mode        " + ModeName(x.control_mode()) + " (firmware " +
         FirmwareModeName(t.fw_mode()) + ")\n";
  out += "controller  " + OrNone(welcome.controller()) +
         "  [may command: " + JoinStrings(welcome.controllers()) + "]\n";
  if (!welcome.live_url().empty()) out += "live view   " + welcome.live_url() + "\n";
  if (t.active_alerts_size() == 0) out += "alerts      none\n";
  for (int i = 0; i < t.active_alerts_size(); ++i) {
    out +=
        (i == 0 ? "alerts      " : "            ") + FormatAlert(t.active_alerts(i), joints) + "\n";
  }
  out +=
      Fmt("imu         quat w %.3f x %.3f y %.3f z %.3f  gravity %.2f %.2f %.2f  gyro %.2f "
          "%.2f %.2f rad/s\n",
          At(t.imu_quat(), 0), At(t.imu_quat(), 1), At(t.imu_quat(), 2), At(t.imu_quat(), 3),
          At(t.imu_gravity(), 0), At(t.imu_gravity(), 1), At(t.imu_gravity(), 2),
          At(t.imu_gyro(), 0), At(t.imu_gyro(), 1), At(t.imu_gyro(), 2));
  if (x.has_battery()) out += FormatBattery(x.battery());
  out +=
      Fmt("telemetry   #%u at %s, firmware data %u ms old, error flags 0x%02x, last command "
          "#%u\n\n",
          t.sequence(), FormatTimestamp(t.timestamp_us()).c_str(), t.fw_age_ms(), t.error_flags(),
          x.last_command_sequence());
  return out + JointTable(welcome, t, x);
}

std::string FormatTelemetryLine(const edge::EdgeTelemetry& t, const edge::TelemetryExtension& x,
                                std::span<const std::string> joints,
                                std::span<const std::size_t> shown) {
  std::string out =
      Fmt("#%u %s fw_age=%ums", t.sequence(), ModeName(x.control_mode()).c_str(), t.fw_age_ms());
  std::string alerts;
  for (const edge::FirmwareAlert& a : t.active_alerts()) {
    const std::string name = edge::AlertId_IsValid(static_cast<int>(a.id()))
                                 ? edge::AlertId_Name(static_cast<edge::AlertId>(a.id()))
                                 : std::to_string(a.id());
    if (!alerts.empty()) alerts += ',';
    alerts += Strip(name, "ALERT_", static_cast<int>(a.id()));
  }
  out += " alerts=" + (alerts.empty() ? std::string("-") : alerts);
  out += Fmt(" cmd=#%u", x.last_command_sequence());
  std::size_t hottest = 0, busiest = 0;
  for (std::size_t j = 0; j < static_cast<std::size_t>(t.joint_temp_size()); ++j) {
    if (At(t.joint_temp(), j) > At(t.joint_temp(), hottest)) hottest = j;
  }
  for (std::size_t j = 0; j < static_cast<std::size_t>(t.joint_current_size()); ++j) {
    if (std::abs(At(t.joint_current(), j)) > std::abs(At(t.joint_current(), busiest))) busiest = j;
  }
  if (t.joint_temp_size() > 0) {
    out += Fmt(" maxT=%.1f°C(%s)", At(t.joint_temp(), hottest),
               JointName(joints, static_cast<std::uint32_t>(hottest)).c_str());
  }
  if (t.joint_current_size() > 0) {
    out += Fmt(" maxI=%.2fA(%s)", At(t.joint_current(), busiest),
               JointName(joints, static_cast<std::uint32_t>(busiest)).c_str());
  }
  for (std::size_t j : shown) {
    out += Fmt(" %s=%.3f", JointName(joints, static_cast<std::uint32_t>(j)).c_str(),
               At(t.joint_pos(), j));
  }
  return out;
}

std::string FormatEvent(const edge::EdgeEvent& e, const edge::DiagnosticsExtension& x) {
  std::string out = Fmt("#%u %s ", e.sequence(), FormatTimestamp(e.timestamp_us()).c_str());
  switch (e.event_case()) {
    case edge::EdgeEvent::kError: {
      const edge::EdgeError& error = e.error();
      return out + "error " +
             Strip(edge::Subsystem_Name(error.subsystem()), "SUBSYSTEM_", error.subsystem()) + " " +
             error.code() + ": " + error.message();
    }
    case edge::EdgeEvent::kController: {
      const edge::ControllerEvent& c = e.controller();
      return out + "controller " + OrNone(c.previous()) + " -> " + OrNone(c.current()) + " (" +
             c.reason() + ")";
    }
    case edge::EdgeEvent::kDiagnostics: {
      const edge::EdgeDiagnostics& d = e.diagnostics();
      return out + "diagnostics " + ModeName(x.control_mode()) + ", controller " +
             OrNone(d.controller()) +
             Fmt(", loop %.1f Hz, %llu overruns, jitter %.0f us, ", x.loop_rate_hz(),
                 static_cast<unsigned long long>(x.loop_overruns()), x.period_jitter_us()) +
             CanSummary(d, x) +
             Fmt(", %llu command drops, %u clients", static_cast<unsigned long long>(TotalDrops(x)),
                 x.connected_clients());
    }
    case edge::EdgeEvent::EVENT_NOT_SET: break;
  }
  return out + "(empty event)";
}

std::string FormatDiagnostics(const edge::EdgeEvent& e, const edge::DiagnosticsExtension& x) {
  const edge::EdgeDiagnostics& d = e.diagnostics();
  std::string out =
      Fmt("diagnostics #%u at %s, robot-edged up %llu s\n", e.sequence(),
          FormatTimestamp(e.timestamp_us()).c_str(), static_cast<unsigned long long>(x.uptime_s()));
  out += "control     " + ModeName(x.control_mode()) + ", controller " + OrNone(d.controller()) +
         Fmt(", %u clients, provisioned %s, cloud %s, ble %s\n", x.connected_clients(),
             d.provisioned() ? "yes" : "no", d.cloud_connected() ? "yes" : "no",
             d.ble_connected() ? "yes" : "no");
  if (!x.stop_latched_by().empty()) {
    out += "stop        latched by " + x.stop_latched_by() + "; released by " +
           (x.stop_release_holder().empty() ? std::string()
                                            : "'" + x.stop_release_holder() + "''s STAND or ") +
           "robot-edgectl release-stop\n";
  }
  out +=
      Fmt("loop        %.1f Hz, %llu overruns since start, jitter %.1f us, longest period "
          "%.1f us\n",
          x.loop_rate_hz(), static_cast<unsigned long long>(x.loop_overruns()),
          x.period_jitter_us(), x.period_max_us());
  out += Fmt("policy      %llu inferences, avg %.2f ms, max %.2f ms",
             static_cast<unsigned long long>(d.onnx_count()), d.onnx_avg_ms(), d.onnx_max_ms());
  if (x.onnx_nonfinite_outputs() > 0) {
    out += Fmt(", %llu non-finite outputs (used as 0)",
               static_cast<unsigned long long>(x.onnx_nonfinite_outputs()));
  }
  out += "\n\n";
  out += CanTable(d, x) + "\ncommand drops and adjustments since start:";
  if (x.command_drops_size() == 0) out += " none";
  out += "\n";
  for (const edge::DropCounter& drop : x.command_drops()) {
    out +=
        Fmt("  %-24s %llu\n", drop.reason().c_str(), static_cast<unsigned long long>(drop.count()));
  }
  return out;
}

std::string ToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string out;
  const auto status = google::protobuf::util::MessageToJsonString(message, &out, options);
  if (!status.ok()) return "{\"error\":\"cannot print the message as JSON\"}";
  return out;
}

}  // namespace robot_edge::edgectl
