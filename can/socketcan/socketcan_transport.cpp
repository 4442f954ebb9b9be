#include "can/socketcan/socketcan_transport.hpp"

#include <linux/can/error.h>
#include <linux/can/raw.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "can/error_frame.hpp"

namespace robot_edge::can {
namespace {

[[noreturn]] void Fail(int error, const std::string& what) {
  throw std::system_error(error != 0 ? error : EINVAL, std::generic_category(), what);
}

void SetOption(int fd, int level, int name, const void* value, socklen_t size,
               const std::string& what) {
  if (::setsockopt(fd, level, name, value, size) != 0) Fail(errno, what);
}

bool IsGone(int error) { return error == ENODEV || error == ENXIO; }

}  // namespace

SocketCanTransport::SocketCanTransport(asio::io_context& io, SocketCanOptions options)
    : socket_(io) {
  for (const std::string& name : options.interfaces) {
    auto bus = std::make_unique<Bus>();
    bus->name = name;
    bus->ifindex = static_cast<int>(::if_nametoindex(name.c_str()));
    if (bus->ifindex == 0) Fail(errno, name + ": no such CAN interface");
    bus->address.can_family = AF_CAN;
    bus->address.can_ifindex = bus->ifindex;
    // sysfs tells whether a vanished interface is back without if_nametoindex(), which makes the
    // kernel run modprobe for a missing name when the caller has CAP_NET_ADMIN (milliseconds on
    // the control thread). Used only if sysfs shows this network namespace.
    const std::string sysfs = "/sys/class/net/" + name;
    if (::access(sysfs.c_str(), F_OK) == 0) bus->sysfs_path = sysfs;
    buses_.push_back(std::move(bus));
  }

  std::error_code ec;
  socket_.open(asio::generic::raw_protocol(PF_CAN, CAN_RAW), ec);
  if (ec) Fail(ec.value(), "cannot open a CAN_RAW socket");
  socket_.non_blocking(true, ec);
  if (ec) Fail(ec.value(), "cannot make the CAN socket non-blocking");
  const int fd = socket_.native_handle();
  // Bound to no single interface, the socket no longer makes bind() refuse an interface that is
  // not CAN (a configuration naming eth0 or lo): check the type here, at start-up.
  for (const auto& bus : buses_) {
    ifreq request{};
    std::strncpy(request.ifr_name, bus->name.c_str(), IFNAMSIZ - 1);
    if (::ioctl(fd, SIOCGIFHWADDR, &request) != 0) {
      Fail(errno, bus->name + ": cannot read the interface type");
    }
    if (request.ifr_hwaddr.sa_family != ARPHRD_CAN) {
      Fail(ENODEV, bus->name + ": not a CAN interface");
    }
  }
  SetOption(fd, SOL_CAN_RAW, CAN_RAW_FILTER, options.filters.data(),
            static_cast<socklen_t>(options.filters.size() * sizeof(can_filter)),
            "cannot set the CAN receive filter");
  const can_err_mask_t errors = options.receive_errors ? CAN_ERR_MASK : 0;
  SetOption(fd, SOL_CAN_RAW, CAN_RAW_ERR_FILTER, &errors, sizeof(errors),
            "cannot enable CAN error frames");
  const int size = options.receive_buffer_bytes;
  if (::setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) != 0) {
    SetOption(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size), "cannot size the receive buffer");
  }
  const int on = 1;
  SetOption(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof(on), "cannot enable SO_RXQ_OVFL");
  sockaddr_can any{};
  any.can_family = AF_CAN;
  any.can_ifindex = 0;  // every CAN interface: each message names its own
  if (::bind(fd, reinterpret_cast<sockaddr*>(&any), sizeof(any)) != 0) {
    Fail(errno, "cannot bind the CAN socket");
  }

  for (std::size_t i = 0; i < kMaxBatch; ++i) {
    rx_iov_[i] = {&rx_frames_[i], sizeof(can_frame)};
    rx_headers_[i].msg_hdr.msg_iov = &rx_iov_[i];
    rx_headers_[i].msg_hdr.msg_iovlen = 1;
    tx_headers_[i].msg_hdr.msg_iov = &tx_iov_[i];
    tx_headers_[i].msg_hdr.msg_iovlen = 1;
    tx_headers_[i].msg_hdr.msg_namelen = sizeof(sockaddr_can);
  }
}

int SocketCanTransport::BusOf(int ifindex) const {
  for (std::size_t b = 0; b < buses_.size(); ++b) {
    if (buses_[b]->ifindex == ifindex && ifindex != 0) return static_cast<int>(b);
  }
  return -1;
}

std::size_t SocketCanTransport::Send(std::span<const BusFrame> frames) {
  if (any_vanished_) RelookupVanished();
  for (auto& bus : buses_) bus->skip = bus->ifindex == 0;
  std::size_t sent = 0;
  for (std::size_t next = 0; next < frames.size();) next = SendSome(frames, next, &sent);
  return sent;
}

std::size_t SocketCanTransport::SendSome(std::span<const BusFrame> frames, std::size_t from,
                                         std::size_t* sent) {
  std::size_t n = 0;
  std::size_t i = from;
  for (; i < frames.size() && n < kMaxBatch; ++i) {
    Bus& bus = *buses_[frames[i].bus];
    if (bus.skip) continue;  // its link failed earlier in this call (or it is gone): counted below
    tx_iov_[n] = {const_cast<can_frame*>(&frames[i].frame), sizeof(can_frame)};
    tx_headers_[n].msg_hdr.msg_name = &bus.address;
    tx_index_[n] = i;
    ++n;
  }
  int result = 0;
  int error = 0;
  if (n > 0) {
    result = ::sendmmsg(socket_.native_handle(), tx_headers_.data(), static_cast<unsigned>(n),
                        MSG_DONTWAIT);
    if (result < 0) error = errno;
  }
  const std::size_t accepted = result > 0 ? static_cast<std::size_t>(result) : 0;
  for (std::size_t k = 0; k < accepted; ++k) {
    BusCounters& c = buses_[frames[tx_index_[k]].bus]->counters;
    BusCounters::Add(c.frames_sent, 1);
    c.link_up.store(true, std::memory_order_relaxed);
  }
  *sent += accepted;
  // Where the next call starts: after this batch when all of it went; at the first message not
  // taken when some went (the next call reports its error); after the first message when it
  // failed (its bus is skipped from then on).
  const std::size_t next = accepted == n  ? i
                           : accepted > 0 ? tx_index_[accepted]
                                          : tx_index_[0] + 1;
  // The skipped frames before `next` fail now; those after it are looked at again by the next call
  // (counting them here too would count them twice).
  for (std::size_t k = from; k < next; ++k) {
    Bus& bus = *buses_[frames[k].bus];
    if (bus.skip) BusCounters::Add(bus.counters.send_failures, 1);
  }
  if (n > 0 && accepted == 0) {  // the first message failed: count it, skip its bus from now on
    Bus& failed = *buses_[frames[tx_index_[0]].bus];
    BusCounters::Add(failed.counters.send_failures, 1);
    OnSendError(&failed, result < 0 ? error : EAGAIN);
  }
  return next;
}

void SocketCanTransport::OnSendError(Bus* bus, int error) {
  bus->skip = true;
  if (error == ENETDOWN || IsGone(error)) {
    if (bus->counters.link_up.exchange(false, std::memory_order_relaxed)) {
      BusCounters::Add(bus->counters.link_down_count, 1);
    }
  }
  if (IsGone(error)) {  // deleted: its index is stale; look it up again later
    bus->ifindex = 0;
    any_vanished_ = true;
  }
  // ENOBUFS / EAGAIN: the interface's transmit queue is full; the next tick sends fresh frames.
}

void SocketCanTransport::RelookupVanished() {
  const auto now = std::chrono::steady_clock::now();
  if (now < next_relookup_) return;
  next_relookup_ = now + kRelookupInterval;
  any_vanished_ = false;
  for (auto& bus : buses_) {
    if (bus->ifindex != 0) continue;
    if (!bus->sysfs_path.empty() && ::access(bus->sysfs_path.c_str(), F_OK) != 0) {
      any_vanished_ = true;  // still gone (and no if_nametoindex: see the constructor)
      continue;
    }
    bus->ifindex = static_cast<int>(::if_nametoindex(bus->name.c_str()));
    bus->address.can_ifindex = bus->ifindex;
    if (bus->ifindex == 0) any_vanished_ = true;
  }
}

std::size_t SocketCanTransport::Receive(std::span<BusFrame> out) {
  std::size_t count = 0;
  while (count < out.size()) {
    const std::size_t n = std::min(out.size() - count, kMaxBatch);
    for (std::size_t i = 0; i < n; ++i) {
      rx_headers_[i].msg_hdr.msg_name = &rx_from_[i];
      rx_headers_[i].msg_hdr.msg_namelen = sizeof(sockaddr_can);
      rx_headers_[i].msg_hdr.msg_control = rx_control_[i].data();
      rx_headers_[i].msg_hdr.msg_controllen = rx_control_[i].size();
    }
    const int result = ::recvmmsg(socket_.native_handle(), rx_headers_.data(),
                                  static_cast<unsigned>(n), MSG_DONTWAIT, nullptr);
    if (result <= 0)
      break;  // EAGAIN: drained (the socket is bound to no single interface,
              // so it gets no ENETDOWN: link state comes from sending)
    for (int i = 0; i < result; ++i) {
      msghdr& header = rx_headers_[i].msg_hdr;
      for (cmsghdr* c = CMSG_FIRSTHDR(&header); c != nullptr; c = CMSG_NXTHDR(&header, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
          std::uint32_t dropped = 0;  // the kernel's running total for this socket
          std::memcpy(&dropped, CMSG_DATA(c), sizeof(dropped));
          rx_overflows_.store(dropped, std::memory_order_relaxed);
        }
      }
      const int bus = BusOf(rx_from_[i].can_ifindex);
      if (bus < 0) continue;  // another CAN interface of this machine
      BusCounters& counters = buses_[static_cast<std::size_t>(bus)]->counters;
      const can_frame& frame = rx_frames_[i];
      if (IsErrorFrame(frame)) {
        CountErrorFrame(frame, &counters);
        continue;
      }
      out[count++] = {static_cast<std::uint32_t>(bus), frame};
      BusCounters::Add(counters.frames_received, 1);
      counters.bus_off.store(false, std::memory_order_relaxed);
    }
    if (static_cast<std::size_t>(result) < n) break;  // drained
  }
  return count;
}

}  // namespace robot_edge::can
