#include "daemon/emergency_damp.hpp"

#include <linux/can/raw.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>

#include "can/emergency.hpp"

namespace robot_edge::daemon {

int RunEmergencyDamp(const config::Config& config) {
  std::vector<std::string> missing;
  const std::vector<can::RawFrame> frames = can::EmergencyFrames(config, &missing);
  for (const std::string& name : missing) {
    std::fprintf(stderr, "robot-edged --emergency-damp: %s: no such interface\n", name.c_str());
  }
  const int fd = ::socket(PF_CAN, SOCK_RAW | SOCK_CLOEXEC, CAN_RAW);
  if (fd < 0) {
    std::fprintf(stderr, "robot-edged --emergency-damp: cannot open a CAN socket: %s\n",
                 std::strerror(errno));
    return 1;
  }
  ::setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER, nullptr, 0);  // receive nothing
  sockaddr_can any{};
  any.can_family = AF_CAN;  // ifindex 0: every CAN interface, each frame names its own
  if (::bind(fd, reinterpret_cast<sockaddr*>(&any), sizeof(any)) != 0) {
    std::fprintf(stderr, "robot-edged --emergency-damp: cannot bind the CAN socket: %s\n",
                 std::strerror(errno));
    ::close(fd);
    return 1;
  }
  auto sent = std::make_unique<bool[]>(frames.size());
  const std::size_t n = can::SendRaw(fd, frames.data(), frames.size(), /*retries=*/50, sent.get());
  ::close(fd);
  std::set<std::string> failed;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (!sent[i]) failed.insert(config.buses[frames[i].bus].interface);
  }
  for (const std::string& name : failed) {
    std::fprintf(stderr, "robot-edged --emergency-damp: %s: frames not sent (link down?)\n",
                 name.c_str());
  }
  std::fprintf(stderr,
               "robot-edged --emergency-damp: DAMP then exit motor mode: %zu of %zu frames sent "
               "to %zu motors\n",
               n, frames.size(), config.joints.size());
  return missing.empty() && failed.empty() ? 0 : 1;
}

}  // namespace robot_edge::daemon
