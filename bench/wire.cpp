#include "wire.hpp"

#include <linux/can/raw.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace robot_edge::bench {
namespace {

constexpr std::size_t kBatch = 64;

[[noreturn]] void Throw(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

}  // namespace

std::int64_t RealtimeNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

CanTap::CanTap(const std::string& interface, const std::vector<std::string>& buses,
               const std::vector<canid_t>& ids) {
  fd_ = ::socket(PF_CAN, SOCK_RAW | SOCK_CLOEXEC, CAN_RAW);
  if (fd_ < 0) Throw("socket(PF_CAN)");
  for (const auto& name : buses) {
    const unsigned index = if_nametoindex(name.c_str());
    if (index == 0) Throw(name + ": no such CAN interface");
    ifindex_.push_back(static_cast<int>(index));
  }
  std::vector<can_filter> filters;
  for (canid_t id : ids) filters.push_back({id, CAN_SFF_MASK | CAN_EFF_FLAG | CAN_RTR_FLAG});
  if (!ids.empty() &&
      ::setsockopt(fd_, SOL_CAN_RAW, CAN_RAW_FILTER, filters.data(),
                   static_cast<socklen_t>(filters.size() * sizeof(can_filter))) != 0) {
    Throw("CAN_RAW_FILTER");
  }
  const int on = 1;
  if (::setsockopt(fd_, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) != 0) Throw("SO_TIMESTAMPNS");
  const int buffer = 8 << 20;
  if (::setsockopt(fd_, SOL_SOCKET, SO_RCVBUFFORCE, &buffer, sizeof(buffer)) != 0) {
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &buffer, sizeof(buffer));
  }
  sockaddr_can address{};
  address.can_family = AF_CAN;
  if (!interface.empty()) {
    address.can_ifindex = static_cast<int>(if_nametoindex(interface.c_str()));
    if (address.can_ifindex == 0) Throw(interface + ": no such CAN interface");
  }
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) Throw("bind");
}

CanTap::~CanTap() { ::close(fd_); }

std::size_t CanTap::Read(int timeout_ms, std::vector<TappedFrame>* out) {
  pollfd pfd{fd_, POLLIN, 0};
  if (::poll(&pfd, 1, timeout_ms) <= 0) return 0;
  std::array<mmsghdr, kBatch> headers{};
  std::array<iovec, kBatch> iov{};
  std::array<can_frame, kBatch> frames{};
  std::array<sockaddr_can, kBatch> from{};
  std::array<std::array<char, CMSG_SPACE(sizeof(timespec)) + 64>, kBatch> control{};
  for (std::size_t i = 0; i < kBatch; ++i) {
    iov[i] = {&frames[i], sizeof(can_frame)};
    headers[i].msg_hdr.msg_iov = &iov[i];
    headers[i].msg_hdr.msg_iovlen = 1;
    headers[i].msg_hdr.msg_name = &from[i];
    headers[i].msg_hdr.msg_namelen = sizeof(sockaddr_can);
    headers[i].msg_hdr.msg_control = control[i].data();
    headers[i].msg_hdr.msg_controllen = control[i].size();
  }
  const int n = ::recvmmsg(fd_, headers.data(), kBatch, MSG_DONTWAIT, nullptr);
  if (n <= 0) return 0;
  std::size_t kept = 0;
  for (int i = 0; i < n; ++i) {
    int bus = -1;
    for (std::size_t b = 0; b < ifindex_.size(); ++b) {
      if (ifindex_[b] == from[i].can_ifindex) bus = static_cast<int>(b);
    }
    if (bus < 0) continue;
    std::int64_t t_ns = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(&headers[i].msg_hdr); c != nullptr;
         c = CMSG_NXTHDR(&headers[i].msg_hdr, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPNS) {
        timespec ts;
        std::memcpy(&ts, CMSG_DATA(c), sizeof(ts));
        t_ns = static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
      }
    }
    out->push_back({t_ns, bus, frames[i]});
    ++kept;
  }
  return kept;
}

void CanTap::Drain() {
  std::vector<TappedFrame> discard;
  while (Read(0, &discard) > 0) discard.clear();
}

bool CanTap::Write(const can_frame& frame) {
  return ::write(fd_, &frame, sizeof(frame)) == static_cast<ssize_t>(sizeof(frame));
}

bool IsSpecial(const can_frame& f) {
  if (f.len != 8) return false;
  for (int i = 0; i < 7; ++i) {
    if (f.data[i] != 0xFF) return false;
  }
  return f.data[7] >= 0xFC;
}

std::uint64_t TxPackets(const std::string& interface) {
  std::ifstream in("/sys/class/net/" + interface + "/statistics/tx_packets");
  std::uint64_t n = 0;
  in >> n;
  return n;
}

}  // namespace robot_edge::bench
