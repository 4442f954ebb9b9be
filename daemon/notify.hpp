// systemd's notify protocol (sd_notify(3)): READY=1, WATCHDOG=1, STOPPING=1, STATUS=. Does
// nothing when the daemon is not started by systemd (no NOTIFY_SOCKET).
//
// Never blocks: a datagram that does not fit in the receiver's queue (systemd busy, or a
// manager that stopped reading) is dropped and said once, instead of holding the sending thread
// — libsystemd's sd_notify() blocks there, and a supervisor blocked in it kept SIGTERM from
// ending the process. NOTIFY_SOCKET: a path, or "@name" (abstract).
//
// Threads: the API thread and the supervisor's (each datagram one sendto(): not for the control
// thread).
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <string>

#include <sys/socket.h>
#include <sys/un.h>

namespace robot_edge::daemon {

class SystemdNotifier {
 public:
  SystemdNotifier();
  ~SystemdNotifier();
  SystemdNotifier(const SystemdNotifier&) = delete;
  SystemdNotifier& operator=(const SystemdNotifier&) = delete;

  void Ready(const std::string& status);
  void Watchdog();
  void Stopping();
  void Status(const std::string& status);

  // How often to send WATCHDOG=1 (half of WatchdogSec), when the unit has a watchdog.
  std::optional<std::chrono::microseconds> watchdog_period() const { return watchdog_period_; }
  // Datagrams not delivered (the receiver's queue full, or another error).
  std::uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  void Send(const std::string& state);
  std::optional<std::chrono::microseconds> watchdog_period_;
  int fd_ = -1;  // -1: no NOTIFY_SOCKET (or an unusable one, said at start)
  sockaddr_un address_{};
  socklen_t address_length_ = 0;
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<bool> dropping_{false};  // the last datagram was dropped (said once)
};

}  // namespace robot_edge::daemon
