// SystemdNotifier: the notify protocol's datagrams reach NOTIFY_SOCKET (a path or an abstract
// name), and a receiver that stops reading costs dropped datagrams, never a blocked sender.
#include "daemon/notify.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <string>

namespace robot_edge::daemon {
namespace {

using namespace std::chrono_literals;

// A datagram socket bound where NOTIFY_SOCKET says, as systemd's; unset again on destruction.
class Receiver {
 public:
  explicit Receiver(bool abstract) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::string name;
    socklen_t length = 0;
    if (abstract) {
      name = "@robot-edge-notify-test-" + std::to_string(::getpid());
      std::memcpy(a.sun_path + 1, name.data() + 1, name.size() - 1);
      length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());
    } else {
      char dir[] = "/tmp/robot-edge-notify.XXXXXX";
      dir_ = ::mkdtemp(dir);
      name = dir_ + "/notify";
      std::memcpy(a.sun_path, name.c_str(), name.size() + 1);
      length = sizeof(a);
    }
    const int small = 4096;  // the kernel doubles it: a few datagrams fill it
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), length) != 0) {
      ADD_FAILURE() << "bind " << name << ": " << std::strerror(errno);
    }
    ::setenv("NOTIFY_SOCKET", name.c_str(), 1);
  }
  ~Receiver() {
    ::unsetenv("NOTIFY_SOCKET");
    ::close(fd_);
    if (!dir_.empty()) {
      ::unlink((dir_ + "/notify").c_str());
      ::rmdir(dir_.c_str());
    }
  }
  // The next datagram, or "" when none is queued.
  std::string Next() {
    char buffer[4096];
    const ssize_t n = ::recv(fd_, buffer, sizeof(buffer), MSG_DONTWAIT);
    return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : "";
  }
  int Drain() {
    int n = 0;
    while (!Next().empty()) ++n;
    return n;
  }

 private:
  int fd_ = -1;
  std::string dir_;
};

TEST(SystemdNotifier, ItsDatagramsReachAPathAndAnAbstractName) {
  for (const bool abstract : {false, true}) {
    Receiver systemd(abstract);
    SystemdNotifier notifier;
    notifier.Ready("25 joints");
    notifier.Watchdog();
    notifier.Status("walking");
    notifier.Stopping();
    EXPECT_EQ(systemd.Next(), "READY=1\nSTATUS=25 joints") << "abstract " << abstract;
    EXPECT_EQ(systemd.Next(), "WATCHDOG=1");
    EXPECT_EQ(systemd.Next(), "STATUS=walking");
    EXPECT_EQ(systemd.Next(), "STOPPING=1");
    EXPECT_EQ(notifier.dropped(), 0u);
  }
}

// The hang this prevents: the supervisor blocked in sd_notify() on a full queue held its mutex,
// and SIGTERM's Stop() waited for it for good.
TEST(SystemdNotifier, AReceiverThatStopsReadingCostsDatagramsNotABlockedSender) {
  Receiver systemd(/*abstract=*/false);
  SystemdNotifier notifier;
  auto sending = std::async(std::launch::async, [&notifier] {
    for (int i = 0; i < 2000; ++i) notifier.Status("report " + std::to_string(i));
  });
  if (sending.wait_for(30s) != std::future_status::ready) {
    while (sending.wait_for(10ms) != std::future_status::ready) systemd.Drain();  // unblock it
    FAIL() << "the sender blocked on a receiver's full queue";
  }
  EXPECT_GT(notifier.dropped(), 0u) << "the queue never filled: the test proves nothing";
  const std::uint64_t dropped = notifier.dropped();
  EXPECT_GT(systemd.Drain(), 0);
  notifier.Status("back");
  EXPECT_EQ(systemd.Next(), "STATUS=back") << "once read again, datagrams arrive";
  EXPECT_EQ(notifier.dropped(), dropped);
}

TEST(SystemdNotifier, NoSocketOrAnUnusableOneSendsNothingAndThrowsNothing) {
  ::unsetenv("NOTIFY_SOCKET");
  SystemdNotifier none;
  none.Ready("x");
  EXPECT_EQ(none.dropped(), 0u);
  ::setenv("NOTIFY_SOCKET", "vsock:2:1234", 1);  // not a form this notifier speaks
  SystemdNotifier other;
  other.Ready("x");
  EXPECT_EQ(other.dropped(), 0u);
  ::setenv("NOTIFY_SOCKET", "/nonexistent/robot-edge/notify", 1);
  SystemdNotifier missing;
  missing.Ready("x");
  EXPECT_EQ(missing.dropped(), 1u) << "a socket that is not there: dropped, said";
  ::unsetenv("NOTIFY_SOCKET");
}

}  // namespace
}  // namespace robot_edge::daemon
