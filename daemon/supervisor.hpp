// The systemd watchdog, fed only while both threads that must run are alive: the control thread
// (its last tick) and the API thread (a heartbeat its event loop stamps). It runs on a thread of
// its own, so that a stalled API thread is seen: it is reported (the log, and sd_notify STATUS=)
// and walking is stopped (no client can stop the robot meanwhile) well before systemd kills the
// process (WatchdogSec) — whose SIGABRT then reaches the fatal-signal DAMP, then ExecStopPost.
// A control thread whose last tick is older than safety.control_stall_ms is not waited for: the
// supervisor sends every motor's pre-encoded DAMP frame itself (fatal_signals.hpp,
// SendStallDamp()), and the control thread, if it runs again, holds DAMP with CONTROL_STALLED.
//
// Threads: Liveness and StallJudge are pure (times passed in). Supervisor::Start() / Stop() from
// the main thread; its thread reads the two heartbeats, writes ControlChannels::urgent and
// sd_notify, and sends the stall DAMP.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "daemon/channels/control_channels.hpp"
#include "daemon/control/fatal_signals.hpp"
#include "daemon/notify.hpp"

namespace robot_edge::daemon {

class ControlLoop;  // daemon/control/control_loop.hpp: the loop whose heartbeat is watched

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

// Judges the control thread's last tick for the stall DAMP (safety.control_stall_ms).
class StallJudge {
 public:
  // `stall_us` 0: off. `check_period_us`: how often Check() is meant to run.
  StallJudge(std::int64_t stall_us, std::int64_t check_period_us)
      : stall_us_(stall_us), check_period_us_(check_period_us) {}

  // > 0: DAMP now, the last tick (steady µs; -1 before the first) is this many ms old. Once per
  // stall (again only after a tick younger than the bound). Never on a check that came late
  // (over two periods after the previous one): the whole process was held up, not the control
  // thread alone, and it gets a period to tick first.
  std::uint32_t Check(std::int64_t now_us, std::int64_t last_tick_us);

 private:
  std::int64_t stall_us_, check_period_us_;
  std::int64_t last_check_us_ = -1;
  bool damped_ = false;  // this stall was DAMPed
};

class Supervisor {
 public:
  static constexpr std::int64_t kCheckPeriodUs = 50'000;
  // Sends the stall DAMP; returns the frames sent (SendStallDamp(), or a test's).
  using StallDamp = std::function<std::size_t(std::uint32_t stalled_ms)>;

  // All outlive the supervisor. `api_heartbeat_us` is stamped by the API thread.
  // `control_stall_us`: safety.control_stall_ms in µs (0 = no stall DAMP); the checks run every
  // min(kCheckPeriodUs, control_stall_us / 4).
  Supervisor(const ControlLoop& loop, ControlChannels* channels, SystemdNotifier* notifier,
             const std::atomic<std::int64_t>* api_heartbeat_us, std::int64_t control_stall_us = 0,
             StallDamp stall_damp = SendStallDamp);
  ~Supervisor();

  void Start();
  void Stop();

 private:
  void Run();
  bool WaitForStop();  // a check period, or true once Stop() was called
  void CheckStall(std::int64_t now_us);

  const ControlLoop& loop_;
  ControlChannels* channels_;
  SystemdNotifier* notifier_;
  const std::atomic<std::int64_t>* api_heartbeat_us_;
  std::int64_t check_period_us_;
  StallDamp stall_damp_;
  Liveness liveness_;
  StallJudge stall_judge_;
  std::int64_t next_feed_us_ = 0;

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace robot_edge::daemon
