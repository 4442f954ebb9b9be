// Counts the batched socket system calls this process makes on one file descriptor, to check that
// a control tick costs one sendmmsg and one recvmmsg whatever the number of buses (what the
// single-socket transport is for: under user-mode Linux a system call costs tens of µs).
//
// How: syscall_count.cpp defines sendmmsg, recvmmsg, sendmsg, sendto and write in this
// executable. They take precedence over the C library's for every call made from the executable
// and its static libraries (robot_edge_can included), count calls on the watched descriptor, and
// make the system call themselves, so behaviour is unchanged. Calls the C library makes
// internally (stdio's write) are not seen, which is fine: only the transport is watched.
#pragma once

#include <cstdint>

namespace robot_edge::can::vcan {

struct SyscallCounts {
  std::uint64_t sendmmsg = 0;
  std::uint64_t recvmmsg = 0;
  std::uint64_t other_sends = 0;  // sendmsg, sendto, send, write
};

// Starts counting the calls on `fd` (from zero); -1 stops.
void WatchDescriptor(int fd);
SyscallCounts Counts();

}  // namespace robot_edge::can::vcan
