// systemd's notify protocol (sd_notify): READY=1, WATCHDOG=1, STOPPING=1, STATUS=. Does nothing
// when the daemon is not started by systemd (no NOTIFY_SOCKET).
//
// Threads: the API thread (sd_notify formats and sends a datagram: not for the control thread).
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace robot_edge::daemon {

class SystemdNotifier {
 public:
  SystemdNotifier();

  void Ready(const std::string& status);
  void Watchdog();
  void Stopping();
  void Status(const std::string& status);

  // How often to send WATCHDOG=1 (half of WatchdogSec), when the unit has a watchdog.
  std::optional<std::chrono::microseconds> watchdog_period() const { return watchdog_period_; }

 private:
  void Send(const std::string& state);
  std::optional<std::chrono::microseconds> watchdog_period_;
};

}  // namespace robot_edge::daemon
