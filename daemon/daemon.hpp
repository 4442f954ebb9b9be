// robot-edged: opens the CAN buses, starts the control thread, serves the API, and shuts down
// through the event loop on SIGTERM / SIGINT (DAMP on every motor, then out of motor mode).
//
// Threads: Run() is the API thread (the io_context's); it starts and joins the control thread.
#pragma once

#include <string>

#include "config/config.hpp"

namespace robot_edge::daemon {

struct DaemonOptions {
  std::string api_socket;  // overrides config api.unix_socket when not empty
};

// Runs until SIGTERM / SIGINT. Returns the process exit code: 0 after a clean shutdown, 1 when
// start-up failed (the reason is logged).
int RunDaemon(const config::Config& config, const DaemonOptions& options);

inline constexpr const char* kVersion = ROBOT_EDGE_VERSION;

}  // namespace robot_edge::daemon
