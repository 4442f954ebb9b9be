// The public API's messages built from plain values (pure: clocks are passed in).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/config.hpp"
#include "daemon/channels/snapshot.hpp"
#include "edge_api.pb.h"
#include "statemachine/io.hpp"

namespace robot_edge::daemon {

// The same instant on the steady clock (control loop's) and the wall clock (clients').
struct Clocks {
  std::int64_t steady_us = 0;
  std::uint64_t wall_us = 0;

  // Wall-clock time of steady-clock time `t_us`.
  std::uint64_t ToWall(std::int64_t t_us) const {
    return wall_us - static_cast<std::uint64_t>(steady_us - t_us);
  }
};

// fw_age_ms when no motor has ever replied.
inline constexpr std::uint32_t kNeverAgeMs = 0xFFFFFFFF;

edge::ControlMode ToProto(sm::Mode mode);
edge::FirmwareMode ToFirmwareProto(sm::Mode mode);
edge::FirmwareAlert ToProto(const sm::Alert& alert, const Clocks& now);

// EdgeTelemetry and robot-edge's TelemetryExtension from the latest snapshot. Media timestamps
// stay 0: no camera or audio here.
void FillTelemetry(const ControlSnapshot& snapshot, const config::Config& config,
                   std::uint32_t sequence, const Clocks& now, edge::EdgeTelemetry* out,
                   edge::TelemetryExtension* extension);

// The battery's state from its last reading `b` and the energy drawn since start (`wh`).
edge::BatteryStatus ToProto(sm::BatteryStatus status);
void FillBattery(const sm::BatteryMeasurement& b, double wh, edge::BatteryState* out);

// robot-edge's diagnostics from the control thread's snapshot: the loop's timing over the last
// period, the mode, and every drop / adjustment reason with its count since start
// (`api_counters`, the API thread's, plus the snapshot's, the control thread's).
void FillLoopDiagnostics(const ControlSnapshot& snapshot, const sm::Counters& api_counters,
                         edge::DiagnosticsExtension* out);

// The EdgeError a state machine event calls for, if any: raised alerts, trajectory timeouts,
// blocked mode changes and policy faults. `controller` is who holds control (names the
// subsystem of a timeout); `policy_failure` what the inference thread failed with (kFailed).
std::optional<edge::EdgeError> ErrorFor(const sm::Event& event, const config::Config& config,
                                        const std::string& controller,
                                        std::string_view policy_failure = {});

// A MaintenanceResult that says why not.
edge::MaintenanceResult MaintenanceError(std::uint32_t request_id, std::string error);

// The subsystem of the client's controller (SUBSYSTEM_BLE for "ble", else SUBSYSTEM_CLOUD, or
// SUBSYSTEM_FIRMWARE when nobody holds control).
edge::Subsystem SubsystemOfController(const std::string& controller);

// One line for the log.
std::string Describe(const sm::Event& event, const config::Config& config);

}  // namespace robot_edge::daemon
