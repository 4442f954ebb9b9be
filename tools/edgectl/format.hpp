// How robot-edgectl prints the API's messages (pure: strings in, strings out).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "edge_api.pb.h"

namespace google::protobuf {
class Message;
}

namespace robot_edge::edgectl {

// "DAMP", "STAND", "MOVE/POLICY", "MOVE/TRAJECTORY".
std::string ModeName(edge::ControlMode mode);
// "DAMP", "STAND", "MOVE".
std::string FirmwareModeName(edge::FirmwareMode mode);
// "2024-06-01 12:00:00.123Z" (UTC) from µs since the Unix epoch.
std::string FormatTimestamp(std::uint64_t unix_us);

// One alert, e.g. "MOTOR_OVERTEMP (critical) L_Knee: 82 °C >= 80 °C".
std::string FormatAlert(const edge::FirmwareAlert& alert, std::span<const std::string> joints);

// robot-edgectl status: the Welcome's summary and one telemetry frame (mode, alerts, IMU and
// the per-joint table). Several lines, each ending in '\n'.
std::string FormatStatus(const edge::Welcome& welcome, const edge::EdgeTelemetry& telemetry,
                         const edge::TelemetryExtension& extension);

// robot-edgectl watch: one line (no '\n') per frame. `shown` are joint indices whose positions
// are appended.
std::string FormatTelemetryLine(const edge::EdgeTelemetry& telemetry,
                                const edge::TelemetryExtension& extension,
                                std::span<const std::string> joints,
                                std::span<const std::size_t> shown);

// robot-edgectl events: one line (no '\n'); diagnostics summarised, with robot-edge's additions
// (the ServerMessage's diagnostics_extension) when given.
std::string FormatEvent(
    const edge::EdgeEvent& event,
    const edge::DiagnosticsExtension& extension = edge::DiagnosticsExtension::default_instance());

// robot-edgectl diag: the full diagnostics: loop timing, CAN bus table, drop counters.
std::string FormatDiagnostics(const edge::EdgeEvent& event,
                              const edge::DiagnosticsExtension& extension);

// A message as one line of JSON with the proto field names and every field, even zero / empty
// (a DAMP mode is 0 and must not vanish).
std::string ToJson(const google::protobuf::Message& message);

}  // namespace robot_edge::edgectl
