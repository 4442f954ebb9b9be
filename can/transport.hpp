// The robot's CAN buses as the rest of the code sees them: send one batch of frames (each to its
// bus), take the frames that arrived (each from its bus), read per-bus counters. One batch for
// every bus means a tick costs the same few system calls whatever the number of buses (the model:
// moteus_transport.h's Cycle()). Implementations: SocketCanTransport (the kernel's CAN_RAW) and
// FakeTransport (unit tests of logic).
//
// Threads: Send() and Receive() are called by one thread, the transport's owner (the control
// thread in the daemon). counters() may be read from any thread.
#pragma once

#include <linux/can.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace robot_edge::can {

// A kernel receive filter (CAN_RAW_FILTER) that accepts exactly this standard (11-bit) id.
inline can_filter ExactStandardId(canid_t id) {
  return can_filter{id, CAN_SFF_MASK | CAN_EFF_FLAG | CAN_RTR_FLAG};
}

// A frame and the bus it travels on (an index into the transport's buses).
struct BusFrame {
  std::uint32_t bus = 0;
  can_frame frame{};
};

// Counters of one bus since the transport opened. Written only by the owner thread; any thread
// may read them (each value is exact on its own; several read together are not one snapshot).
struct BusCounters {
  std::atomic<std::uint64_t> frames_sent{0};
  std::atomic<std::uint64_t> frames_received{0};  // data frames handed to the caller
  std::atomic<std::uint64_t> error_frames{0};     // CAN error frames (CAN_ERR_FLAG)
  std::atomic<std::uint64_t> bus_off_count{0};    // error frames announcing bus-off
  std::atomic<std::uint64_t> send_failures{0};    // frames not sent (ENOBUFS, EAGAIN, link down)
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

class Transport {
 public:
  virtual ~Transport() = default;

  virtual std::size_t bus_count() const = 0;

  // Queues every frame for transmission on its bus without blocking. Frames the kernel will not
  // take now (ENOBUFS, EAGAIN, interface down) are dropped and counted in send_failures: the
  // caller sends fresh data on its next tick rather than stale data late. Returns how many were
  // queued.
  virtual std::size_t Send(std::span<const BusFrame> frames) = 0;

  // Moves up to out.size() received data frames, from any bus, into `out` without blocking and
  // returns how many. Error frames are consumed here: counted, and bus-off tracked.
  virtual std::size_t Receive(std::span<BusFrame> out) = 0;

  virtual const BusCounters& counters(std::size_t bus) const = 0;
  virtual const std::string& interface(std::size_t bus) const = 0;
  // Frames the kernel dropped because the receive buffer was full (SO_RXQ_OVFL), all buses.
  virtual std::uint64_t rx_overflows() const { return 0; }
};

}  // namespace robot_edge::can
