#include "daemon/api/telemetry_frames.hpp"

#include "proto/framing.hpp"

namespace robot_edge::daemon {

TelemetryFrames::TelemetryFrames(const config::Config& config) : config_(config) {}

Frame TelemetryFrames::Build(const ControlSnapshot& snapshot, std::uint32_t sequence,
                             const Clocks& now) {
  FillTelemetry(snapshot, config_, sequence, now, message_.mutable_telemetry(),
                message_.mutable_telemetry_extension());
  std::shared_ptr<std::string> frame = frames_.Take();
  proto::AppendDelimited(message_, frame.get());
  return frame;
}

}  // namespace robot_edge::daemon
