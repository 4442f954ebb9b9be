// Test and benchmark support: running the project's programs as child processes (robot-edged,
// robot-edge-sim) with their output in files, and waiting for conditions with a deadline.
// Used by tests/e2e and bench/ (which compiles it from source: it builds without tests/).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace robot_edge::test {

using Millis = std::chrono::milliseconds;

std::string ReadFile(const std::string& path);

// Polls `done` every 10 ms until it is true or `timeout` passes; returns its last value.
bool Eventually(const std::function<bool()>& done, Millis timeout);

// A child process with its stdout and stderr in <log_prefix>.out / .err.
class Child {
 public:
  // Starts argv[0] (a path) with this process's environment plus `extra_env` ("NAME=value").
  // Throws std::runtime_error when it cannot start.
  Child(const std::vector<std::string>& argv, const std::string& log_prefix,
        const std::vector<std::string>& extra_env = {});
  ~Child();  // SIGTERM, then SIGKILL after 10 s, if still running
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  bool Running();
  // Sends `signal` and waits up to `timeout`; returns the exit code (128+n if killed by signal
  // n), or -1 after killing it on timeout.
  int Stop(int signal, Millis timeout);
  // Waits up to `timeout` for it to exit by itself; the same results as Stop().
  int Wait(Millis timeout) { return Stop(0, timeout); }
  std::string Stdout() const;
  std::string Stderr() const;

 private:
  pid_t pid_ = -1;
  std::string out_, err_;
  std::optional<int> status_;
};

}  // namespace robot_edge::test
