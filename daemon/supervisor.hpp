// The systemd watchdog, fed only while both threads that must run are alive: the control thread
// (its last tick) and the API thread (a heartbeat its event loop stamps). It runs on a thread of
// its own, so that a stalled API thread is seen: it is reported (the log, and sd_notify STATUS=)
// and walking is stopped (no client can stop the robot meanwhile) well before systemd kills the
// process (WatchdogSec) — whose SIGABRT then reaches the fatal-signal DAMP, then ExecStopPost.
//
// Threads: Liveness is pure (times passed in). Supervisor::Start() / Stop() from the main thread;
// its thread reads the two heartbeats and writes ControlChannels::urgent and sd_notify.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "daemon/control_loop.hpp"
#include "daemon/notify.hpp"

namespace robot_edge::daemon {

// Judges the two heartbeats; says what to feed, report and do.
class Liveness {
 public:
  static constexpr std::int64_t kControlStallUs = 250'000;
  static constexpr std::int64_t kApiStallUs = 500'000;

  struct Verdict {
    bool feed_watchdog = false;
    bool stop_walking = false;         // an API stall began: no client can stop the robot
    std::vector<std::string> reports;  // to log (each once, when a stall begins or ends)
  };

  // `last_tick_us`: the control loop's last tick (-1 before the first); `api_heartbeat_us`: the
  // API thread's last stamp. Steady clock, µs.
  Verdict Check(std::int64_t now_us, std::int64_t last_tick_us, std::int64_t api_heartbeat_us);

 private:
  bool control_stalled_ = false;
  bool api_stalled_ = false;
  std::int64_t api_stall_since_us_ = 0;
};

class Supervisor {
 public:
  static constexpr std::int64_t kCheckPeriodUs = 50'000;

  // All outlive the supervisor. `api_heartbeat_us` is stamped by the API thread.
  Supervisor(const ControlLoop& loop, ControlChannels* channels, SystemdNotifier* notifier,
             const std::atomic<std::int64_t>* api_heartbeat_us);
  ~Supervisor();

  void Start();
  void Stop();

 private:
  void Run();

  const ControlLoop& loop_;
  ControlChannels* channels_;
  SystemdNotifier* notifier_;
  const std::atomic<std::int64_t>* api_heartbeat_us_;
  Liveness liveness_;
  std::int64_t next_feed_us_ = 0;

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace robot_edge::daemon
