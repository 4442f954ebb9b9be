#include "sim/bus_faults.hpp"

#include <linux/can/error.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace robot_edge::sim {

can_frame MakeErrorFrame(canid_t error_class) {
  can_frame frame{};
  frame.can_id = CAN_ERR_FLAG | (error_class & CAN_ERR_MASK);
  frame.len = CAN_ERR_DLC;
  return frame;
}

std::string SetLinkUp(const std::string& interface, bool up) {
  ifreq request{};
  if (interface.empty() || interface.size() >= sizeof(request.ifr_name)) {
    return "'" + interface + "' is not an interface name";
  }
  std::memcpy(request.ifr_name, interface.c_str(), interface.size() + 1);
  // Any socket carries the interface ioctls; AF_UNIX always exists.
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::string("cannot open a socket: ") + std::strerror(errno);
  std::string error;
  if (::ioctl(fd, SIOCGIFFLAGS, &request) != 0) {
    error = interface + ": cannot read the interface flags: " + std::strerror(errno);
  } else {
    if (up) {
      request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP);
    } else {
      request.ifr_flags = static_cast<short>(request.ifr_flags & ~IFF_UP);
    }
    if (::ioctl(fd, SIOCSIFFLAGS, &request) != 0) {
      const int e = errno;
      error = interface + ": cannot set the link " + (up ? "up" : "down") + ": " +
              std::strerror(e) + (e == EPERM ? " (needs CAP_NET_ADMIN)" : "");
    }
  }
  ::close(fd);
  return error;
}

}  // namespace robot_edge::sim
