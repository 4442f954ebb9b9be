#include "vcan_util.hpp"

#include <fcntl.h>
#include <linux/can/error.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>

extern char** environ;

namespace robot_edge::can::vcan {

std::string VcanProblem(int buses) {
  const char* harness = std::getenv("ROBOT_EDGE_VCAN_HARNESS");
  if (harness == nullptr || *harness == '\0') {
    return "not running inside tests/vcan/run (these tests take vcan interfaces down and delete "
           "them, so they only run in the harness's private network): run me as "
           "`tests/vcan/run -- <this program>`";
  }
  for (int i = 0; i < buses; ++i) {
    const std::string name = "vcan" + std::to_string(i);
    if (::if_nametoindex(name.c_str()) == 0) {
      return name + " missing: run me through tests/vcan/run";
    }
  }
  return "";
}

int IpLink(const std::string& args) {
  const int status = std::system(("ip link " + args).c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

namespace {

// Appends a netlink attribute to the message `header` (whose buffer has room); returns it.
rtattr* AddAttribute(nlmsghdr* header, unsigned short type, const void* data, std::size_t size) {
  auto* attribute =
      reinterpret_cast<rtattr*>(reinterpret_cast<char*>(header) + NLMSG_ALIGN(header->nlmsg_len));
  attribute->rta_type = type;
  attribute->rta_len = static_cast<unsigned short>(RTA_LENGTH(size));
  if (size > 0) std::memcpy(RTA_DATA(attribute), data, size);
  header->nlmsg_len = NLMSG_ALIGN(header->nlmsg_len) + RTA_ALIGN(attribute->rta_len);
  return attribute;
}

}  // namespace

std::string AddVcanNow(const std::string& name) {
  alignas(nlmsghdr) char buffer[512] = {};
  auto* header = reinterpret_cast<nlmsghdr*>(buffer);
  header->nlmsg_len = NLMSG_LENGTH(sizeof(ifinfomsg));
  header->nlmsg_type = RTM_NEWLINK;
  header->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK;
  header->nlmsg_seq = 1;
  auto* info = static_cast<ifinfomsg*>(NLMSG_DATA(header));
  info->ifi_family = AF_UNSPEC;
  info->ifi_flags = IFF_UP;  // created up
  info->ifi_change = IFF_UP;
  AddAttribute(header, IFLA_IFNAME, name.c_str(), name.size() + 1);
  rtattr* link_info = AddAttribute(header, IFLA_LINKINFO, nullptr, 0);
  AddAttribute(header, IFLA_INFO_KIND, "vcan", 4);
  link_info->rta_len =
      static_cast<unsigned short>(buffer + header->nlmsg_len - reinterpret_cast<char*>(link_info));

  const int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) return std::string("netlink socket: ") + std::strerror(errno);
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  std::string problem;
  if (::sendto(fd, buffer, header->nlmsg_len, 0, reinterpret_cast<sockaddr*>(&kernel),
               sizeof(kernel)) < 0) {
    problem = std::string("RTM_NEWLINK: ") + std::strerror(errno);
  } else {
    alignas(nlmsghdr) char reply[1024];
    const ssize_t n = ::recv(fd, reply, sizeof(reply), 0);
    const auto* answer = reinterpret_cast<const nlmsghdr*>(reply);
    if (n < static_cast<ssize_t>(NLMSG_LENGTH(sizeof(nlmsgerr))) ||
        answer->nlmsg_type != NLMSG_ERROR) {
      problem = "RTM_NEWLINK: no acknowledgement";
    } else if (const int error = static_cast<const nlmsgerr*>(NLMSG_DATA(answer))->error;
               error != 0) {
      problem = "RTM_NEWLINK " + name + ": " + std::strerror(-error);
    }
  }
  ::close(fd);
  return problem;
}

namespace {

// Whether `name` exists and is administratively up (no process: `ip` is slow under UML).
bool IsUp(const std::string& name) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  ifreq request{};
  std::strncpy(request.ifr_name, name.c_str(), IFNAMSIZ - 1);
  const bool up = ::ioctl(fd, SIOCGIFFLAGS, &request) == 0 && (request.ifr_flags & IFF_UP) != 0;
  ::close(fd);
  return up;
}

}  // namespace

void RestoreBuses(int buses) {
  for (int i = 0; i < buses; ++i) {
    const std::string name = "vcan" + std::to_string(i);
    if (IsUp(name)) continue;
    if (::if_nametoindex(name.c_str()) == 0) IpLink("add dev " + name + " type vcan");
    IpLink("set up " + name);
  }
}

bool Eventually(const std::function<bool()>& condition, milliseconds patience) {
  const auto deadline = Clock::now() + patience;
  while (!condition()) {
    if (Clock::now() >= deadline) return condition();
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

can_frame DataFrame(canid_t id, std::vector<std::uint8_t> data) {
  can_frame frame{};
  frame.can_id = id;
  frame.len = static_cast<std::uint8_t>(std::min<std::size_t>(data.size(), CAN_MAX_DLEN));
  std::copy(data.begin(), data.begin() + frame.len, frame.data);
  return frame;
}

can_frame ErrorFrame(canid_t error_classes) {
  can_frame frame{};
  frame.can_id = CAN_ERR_FLAG | error_classes;
  frame.len = CAN_ERR_DLC;
  return frame;
}

RawSocket::RawSocket(const std::string& interface) {
  const int fd = ::socket(PF_CAN, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, CAN_RAW);
  if (fd < 0) return;
  sockaddr_can address{};
  address.can_family = AF_CAN;
  address.can_ifindex = static_cast<int>(::if_nametoindex(interface.c_str()));
  if (address.can_ifindex == 0 ||
      ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return;
  }
  fd_ = fd;
}

RawSocket::~RawSocket() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawSocket::Write(const can_frame& frame) {
  return ::write(fd_, &frame, sizeof(frame)) == static_cast<ssize_t>(sizeof(frame));
}

std::optional<can_frame> RawSocket::Read(milliseconds patience) {
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(patience.count())) <= 0) return std::nullopt;
  can_frame frame{};
  if (::read(fd_, &frame, sizeof(frame)) != static_cast<ssize_t>(sizeof(frame))) {
    return std::nullopt;
  }
  return frame;
}

Subprocess::Subprocess(const std::vector<std::string>& argv) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  if (::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ) == 0) pid_ = pid;
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  out_ = fds[0];
}

Subprocess::~Subprocess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int status = 0;
    if (!Eventually([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; },
                    milliseconds(2000))) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
  }
  if (out_ >= 0) ::close(out_);
}

void Subprocess::ReadFor(milliseconds duration) {
  const auto deadline = Clock::now() + duration;
  for (;;) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return;
    pollfd p{out_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return;
    char buffer[4096];
    const ssize_t n = ::read(out_, buffer, sizeof(buffer));
    if (n <= 0) return;  // the child closed its output
    partial_.append(buffer, static_cast<std::size_t>(n));
    std::size_t end;
    while ((end = partial_.find('\n')) != std::string::npos) {
      lines_.push_back(partial_.substr(0, end));
      partial_.erase(0, end + 1);
    }
  }
}

}  // namespace robot_edge::can::vcan
