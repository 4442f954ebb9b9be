// Helpers of the tests that run on real vcan interfaces (inside tests/vcan/run): a plain CAN_RAW
// socket playing the third party, `ip link` commands (and a quick netlink request creating an
// interface), a child process whose output is read line by line, and waiting for a condition
// with a deadline. Timeouts are generous: under user-mode Linux a system call costs tens of µs and
// sleeps run late by up to a few ms.
#pragma once

#include <linux/can.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace robot_edge::can::vcan {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

inline constexpr milliseconds kPatience{5000};  // how long a test waits for the kernel

// Empty when vcan0..vcan<buses-1> exist and this process runs inside tests/vcan/run; otherwise
// what is wrong, for a message that fails the run.
std::string VcanProblem(int buses);

// Runs `ip link ARGS`; returns its exit status (stderr is left visible).
int IpLink(const std::string& args);

// Creates the vcan interface `name` and brings it up with one netlink request, in about a
// millisecond (under user-mode Linux `ip link` takes ~0.5 s: too slow for tests that time how
// soon an interface is found again). Returns "" or what failed.
std::string AddVcanNow(const std::string& name);

// Makes sure vcan0..vcan<buses-1> exist and are up (after tests that take them down or away).
void RestoreBuses(int buses);

// Calls `condition` every ~1 ms until it holds or `patience` passes; returns its last value.
bool Eventually(const std::function<bool()>& condition, milliseconds patience = kPatience);

can_frame DataFrame(canid_t id, std::vector<std::uint8_t> data);
can_frame ErrorFrame(canid_t error_classes);  // CAN_ERR_FLAG | classes, CAN_ERR_DLC bytes

// A non-blocking CAN_RAW socket bound to one interface, receiving every data frame.
class RawSocket {
 public:
  explicit RawSocket(const std::string& interface);
  ~RawSocket();
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;

  bool ok() const { return fd_ >= 0; }
  bool Write(const can_frame& frame);
  std::optional<can_frame> Read(milliseconds patience);

 private:
  int fd_ = -1;
};

// A child process (found on PATH) with its stdout and stderr on a pipe, read line by line.
// The destructor stops it (SIGTERM, then SIGKILL) and reaps it.
class Subprocess {
 public:
  explicit Subprocess(const std::vector<std::string>& argv);
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  bool started() const { return pid_ > 0; }
  // Reads whatever arrives within `duration` and appends the complete lines to lines().
  void ReadFor(milliseconds duration);
  const std::vector<std::string>& lines() const { return lines_; }

 private:
  int pid_ = -1;
  int out_ = -1;
  std::string partial_;
  std::vector<std::string> lines_;
};

}  // namespace robot_edge::can::vcan
