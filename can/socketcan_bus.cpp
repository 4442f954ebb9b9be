#include "can/socketcan_bus.hpp"

#include <linux/can/error.h>
#include <linux/can/raw.h>
#include <net/if.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "can/error_frame.hpp"

namespace robot_edge::can {
namespace {

constexpr auto kReopenInterval = std::chrono::milliseconds(500);

}  // namespace

can_filter ExactStandardId(canid_t id) {
  return can_filter{id, CAN_SFF_MASK | CAN_EFF_FLAG | CAN_RTR_FLAG};
}

SocketCanBus::SocketCanBus(asio::io_context& io, SocketCanOptions options)
    : options_(std::move(options)), socket_(io) {
  for (std::size_t i = 0; i < kMaxBatch; ++i) {
    rx_iov_[i] = {&rx_frames_[i], sizeof(can_frame)};
    rx_headers_[i].msg_hdr.msg_iov = &rx_iov_[i];
    rx_headers_[i].msg_hdr.msg_iovlen = 1;
    tx_headers_[i].msg_hdr.msg_iov = &tx_iov_[i];
    tx_headers_[i].msg_hdr.msg_iovlen = 1;
  }
  const char* failed_step = nullptr;
  if (const int error = Open(&failed_step); error != 0) {
    throw std::system_error(error, std::generic_category(),
                            options_.interface + ": " + failed_step);
  }
  // Use sysfs only if it shows this network namespace: it must list the interface just opened.
  const std::string sysfs_path = "/sys/class/net/" + options_.interface;
  if (::access(sysfs_path.c_str(), F_OK) == 0) sysfs_path_ = sysfs_path;
}

int SocketCanBus::Open(const char** failed_step) {
  const auto fail = [&](int error, const char* step) {
    *failed_step = step;
    return error != 0 ? error : EINVAL;
  };
  const unsigned index = ::if_nametoindex(options_.interface.c_str());
  if (index == 0) return fail(errno, "no such CAN interface");

  std::error_code ec;
  if (socket_.is_open()) socket_.close(ec);
  socket_.open(asio::generic::raw_protocol(PF_CAN, CAN_RAW), ec);
  if (ec) return fail(ec.value(), "cannot open a CAN_RAW socket");
  socket_.non_blocking(true, ec);
  if (ec) return fail(ec.value(), "cannot make the socket non-blocking");
  const int fd = socket_.native_handle();

  if (::setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER, options_.filters.data(),
                   static_cast<socklen_t>(options_.filters.size() * sizeof(can_filter))) != 0) {
    return fail(errno, "cannot set the receive filter");
  }
  const can_err_mask_t errors = options_.receive_errors ? CAN_ERR_MASK : 0;
  if (::setsockopt(fd, SOL_CAN_RAW, CAN_RAW_ERR_FILTER, &errors, sizeof(errors)) != 0) {
    return fail(errno, "cannot enable error frames");
  }
  const int size = options_.receive_buffer_bytes;
  if (::setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) != 0 &&
      ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) != 0) {
    return fail(errno, "cannot size the receive buffer");
  }
  const int on = 1;
  if (::setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof(on)) != 0) {
    return fail(errno, "cannot enable SO_RXQ_OVFL");
  }
  sockaddr_can address{};
  address.can_family = AF_CAN;
  address.can_ifindex = static_cast<int>(index);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    return fail(errno, "cannot bind the CAN socket");
  }
  needs_reopen_ = false;
  return 0;
}

std::size_t SocketCanBus::Send(std::span<const can_frame> frames) {
  MaybeReopen();
  std::size_t sent = 0;
  while (sent < frames.size()) {
    const std::size_t n = std::min(frames.size() - sent, kMaxBatch);
    for (std::size_t i = 0; i < n; ++i) {
      tx_iov_[i] = {const_cast<can_frame*>(&frames[sent + i]), sizeof(can_frame)};
    }
    const int result = ::sendmmsg(socket_.native_handle(), tx_headers_.data(),
                                  static_cast<unsigned>(n), MSG_DONTWAIT);
    if (result <= 0) {
      OnSendError(result < 0 ? errno : EAGAIN, frames.size() - sent);
      break;
    }
    sent += static_cast<std::size_t>(result);
    counters_.link_up.store(true, std::memory_order_relaxed);
  }
  BusCounters::Add(counters_.frames_sent, sent);
  return sent;
}

std::size_t SocketCanBus::Receive(std::span<can_frame> out) {
  std::size_t count = 0;
  while (count < out.size()) {
    const std::size_t n = std::min(out.size() - count, kMaxBatch);
    for (std::size_t i = 0; i < n; ++i) {
      rx_headers_[i].msg_hdr.msg_control = rx_control_[i].data();
      rx_headers_[i].msg_hdr.msg_controllen = rx_control_[i].size();
    }
    const int result = ::recvmmsg(socket_.native_handle(), rx_headers_.data(),
                                  static_cast<unsigned>(n), MSG_DONTWAIT, nullptr);
    if (result < 0) {
      OnReceiveError(errno);
      break;
    }
    for (int i = 0; i < result; ++i) {
      msghdr& header = rx_headers_[i].msg_hdr;
      for (cmsghdr* c = CMSG_FIRSTHDR(&header); c != nullptr; c = CMSG_NXTHDR(&header, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
          std::uint32_t dropped = 0;  // the kernel's running total for this socket
          std::memcpy(&dropped, CMSG_DATA(c), sizeof(dropped));
          counters_.rx_overflows.store(dropped, std::memory_order_relaxed);
        }
      }
      const can_frame& frame = rx_frames_[i];
      if (IsErrorFrame(frame)) {
        CountErrorFrame(frame, &counters_);
        continue;
      }
      out[count++] = frame;
      counters_.bus_off.store(false, std::memory_order_relaxed);
    }
    if (static_cast<std::size_t>(result) < n) break;  // drained
  }
  BusCounters::Add(counters_.frames_received, count);
  return count;
}

void SocketCanBus::OnSendError(int error, std::size_t unsent) {
  BusCounters::Add(counters_.send_failures, unsent);
  if (error == ENETDOWN || error == ENODEV || error == ENXIO) {
    if (counters_.link_up.exchange(false, std::memory_order_relaxed)) {
      BusCounters::Add(counters_.link_down_count, 1);
    }
    if (error != ENETDOWN) needs_reopen_ = true;  // the interface is gone: rebind later
  }
  // ENOBUFS / EAGAIN: the transmit queue is full; the next tick sends fresh frames.
}

void SocketCanBus::OnReceiveError(int error) {
  if (error == EAGAIN || error == EWOULDBLOCK || error == EINTR) return;
  if (error == ENETDOWN || error == ENODEV || error == ENXIO) {
    if (counters_.link_up.exchange(false, std::memory_order_relaxed)) {
      BusCounters::Add(counters_.link_down_count, 1);
    }
    if (error != ENETDOWN) needs_reopen_ = true;
  }
}

void SocketCanBus::MaybeReopen() {
  if (!needs_reopen_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now < next_reopen_attempt_) return;
  next_reopen_attempt_ = now + kReopenInterval;
  // Not while the interface is absent: if_nametoindex() of a missing name makes the kernel run
  // modprobe ("netdev-<name>") for a process with CAP_NET_ADMIN, blocking this thread for
  // milliseconds (~180 ms under user-mode Linux). sysfs answers without that.
  if (!sysfs_path_.empty() && ::access(sysfs_path_.c_str(), F_OK) != 0) return;
  const char* failed_step = nullptr;
  Open(&failed_step);  // on failure: still gone, try again after kReopenInterval

}

}  // namespace robot_edge::can
