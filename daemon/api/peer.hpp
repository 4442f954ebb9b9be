// Who is at the other end of an API connection, as the kernel says (not as the client claims).
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace robot_edge::daemon {

enum class Transport { kUnix, kTcp };

// A TCP connection's slot at the listener's door while it is not authenticated. Whoever holds
// the connection (the handshake, then the session) says how to close it at once, should the door
// give its slot to a newcomer (the closer runs on the API thread and may release this slot).
class DoorSlot {
 public:
  virtual ~DoorSlot() = default;
  virtual void SetCloser(std::function<void()> close) = 0;
};

struct Peer {
  Transport transport = Transport::kUnix;
  std::string description;  // for logs: "unix pid 42 uid 1000", "tcp 10.0.0.2:51234"
  // Unix socket: SO_PEERCRED and SO_PEERGROUPS, taken when the connection was accepted.
  bool has_credentials = false;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary
  bool loopback = false;      // TCP: from 127.0.0.0/8 or ::1
  // TCP: who the door's limits count ("10.0.0.2"; an IPv6 peer by its /64, "2001:db8:0:1::/64").
  std::string address;
  // TCP: the listener's slot for a connection not yet authenticated (access::PendingSlots),
  // given back when this is reset: by the session at its Welcome or when its socket closes.
  std::shared_ptr<DoorSlot> pending_slot;
};

// The credentials of the process connected on Unix socket `fd` (description says when they
// cannot be read: has_credentials stays false, and the peer is treated as nobody).
Peer UnixPeer(int fd);

}  // namespace robot_edge::daemon
