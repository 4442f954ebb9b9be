#include "syscall_count.hpp"

#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <ctime>

namespace robot_edge::can::vcan {
namespace {

std::atomic<int> g_fd{-1};
std::atomic<std::uint64_t> g_sendmmsg{0};
std::atomic<std::uint64_t> g_recvmmsg{0};
std::atomic<std::uint64_t> g_other_sends{0};

void Count(std::atomic<std::uint64_t>& counter, int fd) {
  if (fd >= 0 && fd == g_fd.load(std::memory_order_relaxed)) counter.fetch_add(1);
}

}  // namespace

void WatchDescriptor(int fd) {
  g_sendmmsg.store(0);
  g_recvmmsg.store(0);
  g_other_sends.store(0);
  g_fd.store(fd);
}

SyscallCounts Counts() { return {g_sendmmsg.load(), g_recvmmsg.load(), g_other_sends.load()}; }

}  // namespace robot_edge::can::vcan

using robot_edge::can::vcan::Count;
using robot_edge::can::vcan::g_other_sends;
using robot_edge::can::vcan::g_recvmmsg;
using robot_edge::can::vcan::g_sendmmsg;

extern "C" {

int sendmmsg(int fd, mmsghdr* messages, unsigned int count, int flags) {
  Count(g_sendmmsg, fd);
  return static_cast<int>(::syscall(SYS_sendmmsg, fd, messages, count, flags));
}

int recvmmsg(int fd, mmsghdr* messages, unsigned int count, int flags, timespec* timeout) {
  Count(g_recvmmsg, fd);
  return static_cast<int>(::syscall(SYS_recvmmsg, fd, messages, count, flags, timeout));
}

ssize_t sendmsg(int fd, const msghdr* message, int flags) {
  Count(g_other_sends, fd);
  return ::syscall(SYS_sendmsg, fd, message, flags);
}

ssize_t sendto(int fd, const void* data, size_t size, int flags, const sockaddr* to,
               socklen_t to_size) {
  Count(g_other_sends, fd);
  return ::syscall(SYS_sendto, fd, data, size, flags, to, to_size);
}

ssize_t send(int fd, const void* data, size_t size, int flags) {
  Count(g_other_sends, fd);
  return ::syscall(SYS_sendto, fd, data, size, flags, nullptr, 0);
}

ssize_t write(int fd, const void* data, size_t size) {
  Count(g_other_sends, fd);
  return ::syscall(SYS_write, fd, data, size);
}

}  // extern "C"
