// One CAN bus, as the rest of the code sees it: send a batch of frames, take the frames that
// arrived, read the counters. Implementations: SocketCanBus (the kernel's CAN_RAW) and FakeBus
// (unit tests). The model: moteus_transport.h.
//
// Threads: Send() and Receive() are called by one thread, the bus's owner (the control thread in
// the daemon). counters() may be read from any thread.
#pragma once

#include <linux/can.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace robot_edge::can {

// Counters of one bus since it opened. Written only by the owner thread; any thread may read
// them (each value is exact on its own; several values read together are not one snapshot).
struct BusCounters {
  std::atomic<std::uint64_t> frames_sent{0};
  std::atomic<std::uint64_t> frames_received{0};  // data frames handed to the caller
  std::atomic<std::uint64_t> error_frames{0};     // CAN error frames (CAN_ERR_FLAG)
  std::atomic<std::uint64_t> bus_off_count{0};    // error frames announcing bus-off
  std::atomic<std::uint64_t> send_failures{0};    // frames not sent (ENOBUFS, EAGAIN, link down)
  std::atomic<std::uint64_t> rx_overflows{0};     // frames the kernel dropped (SO_RXQ_OVFL)
  std::atomic<std::uint64_t> link_down_count{0};  // times the interface was found down
  std::atomic<bool> link_up{true};
  // Set by a bus-off error frame; cleared by a "controller restarted" error frame or by the
  // next data frame received (the bus works again).
  std::atomic<bool> bus_off{false};

  // Single-writer increment: a plain load and store, no locked instruction.
  static void Add(std::atomic<std::uint64_t>& counter, std::uint64_t n) {
    counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
};

class Bus {
 public:
  virtual ~Bus() = default;

  // Queues `frames` for transmission without blocking. Frames the kernel will not take now
  // (ENOBUFS, EAGAIN, interface down) are dropped and counted in send_failures: the caller sends
  // fresh data on its next tick rather than stale data late. Returns how many were queued.
  virtual std::size_t Send(std::span<const can_frame> frames) = 0;

  // Moves up to out.size() received data frames into `out` without blocking and returns how
  // many. Error frames are consumed here: counted, and bus-off tracked in counters().
  virtual std::size_t Receive(std::span<can_frame> out) = 0;

  virtual const BusCounters& counters() const = 0;
  virtual const std::string& interface() const = 0;
};

}  // namespace robot_edge::can
