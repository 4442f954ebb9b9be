// "Restart to apply the configuration" (edge_api.proto ApplyConfigRequest) on the API thread:
// who may ask, when, and the check of the file on disk.
//
//   - Only a controller of api.maintenance_controllers or api.apply_config_controllers, only in
//     DAMP with no jog running and no stop latched (a restart must not be a way around an
//     operator's stop; every refusal says why).
//   - The file robot-edged was started with (config.source) is read and validated again, as at
//     start (config::LoadConfig, calibration included): invalid, the result lists every problem
//     by key and nothing else happens.
//   - Asked by a controller that is not a maintenance controller (the fleet's): a file that
//     changes a protected section (config/fleet_guard.hpp) is refused, naming each.
//   - Valid: the result is ok and the caller shuts robot-edged down as on SIGTERM, exiting with
//     kExitRestartToApply, which the systemd unit restarts (RestartForceExitStatus=).
//
// Threads: the API thread's. Reads the snapshot; reads one file (the config, its calibration).
#pragma once

#include <string>

#include "config/config.hpp"
#include "daemon/channels/snapshot.hpp"
#include "edge_api.pb.h"

namespace robot_edge::daemon {

// robot-edged's exit status after an accepted ApplyConfigRequest (EX_TEMPFAIL).
inline constexpr int kExitRestartToApply = 75;

// Why something is refused while `latch` holds, and what releases it.
std::string StopLatchedRefusal(const sm::StopLatch& latch);

// The answer to `request` from `controller`: ok = shut down and restart.
edge::MaintenanceResult CheckApplyConfig(const config::Config& running,
                                         const std::string& controller, const ControlSnapshot& s,
                                         const edge::MaintenanceRequest& request);

}  // namespace robot_edge::daemon
