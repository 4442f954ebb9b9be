// One robot-edged per CAN interface: two control loops commanding the same motors (a second
// daemon started by hand beside the service, with another api socket) would fight over every
// joint. Each interface is claimed by binding an abstract Unix socket named after it — held
// while the process lives, released by the kernel however it ends, and scoped to the network
// namespace exactly as the CAN interfaces are.
//
// Threads: start-up only.
#pragma once

#include <string>
#include <vector>

namespace robot_edge::daemon {

class BusLocks {
 public:
  BusLocks() = default;
  ~BusLocks();
  BusLocks(const BusLocks&) = delete;
  BusLocks& operator=(const BusLocks&) = delete;

  // Claims `interface`; throws std::runtime_error naming it when another process holds it.
  void Claim(const std::string& interface);

  // The abstract socket name for `interface` (without the leading NUL).
  static std::string NameOf(const std::string& interface);

 private:
  std::vector<int> fds_;
};

}  // namespace robot_edge::daemon
