// robot-edged: opens the CAN buses, starts the control thread, serves the API, and shuts down
// through the event loop on SIGTERM / SIGINT (DAMP on every motor, then out of motor mode).
//
// Threads: Run() is the API thread (the io_context's); it starts and joins the control thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "can/socketcan/link_supervisor.hpp"
#include "can/transport.hpp"
#include "config/config.hpp"

namespace robot_edge::daemon {

struct DaemonOptions {
  std::string api_socket;  // overrides config api.unix_socket when not empty
  // Where the DAMP plan for --emergency-damp is written at start (daemon/damp_plan.hpp); empty:
  // none.
  std::string damp_plan_path;
  // Where a latched stop is kept across restarts (daemon/api/stop_latch_file.hpp); empty: a stop
  // lasts only the process.
  std::string stop_latch_path;
};

// What the control thread drives: the configured SocketCAN interfaces (OpenCanBuses), or in the
// tests a simulated robot in memory. Owned by the daemon; torn down after the control thread.
class Buses {
 public:
  virtual ~Buses() = default;
  // The control thread's transport (Send and Receive on that thread only).
  virtual can::Transport& transport() = 0;
  // Per bus, its controller's supervision (bitrate, bus-off restart); empty: none. Called once.
  virtual std::vector<std::unique_ptr<can::CanLink>> TakeLinks() { return {}; }
  // The socket a fatal signal writes every motor's DAMP frame to; -1: none.
  virtual int emergency_socket() const { return -1; }
};

// Claims (against another daemon), configures and opens every bus of `config`; throws with a
// clear message naming the bus that cannot be used.
std::unique_ptr<Buses> OpenCanBuses(const config::Config& config);

// The live view's URL for Welcome.live_url: robot-edge-live serves it (a process of its own, a
// client of this API), at the config's live.address, https:// with live.tls. "" when the live
// view is off, or when the port is 0 (robot-edge-live picks it: only its log knows).
std::string LiveUrl(const config::LiveConfig& live);

using BusOpener = std::function<std::unique_ptr<Buses>(const config::Config&)>;

// Runs until SIGTERM / SIGINT. Returns the process exit code: 0 after a clean shutdown, 75
// (kExitRestartToApply) after the same shutdown asked by an ApplyConfigRequest, 1 when
// start-up failed (the reason is logged). `open_buses` is called once during start-up.
int RunDaemon(const config::Config& config, const DaemonOptions& options,
              const BusOpener& open_buses = OpenCanBuses);

inline constexpr const char* kVersion = ROBOT_EDGE_VERSION;

}  // namespace robot_edge::daemon
