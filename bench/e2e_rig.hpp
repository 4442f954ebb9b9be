// The end-to-end rig of bench_e2e (the ideas of tests/e2e/harness, without gtest): robot-edge-sim
// and robot-edged as real processes on vcan0..vcan4, clients on the daemon's socket, an observer
// that records EdgeDiagnostics, and the CPU time of a process from /proc.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client/client.hpp"
#include "config/config.hpp"
#include "wire.hpp"

#include "child_process.hpp"

namespace robot_edge::bench {

using Millis = std::chrono::milliseconds;

using test::Child;

// robot-edge-live (the live view, a process of its own) on robot-edged's `api_socket`, reading
// `config_path` but listening on 127.0.0.1:`port`, a free port it picks. Its log is
// `log_prefix`'s. Throws when it did not connect to robot-edged within 20 s.
std::unique_ptr<Child> StartLiveView(const std::string& config_path, const std::string& api_socket,
                                     const std::string& log_prefix, std::uint16_t* port);

// CPU time used so far, in seconds, from the kernel's CPU-time clock of the process or, for one
// thread of this process, of the thread (/proc/.../stat's utime + stime when that clock is
// refused).
double CpuSeconds(pid_t pid);
double ThreadCpuSeconds(pid_t tid);
// CPU time (s) of the thread named `name` (its comm, as pthread_setname_np set it) of process
// `pid` (0: this process); NaN when it has none.
double NamedThreadCpuSeconds(pid_t pid, const std::string& name);
// Each thread of process `pid` with its CPU time so far: "name 1.23 s; ..." (for a log line).
std::string ThreadCpuList(pid_t pid);
// The whole machine's CPU time from /proc/stat, in seconds summed over its CPUs: `busy` (every
// state but idle and iowait) and `total`.
struct MachineCpu {
  double busy = 0;
  double total = 0;
};
MachineCpu MachineCpuSeconds();

// What one system call costs here, µs (the mean over the fastest of a few batches): getppid, which
// always enters the kernel, and clock_gettime(CLOCK_MONOTONIC), which a real kernel serves from the
// vDSO without entering it and user-mode-linux does not (each is a ptrace round trip on the host
// there, and its cost depends on the host). The CPU figures of a vcan/UML run scale with these: a
// program making hundreds of system calls a period pays them hundreds of times.
struct SystemCallCost {
  double getppid_us = 0;
  double clock_gettime_us = 0;
};
SystemCallCost MeasureSystemCallCost();

// A running robot-edged as the scenarios of bench_e2e see it: clients on its socket, its command
// frames, its CPU time.
// A client on robot-edged's Unix socket, its Hello answered: what every Target's Connect() does.
client::Client ConnectUnix(const std::string& socket, const std::string& controller,
                           bool want_results, bool telemetry);

class Target {
 public:
  virtual ~Target() = default;
  virtual const config::Config& config() const = 0;
  // A connected client (Hello answered); "" = observer.
  virtual client::Client Connect(const std::string& controller, bool want_results,
                                 bool telemetry) = 0;
  // The command frames sent on `interface` ("" = every bus) to these CAN ids, from now on.
  virtual std::unique_ptr<FrameSource> Tap(const std::string& interface,
                                           const std::vector<canid_t>& ids) = 0;
  virtual double DaemonCpuSeconds() = 0;
  // The simulator's CPU time; NaN when there is none.
  virtual double SimCpuSeconds() = 0;
  // Whether /sys/class/net/<bus>/statistics count the frames on the buses.
  virtual bool CountsBusFrames() const = 0;
  // CPU time of robot-edged's thread `name` ("re-record": the flight recorder); NaN when there
  // is none (the live view is robot-edge-live, another process).
  virtual double ThreadCpuSeconds(const std::string& name) = 0;
  // The live view's WebSocket URL (robot-edge-live's, "ws://127.0.0.1:PORT/"); "" when none.
  virtual std::string LiveUrl() const = 0;
  // Turns the copy of every CAN frame for the recorder's /can channel on or off, when the
  // target can (in-process); false when it cannot (robot-edged copies while its recorder runs).
  virtual bool CopyCanFrames(bool /*on*/) { return false; }
};

// robot-edge-sim and robot-edged on the default config (optionally with a real-time priority)
// with the emulator's slack of scripts/emulator-slack.tsv, as the test rig (a user-mode-linux
// process can be held for 100 ms; the 200 ms trajectory timeout is kept).
class Robot final : public Target {
 public:
  // `realtime_priority` > 0: realtime.priority (SCHED_FIFO for the control thread), as on the
  // robot; 0 keeps the default config's normal scheduling.
  Robot(bool emulator_slack, int realtime_priority);
  ~Robot() override;
  const config::Config& config() const override { return config_; }
  client::Client Connect(const std::string& controller, bool want_results, bool telemetry) override;
  std::unique_ptr<FrameSource> Tap(const std::string& interface,
                                   const std::vector<canid_t>& ids) override;
  double DaemonCpuSeconds() override { return CpuSeconds(daemon_->pid()); }
  double SimCpuSeconds() override { return CpuSeconds(sim_->pid()); }
  bool CountsBusFrames() const override { return true; }
  double ThreadCpuSeconds(const std::string& name) override {
    return NamedThreadCpuSeconds(daemon_->pid(), name);
  }
  std::string LiveUrl() const override {
    return "ws://127.0.0.1:" + std::to_string(live_port_) + "/";
  }
  std::string DaemonLog() const { return daemon_->Stderr(); }

 private:
  std::string dir_, api_socket_;
  config::Config config_;
  std::unique_ptr<Child> sim_;
  std::unique_ptr<Child> daemon_;
  std::uint16_t live_port_ = 0;
  std::unique_ptr<Child> live_;  // robot-edge-live on daemon_'s socket
};

// The loop figures robot-edged publishes once a second (each the max over its ~1 s window).
struct Diagnostics {
  std::int64_t t_ns = 0;  // when received (CLOCK_REALTIME)
  float loop_rate_hz = 0;
  std::uint64_t loop_overruns = 0;
  float period_max_us = 0, period_jitter_us = 0, wake_latency_max_us = 0, tick_work_max_us = 0;
  std::uint64_t queue_full = 0, not_controller = 0;
  std::vector<double> bus_load;  // per bus, as the daemon computes it
};

// An observer client on a thread of its own that keeps every EdgeDiagnostics.
class DiagnosticsWatcher {
 public:
  explicit DiagnosticsWatcher(Target& target);
  ~DiagnosticsWatcher();
  // Those received between the two times (CLOCK_REALTIME ns).
  std::vector<Diagnostics> Between(std::int64_t from_ns, std::int64_t to_ns) const;
  Diagnostics Latest() const;

 private:
  client::Client client_;
  mutable std::mutex mutex_;
  std::vector<Diagnostics> received_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace robot_edge::bench
