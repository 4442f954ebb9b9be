#include "can/fake_bus.hpp"

#include <algorithm>

#include "can/error_frame.hpp"

namespace robot_edge::can {

FakeBus::FakeBus(std::string interface, std::size_t capacity) : interface_(std::move(interface)) {
  sent_.reserve(capacity);
  inbox_.reserve(capacity);
}

std::size_t FakeBus::Send(std::span<const can_frame> frames) {
  const std::size_t accepted =
      counters_.link_up.load() ? std::min(frames.size(), send_limit_) : std::size_t{0};
  sent_.insert(sent_.end(), frames.begin(), frames.begin() + static_cast<std::ptrdiff_t>(accepted));
  BusCounters::Add(counters_.frames_sent, accepted);
  BusCounters::Add(counters_.send_failures, frames.size() - accepted);
  return accepted;
}

std::size_t FakeBus::Receive(std::span<can_frame> out) {
  std::size_t count = 0;
  while (count < out.size() && inbox_read_ < inbox_.size()) {
    const can_frame& frame = inbox_[inbox_read_++];
    if (IsErrorFrame(frame)) {
      CountErrorFrame(frame, &counters_);
      continue;
    }
    out[count++] = frame;
    counters_.bus_off.store(false, std::memory_order_relaxed);
  }
  if (inbox_read_ == inbox_.size()) {
    inbox_.clear();
    inbox_read_ = 0;
  }
  BusCounters::Add(counters_.frames_received, count);
  return count;
}

void FakeBus::Inject(const can_frame& frame) { inbox_.push_back(frame); }

}  // namespace robot_edge::can
