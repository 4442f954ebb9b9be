#include "can/frame_tap.hpp"

namespace robot_edge::can {

FrameTap::FrameTap(Transport& inner, std::size_t capacity, Clock clock)
    : inner_(inner), clock_(clock), frames_(capacity) {}

std::size_t FrameTap::Send(std::span<const BusFrame> frames) {
  const std::size_t queued = inner_.Send(frames);
  Copy(frames, /*sent=*/true);
  return queued;
}

std::size_t FrameTap::Receive(std::span<BusFrame> out) {
  const std::size_t n = inner_.Receive(out);
  Copy(out.first(n), /*sent=*/false);
  return n;
}

void FrameTap::Copy(std::span<const BusFrame> frames, bool sent) {
  if (frames.empty() || !enabled_.load(std::memory_order_relaxed)) return;
  const std::int64_t now_us = clock_();
  std::uint64_t lost = 0;
  for (const BusFrame& f : frames) {
    TappedFrame* slot = frames_.Reserve();
    if (slot == nullptr) {
      ++lost;
      continue;
    }
    slot->time_us = now_us;
    slot->frame = f;
    slot->sent = sent;
    frames_.Commit();
  }
  if (lost > 0) BusCounters::Add(lost_, lost);
}

}  // namespace robot_edge::can
