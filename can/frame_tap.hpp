// A Transport that passes everything through to another and copies each data frame, with when
// it was handed over and which way it went, into a lock-free queue for another thread: the flight
// recorder's raw CAN channel (/can). The copy is lossy: a full queue loses the frame (counted in
// lost()); it never waits, allocates or throws.
//
// Threads: Send() and Receive() on the transport's owner (the control thread, the producer);
// frames() is drained by one other thread (the recorder, the consumer). set_enabled() and lost()
// from any thread.
#pragma once

#include <atomic>
#include <cstdint>

#include "can/transport.hpp"
#include "handoff/spsc_queue.hpp"

namespace robot_edge::can {

struct TappedFrame {
  std::int64_t time_us = 0;  // the tap's clock (steady µs) when the batch was handed over
  BusFrame frame{};
  bool sent = false;  // true: handed to the bus (a frame the kernel refused is still here,
                      // and counted in the bus's send_failures); false: received
};

class FrameTap final : public Transport {
 public:
  using Clock = std::int64_t (*)();  // steady µs; one reading per Send() / Receive() batch

  // `inner` must outlive the tap. The queue holds `capacity` frames.
  FrameTap(Transport& inner, std::size_t capacity, Clock clock);

  std::size_t Send(std::span<const BusFrame> frames) override;
  std::size_t Receive(std::span<BusFrame> out) override;
  std::size_t bus_count() const override { return inner_.bus_count(); }
  const BusCounters& counters(std::size_t bus) const override { return inner_.counters(bus); }
  const std::string& interface(std::size_t bus) const override { return inner_.interface(bus); }
  std::uint64_t rx_overflows() const override { return inner_.rx_overflows(); }

  // Copying is off until enabled (the recorder turns it on while it wants the frames).
  void set_enabled(bool on) { enabled_.store(on, std::memory_order_relaxed); }
  SpscQueue<TappedFrame>& frames() { return frames_; }
  // Frames not copied because the queue was full.
  std::uint64_t lost() const { return lost_.load(std::memory_order_relaxed); }

 private:
  void Copy(std::span<const BusFrame> frames, bool sent);

  Transport& inner_;
  Clock clock_;
  SpscQueue<TappedFrame> frames_;
  std::atomic<bool> enabled_{false};
  std::atomic<std::uint64_t> lost_{0};
};

}  // namespace robot_edge::can
