// A Bus on a Linux SocketCAN interface: one non-blocking CAN_RAW socket (owned by an asio
// socket object), a kernel receive filter for the ids the owner expects, error frames enabled,
// a large receive buffer, drop counting (SO_RXQ_OVFL), and batched system calls: one sendmmsg per
// Send(), one recvmmsg per batch in Receive() (the model: can-utils' candump.c for the setup).
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
#include <string>
#include <vector>

#include "can/bus.hpp"

namespace robot_edge::can {

struct SocketCanOptions {
  std::string interface;            // e.g. "vcan0"
  std::vector<can_filter> filters;  // kernel receive filter; empty = receive nothing but errors
  int receive_buffer_bytes = 1 << 20;  // SO_RCVBUFFORCE when permitted, else SO_RCVBUF
  bool receive_errors = true;          // CAN_RAW_ERR_FILTER = CAN_ERR_MASK
};

// Accept exactly this standard (11-bit) id.
can_filter ExactStandardId(canid_t id);

class SocketCanBus final : public Bus {
 public:
  // Most frames one Send() / Receive() system call moves.
  static constexpr std::size_t kMaxBatch = 64;

  // Opens and binds the socket. Throws std::system_error naming the interface when it does not
  // exist or the socket cannot be set up. `io` only hosts the socket object: the owner thread
  // polls the socket itself, and the daemon passes an io_context that is never run.
  SocketCanBus(asio::io_context& io, SocketCanOptions options);

  std::size_t Send(std::span<const can_frame> frames) override;
  std::size_t Receive(std::span<can_frame> out) override;
  const BusCounters& counters() const override { return counters_; }
  const std::string& interface() const override { return options_.interface; }

  // The socket, e.g. to wait for readability with async_wait (robot-edge-sim does).
  asio::generic::raw_protocol::socket& socket() { return socket_; }

 private:
  // Opens, configures and binds the socket. Returns 0, or an errno value with *failed_step
  // naming the step that failed. Never throws (it also runs on the owner thread to reopen).
  int Open(const char** failed_step);
  void OnSendError(int error, std::size_t unsent);
  void OnReceiveError(int error);
  void MaybeReopen();

  SocketCanOptions options_;
  asio::generic::raw_protocol::socket socket_;
  BusCounters counters_;
  bool needs_reopen_ = false;  // the interface vanished (ENODEV): rebind when it returns
  // "/sys/class/net/<interface>", to see whether the interface is back without if_nametoindex()
  // (see MaybeReopen()); empty when sysfs does not show this network namespace.
  std::string sysfs_path_;
  std::chrono::steady_clock::time_point next_reopen_attempt_{};

  // Receive scratch, preallocated: headers, one frame and one control buffer per message.
  std::array<mmsghdr, kMaxBatch> rx_headers_{};
  std::array<iovec, kMaxBatch> rx_iov_{};
  std::array<can_frame, kMaxBatch> rx_frames_{};
  std::array<std::array<char, CMSG_SPACE(sizeof(std::uint32_t))>, kMaxBatch> rx_control_{};
  // Send scratch.
  std::array<mmsghdr, kMaxBatch> tx_headers_{};
  std::array<iovec, kMaxBatch> tx_iov_{};
};

}  // namespace robot_edge::can
