// A fixed-capacity list of events: filled on the control thread without allocating; events
// beyond the capacity are counted, not stored.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "statemachine/io.hpp"

namespace robot_edge::sm {

class EventBuffer {
 public:
  explicit EventBuffer(std::size_t capacity) { events_.reserve(capacity); }

  void Push(const Event& event) {
    if (events_.size() < events_.capacity()) {
      events_.push_back(event);
    } else {
      ++dropped_;
    }
  }
  void Clear() { events_.clear(); }
  std::span<const Event> events() const { return events_; }
  std::uint64_t dropped() const { return dropped_; }  // since construction

 private:
  std::vector<Event> events_;
  std::uint64_t dropped_ = 0;
};

}  // namespace robot_edge::sm
