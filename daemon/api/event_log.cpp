#include "daemon/api/event_log.hpp"

#include <algorithm>

#include "proto/framing.hpp"

namespace robot_edge::daemon {

Frame EventLog::Append(edge::EdgeEvent event, std::uint64_t wall_us,
                       const edge::DiagnosticsExtension* diagnostics_extension) {
  event.set_sequence(next_sequence_);
  event.set_timestamp_us(wall_us);
  edge::ServerMessage message;
  *message.mutable_event() = std::move(event);
  if (diagnostics_extension != nullptr) {
    *message.mutable_diagnostics_extension() = *diagnostics_extension;
  }
  auto framed = std::make_shared<std::string>();
  proto::AppendDelimited(message, framed.get());
  kept_.push_back({next_sequence_, framed});
  if (kept_.size() > capacity_) kept_.pop_front();
  ++next_sequence_;
  return framed;
}

std::vector<Frame> EventLog::Since(std::uint32_t after) const {
  std::vector<Frame> frames;
  const auto first = std::find_if(kept_.begin(), kept_.end(),
                                  [after](const Kept& k) { return k.sequence > after; });
  for (auto it = first; it != kept_.end(); ++it) frames.push_back(it->frame);
  return frames;
}

}  // namespace robot_edge::daemon
