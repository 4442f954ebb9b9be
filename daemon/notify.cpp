#include "daemon/notify.hpp"

#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace robot_edge::daemon {

namespace {

// NOTIFY_SOCKET as an address: "" when it names one (filled in), else why not.
std::string ParseNotifySocket(const char* value, sockaddr_un* address, socklen_t* length) {
  const std::size_t n = std::strlen(value);
  if (n == 0 || (value[0] != '/' && value[0] != '@')) {
    return "not a socket path nor an abstract name (@...)";
  }
  if (n >= sizeof(address->sun_path)) return "longer than a socket address allows";
  address->sun_family = AF_UNIX;
  std::memcpy(address->sun_path, value, n);
  if (value[0] == '@') address->sun_path[0] = '\0';  // abstract: no terminating NUL counted
  *length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + n + (value[0] == '/'));
  return "";
}

}  // namespace

SystemdNotifier::SystemdNotifier() {
  std::uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
    watchdog_period_ = std::chrono::microseconds(usec / 2);
  }
  const char* socket = std::getenv("NOTIFY_SOCKET");
  if (socket == nullptr) return;
  if (const std::string bad = ParseNotifySocket(socket, &address_, &address_length_);
      !bad.empty()) {
    spdlog::warn("NOTIFY_SOCKET '{}' {}: systemd is not told this daemon's state", socket, bad);
    return;
  }
  fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd_ < 0) spdlog::warn("NOTIFY_SOCKET: no socket: {}", std::strerror(errno));
}

SystemdNotifier::~SystemdNotifier() {
  if (fd_ >= 0) ::close(fd_);
}

void SystemdNotifier::Send(const std::string& state) {
  if (fd_ < 0) return;
  const ssize_t sent = ::sendto(fd_, state.data(), state.size(), MSG_NOSIGNAL | MSG_DONTWAIT,
                                reinterpret_cast<const sockaddr*>(&address_), address_length_);
  if (sent == static_cast<ssize_t>(state.size())) {
    if (dropping_.exchange(false, std::memory_order_relaxed)) {
      spdlog::info("notifications reach systemd again ({} dropped in all)", dropped());
    }
    return;
  }
  const int error = sent < 0 ? errno : EMSGSIZE;
  dropped_.fetch_add(1, std::memory_order_relaxed);
  if (!dropping_.exchange(true, std::memory_order_relaxed)) {
    spdlog::warn("a notification to systemd dropped ({}): {}; more are dropped until one passes",
                 state.substr(0, state.find('\n')), std::strerror(error));
  }
}

void SystemdNotifier::Ready(const std::string& status) { Send("READY=1\nSTATUS=" + status); }
void SystemdNotifier::Watchdog() { Send("WATCHDOG=1"); }
void SystemdNotifier::Stopping() { Send("STOPPING=1"); }
void SystemdNotifier::Status(const std::string& status) { Send("STATUS=" + status); }

}  // namespace robot_edge::daemon
