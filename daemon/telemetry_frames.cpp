#include "daemon/telemetry_frames.hpp"

#include "proto/framing.hpp"

namespace robot_edge::daemon {

TelemetryFrames::TelemetryFrames(const config::Config& config) : config_(config) {
  for (auto& frame : pool_) {
    frame = std::make_shared<std::string>();
    frame->reserve(4096);  // 25 joints: ~1.2 KB
  }
}

std::shared_ptr<std::string> TelemetryFrames::FreeFrame() {
  for (std::size_t i = 0; i < pool_.size(); ++i) {
    auto& frame = pool_[(next_ + i) % pool_.size()];
    if (frame.use_count() == 1) {  // no session holds it
      next_ = (next_ + i + 1) % pool_.size();
      frame->clear();
      return frame;
    }
  }
  // Every pooled frame is still queued somewhere: this one replaces the oldest in the pool.
  auto& oldest = pool_[next_];
  next_ = (next_ + 1) % pool_.size();
  oldest = std::make_shared<std::string>();
  return oldest;
}

Frame TelemetryFrames::Build(const ControlSnapshot& snapshot, std::uint32_t sequence,
                             const Clocks& now) {
  FillTelemetry(snapshot, config_, sequence, now, message_.mutable_telemetry(),
                message_.mutable_telemetry_extension());
  std::shared_ptr<std::string> frame = FreeFrame();
  proto::AppendDelimited(message_, frame.get());
  return frame;
}

}  // namespace robot_edge::daemon
