#include "daemon/notify.hpp"

#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

#include <cstring>

namespace robot_edge::daemon {

SystemdNotifier::SystemdNotifier() {
  std::uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
    watchdog_period_ = std::chrono::microseconds(usec / 2);
  }
}

void SystemdNotifier::Send(const std::string& state) {
  const int r = sd_notify(0, state.c_str());
  if (r < 0) spdlog::warn("sd_notify({}) failed: {}", state, std::strerror(-r));
}

void SystemdNotifier::Ready(const std::string& status) { Send("READY=1\nSTATUS=" + status); }
void SystemdNotifier::Watchdog() { Send("WATCHDOG=1"); }
void SystemdNotifier::Stopping() { Send("STOPPING=1"); }
void SystemdNotifier::Status(const std::string& status) { Send("STATUS=" + status); }

}  // namespace robot_edge::daemon
