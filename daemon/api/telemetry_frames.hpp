// The telemetry frame of each period, built once and shared by every client, without heap
// allocation in steady state: the ServerMessage is kept and cleared (protobuf keeps the repeated
// fields' capacity), and the serialized frames come from a FramePool.
//
// Threads: the API thread's.
#pragma once

#include <memory>
#include <string>

#include "config/config.hpp"
#include "daemon/api/event_log.hpp"
#include "daemon/api/frame_pool.hpp"
#include "daemon/api/messages.hpp"
#include "daemon/channels/snapshot.hpp"
#include "edge_api.pb.h"

namespace robot_edge::daemon {

class TelemetryFrames {
 public:
  explicit TelemetryFrames(const config::Config& config);

  // EdgeTelemetry of `snapshot` as a length-prefixed ServerMessage.
  Frame Build(const ControlSnapshot& snapshot, std::uint32_t sequence, const Clocks& now);

 private:
  const config::Config& config_;
  edge::ServerMessage message_;
  FramePool frames_{8, 4096};  // 25 joints: ~1.2 KB a frame
};

}  // namespace robot_edge::daemon
