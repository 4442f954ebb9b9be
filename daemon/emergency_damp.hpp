// `robot-edged --emergency-damp --config FILE`: sends DAMP and then exit-motor-mode to every
// motor, and exits. The unit runs it as ExecStopPost=, so that every way the daemon can end —
// SIGKILL and the watchdog's kill included — ends with DAMP on the wire. It takes no bus lock and
// needs nothing from a daemon: it must work when one died, and when the config no longer parses.
//
// Where the frames come from, first that works:
//   1. the DAMP plan the daemon wrote at start-up (daemon/damp_plan.hpp): pre-encoded, no config
//      read at all; a plan that is missing or corrupt (its checksum) is said and skipped;
//   2. the config read leniently (config/lenient.hpp): buses and motors only.
// It says on stderr which one it used.
#pragma once

#include <string>

namespace robot_edge::daemon {

struct EmergencyDampOptions {
  std::string config_path;  // --config
  std::string plan_path;    // DampPlanPath($RUNTIME_DIRECTORY)
};

// Returns the exit code: 0 when every frame went out and its source was sound (the plan, or a
// config that validates); 1 otherwise (the buses or frames that failed, or the config's problems,
// are named on stderr, after the frames were sent).
int RunEmergencyDamp(const EmergencyDampOptions& options);

}  // namespace robot_edge::daemon
