// The telemetry frame of each period, built once and shared by every client, without heap
// allocation in steady state: the ServerMessage is kept and cleared (protobuf keeps the repeated
// fields' capacity), and the serialized frames come from a small pool — a frame is reused once no
// session holds it any more (its use count is back to one).
//
// Threads: the API thread's.
#pragma once

#include <array>
#include <memory>
#include <string>

#include "config/config.hpp"
#include "daemon/event_log.hpp"
#include "daemon/messages.hpp"
#include "daemon/snapshot.hpp"
#include "edge_api.pb.h"

namespace robot_edge::daemon {

class TelemetryFrames {
 public:
  // More frames than this held by slow sessions at once: a new one is allocated (and kept).
  static constexpr std::size_t kPoolSize = 8;

  explicit TelemetryFrames(const config::Config& config);

  // EdgeTelemetry of `snapshot` as a length-prefixed ServerMessage.
  Frame Build(const ControlSnapshot& snapshot, std::uint32_t sequence, const Clocks& now);

 private:
  std::shared_ptr<std::string> FreeFrame();

  const config::Config& config_;
  edge::ServerMessage message_;
  std::array<std::shared_ptr<std::string>, kPoolSize> pool_;
  std::size_t next_ = 0;
};

}  // namespace robot_edge::daemon
