// A Transport on Linux SocketCAN: ONE non-blocking CAN_RAW socket (owned by an asio socket object)
// bound to every CAN interface (ifindex 0), with each message's interface in its address. A tick
// therefore costs one sendmmsg and one recvmmsg whatever the number of buses — what the robot's
// ARM computer wants, and what lets the tests run the real 500 Hz configuration inside
// user-mode-linux, where a system call costs tens of µs. Setup as in can-utils' candump.c: a kernel
// receive filter for the ids the owner expects (it applies on every interface), error frames
// enabled, a large receive buffer (SO_RCVBUFFORCE when permitted), drop counting (SO_RXQ_OVFL).
// Frames from interfaces that are not ours are discarded.
//
// Link state: sending on an interface that is down fails with ENETDOWN: its frames are counted
// as send failures and link_up goes false until a send succeeds again. An interface deleted and
// re-created gets a new index: it is looked up again, at most every kRelookupInterval.
//
// Threads: constructed at start-up (it throws there); then Send()/Receive() from the owner thread
// only. Neither allocates nor blocks.
#pragma once

#include <sys/socket.h>

#include <array>
#include <asio/generic/raw_protocol.hpp>
#include <asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "can/transport.hpp"

namespace robot_edge::can {

struct SocketCanOptions {
  std::vector<std::string> interfaces;  // bus i is interfaces[i], e.g. {"vcan0", ..., "vcan4"}
  std::vector<can_filter> filters;      // kernel receive filter; empty = only error frames
  int receive_buffer_bytes = 1 << 20;   // SO_RCVBUFFORCE when permitted, else SO_RCVBUF
  bool receive_errors = true;           // CAN_RAW_ERR_FILTER = CAN_ERR_MASK
};

class SocketCanTransport final : public Transport {
 public:
  // Most frames one system call moves.
  static constexpr std::size_t kMaxBatch = 64;
  static constexpr auto kRelookupInterval = std::chrono::milliseconds(500);

  // Opens and binds the socket. Throws std::system_error naming the interface or step that
  // failed (e.g. "vcan3: no such CAN interface"). `io` only hosts the socket object: the owner
  // polls it, and the daemon passes an io_context that is never run.
  SocketCanTransport(asio::io_context& io, SocketCanOptions options);

  std::size_t bus_count() const override { return buses_.size(); }
  std::size_t Send(std::span<const BusFrame> frames) override;
  std::size_t Receive(std::span<BusFrame> out) override;
  const BusCounters& counters(std::size_t bus) const override { return buses_[bus]->counters; }
  const std::string& interface(std::size_t bus) const override { return buses_[bus]->name; }
  std::uint64_t rx_overflows() const override {
    return rx_overflows_.load(std::memory_order_relaxed);
  }

  // The socket, e.g. to wait for readability with async_wait (robot-edge-sim does).
  asio::generic::raw_protocol::socket& socket() { return socket_; }

 private:
  struct Bus {
    std::string name;
    std::string sysfs_path;  // "/sys/class/net/<name>" if sysfs shows this namespace, else ""
    int ifindex = 0;         // 0 while the interface is gone
    sockaddr_can address{};  // where its frames are sent
    BusCounters counters;
    bool skip = false;  // scratch of Send(): its link failed during this call
  };

  // The bus of a received message, or -1 when the interface is not ours.
  int BusOf(int ifindex) const;
  // One sendmmsg of frames[from..] (those of buses marked `skip` are counted as failures);
  // adds the frames sent to *sent; returns the index to continue from.
  std::size_t SendSome(std::span<const BusFrame> frames, std::size_t from, std::size_t* sent);
  void OnSendError(Bus* bus, int error);
  void RelookupVanished();

  std::vector<std::unique_ptr<Bus>> buses_;
  asio::generic::raw_protocol::socket socket_;
  std::atomic<std::uint64_t> rx_overflows_{0};
  std::chrono::steady_clock::time_point next_relookup_{};
  bool any_vanished_ = false;

  // Receive scratch, preallocated: header, frame, source address and control buffer per message.
  std::array<mmsghdr, kMaxBatch> rx_headers_{};
  std::array<iovec, kMaxBatch> rx_iov_{};
  std::array<can_frame, kMaxBatch> rx_frames_{};
  std::array<sockaddr_can, kMaxBatch> rx_from_{};
  std::array<std::array<char, CMSG_SPACE(sizeof(std::uint32_t))>, kMaxBatch> rx_control_{};
  // Send scratch.
  std::array<mmsghdr, kMaxBatch> tx_headers_{};
  std::array<iovec, kMaxBatch> tx_iov_{};
  std::array<std::size_t, kMaxBatch> tx_index_{};  // header -> index into the frames
};

}  // namespace robot_edge::can
