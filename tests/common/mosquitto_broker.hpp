// Test and benchmark support: a local mosquitto on a free loopback port (tests/uplink's
// broker.uplink, bench/uplink_load). Part of robot_edge_test_process; bench/ compiles it too.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "child_process.hpp"

namespace robot_edge::test {

// A TCP port on 127.0.0.1 that was free a moment ago (bound, read, closed).
int FreePort();
// Something accepts TCP connections on 127.0.0.1:`port`.
bool PortOpen(int port);

// /usr/sbin/mosquitto with `dir`/mosquitto.conf: "listener <port> 127.0.0.1", then `settings`
// (mosquitto.conf lines, each ending in '\n'; a further `listener` block opens another port, which
// Start does not wait for). Its output goes to `dir`/mosquitto.out / .err.
class MosquittoBroker {
 public:
  MosquittoBroker(const std::string& dir, int port, const std::string& settings);
  // Starts it and waits until its port is open; throws std::runtime_error after 10 s.
  void Start();
  // SIGTERM; its exit code (-1: killed after 10 s).
  int Stop();
  int port() const { return port_; }
  pid_t pid() const { return child_ ? child_->pid() : -1; }

 private:
  std::string dir_;
  int port_;
  std::unique_ptr<Child> child_;
};

}  // namespace robot_edge::test
