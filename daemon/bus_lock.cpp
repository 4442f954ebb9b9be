#include "daemon/bus_lock.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <stdexcept>

namespace robot_edge::daemon {

BusLocks::~BusLocks() {
  for (int fd : fds_) ::close(fd);
}

std::string BusLocks::NameOf(const std::string& interface) { return "robot-edge/can/" + interface; }

void BusLocks::Claim(const std::string& interface) {
  const std::string name = NameOf(interface);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (name.size() + 1 > sizeof(address.sun_path)) {
    throw std::runtime_error("interface name too long for a bus lock: " + interface);
  }
  std::memcpy(address.sun_path + 1, name.data(), name.size());  // sun_path[0] = 0: abstract
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("bus lock: socket: ") + std::strerror(errno));
  const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), length) != 0) {
    const int error = errno;
    ::close(fd);
    if (error == EADDRINUSE) {
      throw std::runtime_error("another robot-edged already drives " + interface +
                               " (stop it first: two control loops would fight over its motors)");
    }
    throw std::runtime_error("bus lock for " + interface + ": " + std::strerror(error));
  }
  fds_.push_back(fd);
}

}  // namespace robot_edge::daemon
