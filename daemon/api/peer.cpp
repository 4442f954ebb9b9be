#include "daemon/api/peer.hpp"

#include <sys/socket.h>

#include <cerrno>

namespace robot_edge::daemon {

Peer UnixPeer(int fd) {
  Peer p;
  p.transport = Transport::kUnix;
  ucred cred{};
  socklen_t size = sizeof(cred);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &size) != 0) {
    p.description = "unix (credentials unreadable)";
    return p;
  }
  p.has_credentials = true;
  p.uid = cred.uid;
  p.gid = cred.gid;
  p.description = "unix pid " + std::to_string(cred.pid) + " uid " + std::to_string(cred.uid);
  // SO_PEERGROUPS (Linux 4.13): the supplementary groups at connect() time.
  // Unreadable: no supplementary group counts (never guessed).
  std::vector<gid_t> groups(64);
  socklen_t bytes = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
  int r = ::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &bytes);
  if (r != 0 && errno == ERANGE) {
    groups.resize(bytes / sizeof(gid_t));
    r = ::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &bytes);
  }
  if (r == 0) {
    groups.resize(bytes / sizeof(gid_t));
    p.groups = std::move(groups);
  }
  return p;
}

}  // namespace robot_edge::daemon
