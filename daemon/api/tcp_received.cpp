#include "daemon/api/tcp_received.hpp"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>

namespace robot_edge::daemon {

std::optional<std::uint64_t> TcpBytesReceived(int fd) {
  tcp_info info{};
  socklen_t size = sizeof info;
  if (fd < 0 || ::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &size) != 0) return std::nullopt;
  // An older kernel fills less of the struct: the field must be within what it wrote.
  if (size < offsetof(tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received) {
    return std::nullopt;
  }
  return info.tcpi_bytes_received;
}

}  // namespace robot_edge::daemon
