// The reliable system-event stream: numbers each EdgeEvent, frames it once for every client,
// and keeps the most recent ones so that a client reconnecting with resume_after_event gets
// what it missed, in order. Sequence numbers start at 1 when the daemon starts.
//
// Threads: the API thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "edge_api.pb.h"

namespace robot_edge::daemon {

using Frame = std::shared_ptr<const std::string>;  // a length-prefixed ServerMessage

class EventLog {
 public:
  explicit EventLog(std::size_t capacity) : capacity_(capacity) {}

  // Stamps `event` with the next sequence and `wall_us`, keeps it, returns it framed, with
  // `diagnostics_extension` beside it when given (an EdgeDiagnostics event's additions).
  Frame Append(edge::EdgeEvent event, std::uint64_t wall_us,
               const edge::DiagnosticsExtension* diagnostics_extension = nullptr);

  // Kept events with a sequence greater than `after`, oldest first.
  std::vector<Frame> Since(std::uint32_t after) const;

  std::uint32_t last_sequence() const { return next_sequence_ - 1; }
  // Oldest sequence still kept (0 when none).
  std::uint32_t oldest_sequence() const { return kept_.empty() ? 0 : kept_.front().sequence; }

 private:
  struct Kept {
    std::uint32_t sequence;
    Frame frame;
  };
  std::size_t capacity_;
  std::uint32_t next_sequence_ = 1;
  std::deque<Kept> kept_;
};

}  // namespace robot_edge::daemon
