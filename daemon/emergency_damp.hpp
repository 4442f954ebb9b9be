// `robot-edged --emergency-damp --config FILE`: opens the configured buses, sends DAMP and then
// exit-motor-mode to every configured motor, and exits. The unit runs it as ExecStopPost=, so
// that every way the daemon can end — SIGKILL and the watchdog's kill included — ends with DAMP on
// the wire. It takes no bus lock and needs nothing from a daemon: it must work when one died.
#pragma once

#include "config/config.hpp"

namespace robot_edge::daemon {

// Returns the exit code: 0 when every frame went out, 1 otherwise (the buses or frames that
// failed are named on stderr).
int RunEmergencyDamp(const config::Config& config);

}  // namespace robot_edge::daemon
