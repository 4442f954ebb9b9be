#include "e2e_rig.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "emulator_slack.hpp"
#include "wire.hpp"

namespace robot_edge::bench {
namespace {

using namespace std::chrono_literals;

using test::Eventually;
using test::ReadFile;

}  // namespace

// utime + stime (s) from a /proc/.../stat file; 0 when it cannot be read.
double CpuSecondsOf(const std::string& stat_path) {
  const std::string stat = ReadFile(stat_path);
  const auto paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  // After the command name: state is field 3; utime and stime are fields 14 and 15.
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

MachineCpu MachineCpuSeconds() {
  std::istringstream line(ReadFile("/proc/stat"));
  std::string cpu;
  line >> cpu;  // "cpu": the sum over every CPU
  MachineCpu m;
  unsigned long long ticks = 0;
  // user nice system idle iowait irq softirq steal (guest time is already in user).
  for (int i = 0; i < 8 && line >> ticks; ++i) {
    const double s = static_cast<double>(ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
    m.total += s;
    if (i != 3 && i != 4) m.busy += s;
  }
  return m;
}

SystemCallCost MeasureSystemCallCost() {
  // The fastest of 10 batches: another process taking the CPU in between slows a batch, never
  // speeds one up. 5000 calls in all, ~0.25 s under user-mode-linux.
  constexpr int kBatches = 10, kCalls = 500;
  const auto mean_us = [](auto call) {
    double best = INFINITY;
    for (int b = 0; b < kBatches; ++b) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < kCalls; ++i) call();
      const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - t0;
      best = std::min(best, took.count() / kCalls);
    }
    return best;
  };
  return {mean_us([] { syscall(SYS_getppid); }), mean_us([] {
            timespec ts{};
            clock_gettime(CLOCK_MONOTONIC, &ts);
          })};
}

double CpuSeconds(pid_t pid) {
  // The kernel's CPU-time clock of the process or thread (the scheduler's run time, in ns; the
  // clockid layout is the kernel's ABI: ~id << 3, 4 = a thread, 2 = CPUCLOCK_SCHED). /proc's
  // utime and stime count 10 ms ticks, too coarse for a process using 0.1 % of a CPU.
  const clockid_t clock = pid < 0 ? static_cast<clockid_t>((~static_cast<unsigned>(-pid) << 3) | 6)
                                  : static_cast<clockid_t>((~static_cast<unsigned>(pid) << 3) | 2);
  timespec ts{};
  if (clock_gettime(clock, &ts) == 0) {
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
  }
  // A negative pid is a thread of this process.
  return CpuSecondsOf(pid < 0 ? "/proc/self/task/" + std::to_string(-pid) + "/stat"
                              : "/proc/" + std::to_string(pid) + "/stat");
}

double ThreadCpuSeconds(pid_t tid) { return CpuSeconds(-static_cast<pid_t>(tid)); }

double NamedThreadCpuSeconds(pid_t pid, const std::string& name) {
  const std::string tasks = pid == 0 ? "/proc/self/task" : "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(tasks, ec)) {
    std::string comm = ReadFile(entry.path().string() + "/comm");
    while (!comm.empty() && comm.back() == '\n') comm.pop_back();
    if (comm == name) return CpuSecondsOf(entry.path().string() + "/stat");
  }
  return std::nan("");
}

std::string ThreadCpuList(pid_t pid) {
  std::string out;
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::string comm = ReadFile(entry.path().string() + "/comm");
    while (!comm.empty() && comm.back() == '\n') comm.pop_back();
    char line[128];
    std::snprintf(line, sizeof line, "%s %.2f s; ", comm.c_str(),
                  CpuSecondsOf(entry.path().string() + "/stat"));
    out += line;
  }
  return out;
}

std::unique_ptr<Child> StartLiveView(const std::string& config_path, const std::string& api_socket,
                                     const std::string& log_prefix, std::uint16_t* port) {
  auto live = std::make_unique<Child>(
      std::vector<std::string>{ROBOT_EDGE_LIVE, "--config", config_path, "--api-socket", api_socket,
                               "--address", "127.0.0.1:0"},
      log_prefix);
  const std::string listening = "live view on http://127.0.0.1:";
  if (!Eventually(
          [&] { return live->Stderr().find("connected to robot-edged") != std::string::npos; },
          20s)) {
    throw std::runtime_error("robot-edge-live did not connect:\n" + live->Stderr());
  }
  const std::string log = live->Stderr();
  *port = static_cast<std::uint16_t>(std::stoi(log.substr(log.find(listening) + listening.size())));
  return live;
}

// ---- Robot ----

Robot::Robot(bool emulator_slack, int realtime_priority) {
  char tmpl[] = "/tmp/robot-edge-bench.XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = tmpl;
  api_socket_ = dir_ + "/api.sock";
  std::string yaml = ReadFile(ROBOT_EDGE_DEFAULT_CONFIG);
  // Its recordings in its own directory, every channel (bench_e2e's recording stage).
  std::vector<std::pair<std::string, std::string>> edits = {
      {"directory: /var/lib/robot-edge/recordings", "directory: recordings"},
      {"channels: [joint_state, telemetry, events, commands]",
       "channels: [joint_state, telemetry, events, commands, diagnostics, can]"}};
  if (emulator_slack) yaml = test::WithEmulatorSlack(yaml);
  edits.push_back({"priority: 0 ", "priority: " + std::to_string(realtime_priority) + " "});
  for (const auto& [from, to] : edits) {
    const auto at = yaml.find(from);
    if (at == std::string::npos) throw std::runtime_error("config edit: '" + from + "' not found");
    yaml.replace(at, from.size(), to);
  }
  const std::string config_path = dir_ + "/robot-edge.yaml";
  std::ofstream(config_path) << yaml;
  config_ = config::LoadConfig(config_path);

  sim_ = std::make_unique<Child>(
      std::vector<std::string>{ROBOT_EDGE_SIM, "--config", config_path, "--quiet"}, dir_ + "/sim");
  if (!Eventually([this] { return sim_->Stdout().find("ready") != std::string::npos; }, 30s)) {
    throw std::runtime_error("robot-edge-sim did not start:\n" + sim_->Stderr());
  }
  daemon_ = std::make_unique<Child>(
      std::vector<std::string>{ROBOT_EDGED, "--config", config_path, "--api-socket", api_socket_,
                               "--log-level", "warn"},
      dir_ + "/daemon");
  const bool up = Eventually(
      [this] {
        try {
          client::Client::ConnectUnix(api_socket_, 1s);
          return true;
        } catch (const client::ClientError&) {
          return false;
        }
      },
      30s);
  if (!up) throw std::runtime_error("robot-edged did not open its socket:\n" + daemon_->Stderr());
  live_ = StartLiveView(config_path, api_socket_, dir_ + "/live", &live_port_);
}

Robot::~Robot() {
  live_.reset();
  daemon_.reset();
  sim_.reset();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

client::Client ConnectUnix(const std::string& socket, const std::string& controller,
                           bool want_results, bool telemetry) {
  auto c = client::Client::ConnectUnix(socket, 5s);
  edge::Hello hello;
  hello.set_controller(controller);
  hello.set_want_command_results(want_results);
  hello.set_no_telemetry(!telemetry);
  c.Hello(hello, 5s);
  return c;
}

client::Client Robot::Connect(const std::string& controller, bool want_results, bool telemetry) {
  return ConnectUnix(api_socket_, controller, want_results, telemetry);
}

std::unique_ptr<FrameSource> Robot::Tap(const std::string& interface,
                                        const std::vector<canid_t>& ids) {
  std::vector<std::string> buses;
  for (const auto& b : config_.buses) buses.push_back(b.interface);
  return std::make_unique<CanTap>(interface, buses, ids);
}

// ---- DiagnosticsWatcher ----

DiagnosticsWatcher::DiagnosticsWatcher(Target& target) : client_(target.Connect("", false, false)) {
  thread_ = std::thread([this] {
    while (!stop_) {
      std::optional<edge::ServerMessage> m;
      try {
        m = client_.Read(100ms);
      } catch (const client::ClientError&) {
        return;
      }
      if (!m || !m->has_event() || !m->event().has_diagnostics()) continue;
      const edge::DiagnosticsExtension& d = m->diagnostics_extension();
      Diagnostics out;
      out.t_ns = RealtimeNs();
      out.loop_rate_hz = d.loop_rate_hz();
      out.loop_overruns = d.loop_overruns();
      out.period_max_us = d.period_max_us();
      out.period_jitter_us = d.period_jitter_us();
      out.wake_latency_max_us = d.wake_latency_max_us();
      out.tick_work_max_us = d.tick_work_max_us();
      for (const auto& c : d.command_drops()) {
        if (c.reason() == "queue_full") out.queue_full = c.count();
        if (c.reason() == "not_controller") out.not_controller = c.count();
      }
      for (const auto& h : d.can_buses()) out.bus_load.push_back(h.bus_load());
      std::lock_guard lock(mutex_);
      received_.push_back(std::move(out));
    }
  });
}

DiagnosticsWatcher::~DiagnosticsWatcher() {
  stop_ = true;
  thread_.join();
}

std::vector<Diagnostics> DiagnosticsWatcher::Between(std::int64_t from_ns,
                                                     std::int64_t to_ns) const {
  std::lock_guard lock(mutex_);
  std::vector<Diagnostics> out;
  for (const auto& d : received_) {
    if (d.t_ns >= from_ns && d.t_ns <= to_ns) out.push_back(d);
  }
  return out;
}

Diagnostics DiagnosticsWatcher::Latest() const {
  std::lock_guard lock(mutex_);
  return received_.empty() ? Diagnostics{} : received_.back();
}

}  // namespace robot_edge::bench
