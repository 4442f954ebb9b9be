// Client::ConnectUnix / ConnectTcp: non-blocking connect() bounded by poll(), and error messages
// that tell the user what to check.
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

#include "client/client.hpp"

namespace robot_edge::client {

namespace {

using Clock = std::chrono::steady_clock;

// A hint for the usual reasons a connection fails.
std::string Hint(int error, bool tcp) {
  switch (error) {
    case ENOENT: return " — is robot-edged running?";
    case ECONNREFUSED:
      return tcp ? " — is robot-edged running with api.tcp set?"
                 : " — is robot-edged running? (the socket file exists but nobody listens)";
    case EACCES:
    case EPERM: return " — is your user in the group robot-edge?";
    case ETIMEDOUT: return " — is the robot reachable?";
    default: return "";
  }
}

[[noreturn]] void ThrowConnect(const std::string& where, int error, bool tcp) {
  throw ClientError(ErrorKind::kConnect,
                    "cannot connect to " + where + ": " + std::strerror(error) + Hint(error, tcp));
}

// connect() on a non-blocking socket, waiting at most until `deadline`. Returns 0 or an errno.
int ConnectWithin(int fd, const sockaddr* address, socklen_t length, Clock::time_point deadline) {
  if (::connect(fd, address, length) == 0) return 0;
  if (errno != EINPROGRESS && errno != EAGAIN && errno != EINTR) return errno;
  for (;;) {
    const auto left = std::chrono::ceil<Millis>(deadline - Clock::now()).count();
    pollfd p{fd, POLLOUT, 0};
    const int n = ::poll(&p, 1, left > 0 ? static_cast<int>(left) : 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return ETIMEDOUT;
    int error = 0;
    socklen_t size = sizeof(error);
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) < 0) return errno;
    return error;
  }
}

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
  int release() { return std::exchange(fd, -1); }
};

}  // namespace

Client Client::ConnectUnix(const std::string& path, Millis timeout) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path)) {
    throw ClientError(ErrorKind::kConnect,
                      "cannot connect to '" + path + "': a Unix socket path must be 1.." +
                          std::to_string(sizeof(address.sun_path) - 1) + " characters");
  }
  std::memcpy(address.sun_path, path.data(), path.size());
  FdCloser fd{::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)};
  if (fd.fd < 0) ThrowConnect(path, errno, false);
  const int error = ConnectWithin(fd.fd, reinterpret_cast<const sockaddr*>(&address),
                                  sizeof(address), Clock::now() + timeout);
  struct stat st {};
  if (error == ECONNREFUSED && ::stat(path.c_str(), &st) == 0 && !S_ISSOCK(st.st_mode)) {
    throw ClientError(ErrorKind::kConnect, "cannot connect to " + path + ": not a socket");
  }
  if (error != 0) ThrowConnect(path, error, false);
  return Client(fd.release(), path);
}

Client Client::ConnectTcp(const std::string& host, std::uint16_t port, Millis timeout) {
  return ConnectTcp(host, port, timeout, nullptr);
}

Client Client::ConnectTcp(const std::string& host, std::uint16_t port, Millis timeout,
                          const TlsOptions& tls) {
  return ConnectTcp(host, port, timeout, &tls);
}

Client Client::ConnectTcp(const std::string& host, std::uint16_t port, Millis timeout,
                          const TlsOptions* tls) {
  const std::string where =
      (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int status = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (status != 0) {
    throw ClientError(ErrorKind::kConnect,
                      "cannot connect to " + where + ": " + ::gai_strerror(status));
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, &::freeaddrinfo);
  const Clock::time_point deadline = Clock::now() + timeout;
  int error = EHOSTUNREACH;
  for (const addrinfo* a = addresses.get(); a != nullptr; a = a->ai_next) {
    FdCloser fd{
        ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol)};
    if (fd.fd < 0) {
      error = errno;
      continue;
    }
    error = ConnectWithin(fd.fd, a->ai_addr, a->ai_addrlen, deadline);
    if (error == 0) {
      const int one = 1;  // commands are small and time-critical: no Nagle delay
      ::setsockopt(fd.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      if (tls == nullptr) return Client(fd.release(), where);
      auto channel = TlsChannel::Handshake(fd.fd, *tls, host, where, deadline);
      Client client(fd.release(), where);
      client.tls_ = std::move(channel);
      return client;
    }
    if (error == ETIMEDOUT) break;
  }
  ThrowConnect(where, error, true);
}

}  // namespace robot_edge::client
