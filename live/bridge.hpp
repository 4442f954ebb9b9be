// Bridge: robot-edge-live's side of robot-edged's API. It connects to robot-edged's Unix socket
// as an observer, asks the state stream (StateStreamRequest) at the control rate, and republishes
// what arrives on the live view's channels, with the names and schemas the recorder gives them:
//   /joint_state  edge.JointState     the state stream
//   /telemetry    edge.EdgeTelemetry  the observer's telemetry
//   /events       edge.EdgeEvent      system events
//   /diagnostics  edge.DiagnosticsExtension, beside an event that carries one
// The dashboard's DAMP (RequestDamp) goes over a second observer connection of its own, which
// carries nothing else it must read quickly, so that a busy state stream never delays it.
//
// Threads: the owner's thread runs Run(); RequestDamp() and connected() may be called from any
// thread (the live thread's service handler). When robot-edged is not up, or goes away, Run()
// retries with a back-off (kMinBackoff doubling to kMaxBackoff) and reports each change through
// its `report` callback (the log and sd_notify's STATUS).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "client/client.hpp"
#include "client/commands.hpp"
#include "live/live_server.hpp"

namespace robot_edge::live {

struct BridgeOptions {
  std::string api_socket;     ///< robot-edged's Unix socket (config api.unix_socket)
  std::uint32_t rate_hz = 0;  ///< the state stream's rate: config control.rate_hz
  std::chrono::milliseconds min_backoff{100};   ///< first retry after a failed connection
  std::chrono::milliseconds max_backoff{5000};  ///< the retries' period at most
};

// What Run() reports: connected (with a line for the log) or not (with the reason).
using BridgeReport = std::function<void(bool connected, const std::string& line)>;

class Bridge {
 public:
  // Advertises the four channels on `server` (which outlives the bridge).
  Bridge(BridgeOptions options, LiveServer* server);
  ~Bridge();
  Bridge(const Bridge&) = delete;
  Bridge& operator=(const Bridge&) = delete;

  // Until `stop`: connects, streams, republishes, sends the DAMPs asked for, reconnects.
  void Run(const std::atomic<bool>& stop, const BridgeReport& report);

  // Any thread, never blocks: asks Run() to send a ModeCommand(DAMP) at once. False when
  // robot-edged is not connected (nothing will be sent: the caller says so).
  bool RequestDamp();
  bool connected() const { return connected_.load(std::memory_order_relaxed); }

 private:
  struct Channels {
    std::uint32_t joint_state = 0, telemetry = 0, events = 0, diagnostics = 0;
  };

  void Connect();                             // both connections; throws client::ClientError
  void Serve(const std::atomic<bool>& stop);  // until stop or a ClientError
  void Republish(const edge::ServerMessage& message);
  void SendDamp();  // on damp_, else a fresh connection; logs the outcome

  BridgeOptions options_;
  LiveServer* server_;
  Channels channels_;
  int wake_fd_ = -1;  // eventfd: RequestDamp() -> Run()
  std::atomic<bool> damp_asked_{false};
  std::atomic<bool> connected_{false};
  // Run()'s thread only:
  std::optional<client::Client> stream_;  // observer with the state stream
  std::optional<client::Client> damp_;    // observer without telemetry: DAMP only
  client::Sequencer sequencer_;           // damp_'s commands
  std::string robot_name_;
  std::string bytes_;
};

}  // namespace robot_edge::live
