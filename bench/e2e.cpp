// End-to-end figures on vcan: robot-edged driving robot-edge-sim, watched from the wire with
// kernel timestamps. Run it inside tests/vcan/run (it needs vcan0..vcan4); bench/run does.
//
//   floor      one raw CAN socket's write to another's kernel receive timestamp on vcan4
//   latency    a client sends a trajectory whose L_Shoulder_Pitch position is a unique 16-bit
//              code; the first command frame carrying that code is found on the wire
//   watchdog   stream 4 packets at 50 Hz, stop: last packet -> first DAMP frame (kp 0) on each bus
//   loop       the period between consecutive command frames of joint 0 for 60 s, the daemon's
//              CPU share (/proc), overruns (its diagnostics), frames per bus (sysfs tx_packets)
//   clients    10 s phases: 0, 1, 10, 50 telemetry clients, 10 clients streaming at 50 Hz
//
// With --in-process the same scenarios run against robot-edged's own parts wired in this process
// (inproc.hpp) on this machine's kernel: no vcan, no simulator, no floor and no bus load.
//
// Usage: bench_e2e ROWS_FILE [--quick] [--in-process] [--realtime PRIORITY]
//   --quick        small counts, to try the program out
//   --realtime P   the daemon's control thread at SCHED_FIFO priority P (realtime.priority), as
//                  on the robot; bench/run does not use it (see bench/README.md)
#include <poll.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "can/mit_codec.hpp"
#include "can/motor_scheduler.hpp"
#include "client/commands.hpp"
#include "e2e_rig.hpp"
#include "inproc.hpp"
#include "stats.hpp"
#include "support.hpp"
#include "wire.hpp"

namespace robot_edge::bench {
namespace {

using namespace std::chrono_literals;

struct Settings {
  int floor_samples = 1000;
  int commands = 1000;
  int watchdog_trials = 200;
  int loop_s = 60;
  int phase_s = 10;
};

struct Context {
  Settings settings;
  std::string source;      // where the figures come from (see bench/report.cpp's legend)
  std::string prefix;      // of every section: "vcan" or "in-process"
  bool uml = false;        // timing budgets are for a real kernel: say so next to the figures
  SystemCallCost syscall;  // measured before robot-edged starts (vcan runs)
  std::vector<Row> rows;
  std::mt19937 random{12345};

  void Add(const std::string& section, const std::string& figure, double value, int decimals,
           const std::string& budget, const std::string& unit, const std::string& verdict,
           const std::string& note = "") {
    rows.push_back({section, figure, Format(value, decimals), budget, unit, verdict, source, note});
    std::printf("  %-58s %10s %-6s %s\n", figure.c_str(), Format(value, decimals).c_str(),
                unit.c_str(), note.c_str());
    std::fflush(stdout);
  }
  void SleepRandomMs(int lo, int hi) {
    std::uniform_int_distribution<int> us(lo * 1000, hi * 1000);
    std::this_thread::sleep_for(std::chrono::microseconds(us(random)));
  }
};

std::vector<float> StandPose(const config::Config& c) {
  std::vector<float> pose;
  for (const auto& j : c.joints) pose.push_back(static_cast<float>(j.stand_rad));
  return pose;
}

void DrainClient(client::Client& c) {
  while (c.Read(0ms)) {
  }
}

std::vector<std::string> Interfaces(const config::Config& c) {
  std::vector<std::string> names;
  for (const auto& b : c.buses) names.push_back(b.interface);
  return names;
}

// ---- floor ----

Summary MeasureFloor(Context& ctx, const std::string& interface) {
  constexpr canid_t kProbeId = 0x7F0;  // not used by the robot
  CanTap writer(interface, {interface}, {0x7FE});
  CanTap reader(interface, {interface}, {kProbeId});
  std::vector<double> us;
  std::vector<TappedFrame> frames;
  for (int i = 0; i < ctx.settings.floor_samples; ++i) {
    can_frame f{};
    f.can_id = kProbeId;
    f.len = 4;
    std::memcpy(f.data, &i, 4);
    reader.Drain();
    const std::int64_t t0 = RealtimeNs();
    if (!writer.Write(f)) continue;
    frames.clear();
    const auto deadline = std::chrono::steady_clock::now() + 100ms;
    bool found = false;
    while (!found && std::chrono::steady_clock::now() < deadline) {
      reader.Read(20, &frames);
      for (const auto& t : frames) {
        int seen = 0;
        std::memcpy(&seen, t.frame.data, 4);
        if (seen == i) {
          us.push_back(static_cast<double>(t.t_ns - t0) / 1000.0);
          found = true;
        }
      }
    }
    ctx.SleepRandomMs(0, 2);
  }
  return Summarize(us);
}

// ---- command-to-wire latency ----

struct Latency {
  Summary us;          // send() -> the first command frame carrying it (kernel timestamp)
  Summary applied_us;  // send() -> the control tick that applied it (echoed key; joint stream)
  int lost = 0;
};

// The JointStates that arrived, until the one whose user_command_key is `key` (within `timeout`):
// its applied time (robot µs), or -1.
std::int64_t AppliedUs(client::Client& c, std::uint32_t key, Millis timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto m = c.Read(5ms);
    if (m && m->has_joint_state() && m->joint_state().user_command_key() == key) {
      return m->joint_state().user_command_key_applied_us();
    }
  }
  return -1;
}

// Commands 8-16 ms apart (random, so the phase to the tick varies), each with a unique 16-bit
// position code for L_Hip_Pitch (a joint without target_limits: the code reaches the wire as
// sent): trajectories, or with `joint_stream` JointCommands (gains on each, end_time 100 ms
// ahead, user_command_key k, the state stream at the control rate for the echoed key).
Latency MeasureLatency(Context& ctx, Target& robot, bool joint_stream) {
  const config::Config& c = robot.config();
  constexpr std::size_t kJoint = 0;  // L_Hip_Pitch: -2.0 .. 1.5 rad
  const auto& joint = c.joints[kJoint];
  const std::string interface = c.buses[joint.bus].interface;
  const auto tap = robot.Tap(interface, {joint.can_id});
  const can::MitRanges ranges = can::ProtocolOf(c.motor_of(kJoint)).ranges;
  const std::uint32_t base =
      can::FloatToUint(-1.0f, -ranges.p_max, ranges.p_max, can::kPositionBits);
  auto client = robot.Connect("cloud", false, false);
  client::ClockOffset clock;
  if (joint_stream) {
    clock = client.SyncClock(5, 2000ms);
    client.StreamState(static_cast<std::uint32_t>(c.control.rate_hz), 2000ms);
  }
  std::vector<float> pose = StandPose(c), kp, kd;
  for (const auto& j : c.joints)
    kp.push_back(static_cast<float>(j.kp)), kd.push_back(static_cast<float>(j.kd));
  std::vector<double> us, applied;
  Latency out;
  std::vector<TappedFrame> frames;
  constexpr int kWarmUp = 20;
  for (int k = 0; k < kWarmUp + ctx.settings.commands; ++k) {
    const auto code = static_cast<std::uint16_t>(base + 3 * (k % 400));
    pose[kJoint] = can::UintToFloat(code, -ranges.p_max, ranges.p_max, can::kPositionBits);
    const auto key = static_cast<std::uint32_t>(k + 1);
    ctx.SleepRandomMs(8, 16);
    DrainClient(client);
    tap->Drain();
    const std::int64_t sent_robot_us = clock.ToRobot(client::MonotonicMicros());
    const std::int64_t t0 = RealtimeNs();
    if (joint_stream) {
      edge::JointCommand command = client::MakeJointCommand({.position = pose,
                                                             .kp = kp,
                                                             .kd = kd,
                                                             .end_time_us = sent_robot_us + 100'000,
                                                             .user_command_key = key});
      command.set_sequence(key);
      command.set_timestamp_us(client::WallClockMicros());
      client.Send(command);
    } else {
      edge::CloudCommand command = client::MakeTrajectory(pose);
      command.set_sequence(key);
      command.set_timestamp_us(client::WallClockMicros());
      client.Send(command);
    }
    frames.clear();
    const auto deadline = std::chrono::steady_clock::now() + 200ms;
    std::int64_t seen_ns = -1;
    std::size_t looked = 0;
    while (seen_ns < 0 && std::chrono::steady_clock::now() < deadline) {
      tap->Read(20, &frames);
      for (; looked < frames.size() && seen_ns < 0; ++looked) {
        const auto& f = frames[looked];
        if (!IsSpecial(f.frame) && PositionCode(f.frame) == code && f.t_ns >= t0) seen_ns = f.t_ns;
      }
    }
    const std::int64_t applied_us = joint_stream ? AppliedUs(client, key, 100ms) : -1;
    if (k < kWarmUp) continue;
    if (seen_ns < 0) {
      ++out.lost;
    } else {
      us.push_back(static_cast<double>(seen_ns - t0) / 1000.0);
    }
    if (applied_us >= 0) applied.push_back(static_cast<double>(applied_us - sent_robot_us));
  }
  out.us = Summarize(us);
  out.applied_us = Summarize(applied);
  return out;
}

// ---- watchdog ----

struct Watchdog {
  Summary slowest_bus_ms;  // per trial: last packet -> DAMP on the last of the buses
  Summary first_bus_ms;    // per trial: ... on the first
  double spread_max_ms = 0;
  int invalid = 0;
};

Watchdog MeasureWatchdog(Context& ctx, Target& robot) {
  const config::Config& c = robot.config();
  const auto buses = Interfaces(c);
  const auto tap = robot.Tap("", {1});  // the first motor of every bus has id 1
  auto client = robot.Connect("cloud", true, false);
  const std::vector<float> pose = StandPose(c);
  std::vector<double> slowest, first;
  Watchdog out;
  std::uint32_t sequence = 100000;
  std::vector<TappedFrame> frames;
  for (int trial = 0; trial < ctx.settings.watchdog_trials; ++trial) {
    std::int64_t t_last = 0;
    for (int p = 0; p < 4; ++p) {
      if (p > 0) std::this_thread::sleep_for(20ms);
      edge::CloudCommand command = client::MakeTrajectory(pose);
      command.set_sequence(++sequence);
      command.set_timestamp_us(client::WallClockMicros());
      DrainClient(client);
      tap->Drain();
      t_last = RealtimeNs();
      client.Send(command);
    }
    const auto result = client.WaitCommandResult(sequence, 1000ms);
    if (!result || !result->accepted()) {
      ++out.invalid;
      std::this_thread::sleep_for(300ms);
      continue;
    }
    std::vector<std::int64_t> damp_ns(buses.size(), -1);
    std::vector<bool> moving(buses.size(), false);
    std::size_t found = 0, looked = 0;
    frames.clear();
    const auto deadline = std::chrono::steady_clock::now() + 1500ms;
    while (found < buses.size() && std::chrono::steady_clock::now() < deadline) {
      tap->Read(50, &frames);
      for (; looked < frames.size(); ++looked) {
        const auto& f = frames[looked];
        const auto b = static_cast<std::size_t>(f.bus);
        if (IsSpecial(f.frame) || f.t_ns < t_last || damp_ns[b] >= 0) continue;
        if (KpCode(f.frame) != 0) {
          moving[b] = true;
        } else if (moving[b]) {  // DAMP after MOVE was seen on this bus
          damp_ns[b] = f.t_ns;
          ++found;
        }
      }
    }
    if (found < buses.size()) {
      ++out.invalid;
    } else {
      const auto [lo, hi] = std::minmax_element(damp_ns.begin(), damp_ns.end());
      slowest.push_back(static_cast<double>(*hi - t_last) / 1e6);
      first.push_back(static_cast<double>(*lo - t_last) / 1e6);
      out.spread_max_ms = std::max(out.spread_max_ms, static_cast<double>(*hi - *lo) / 1e6);
    }
    ctx.SleepRandomMs(5, 25);
  }
  out.slowest_bus_ms = Summarize(slowest);
  out.first_bus_ms = Summarize(first);
  return out;
}

// ---- emergency stop ----

// A client's DAMP -> a DAMP frame (kp 0) on every bus, from MOVE/TRAJECTORY (stiff frames seen
// on each bus first). The control thread is woken for it instead of waiting for its next tick.
Summary MeasureEmergencyStop(Context& ctx, Target& robot, int* invalid) {
  const config::Config& c = robot.config();
  const auto buses = Interfaces(c);
  const auto tap = robot.Tap("", {1});  // the first motor of every bus has id 1
  auto client = robot.Connect("cloud", true, false);
  const std::vector<float> pose = StandPose(c);
  std::vector<double> us;
  std::uint32_t sequence = 200000;
  std::vector<TappedFrame> frames;
  for (int trial = 0; trial < ctx.settings.commands / 4; ++trial) {
    edge::CloudCommand move = client::MakeTrajectory(pose);
    move.set_sequence(++sequence);
    move.set_timestamp_us(client::WallClockMicros());
    client.Send(move);
    ctx.SleepRandomMs(10, 20);  // stiff frames on every bus, and a random phase in the period
    DrainClient(client);
    tap->Drain();
    edge::CloudCommand damp = client::MakeMode(edge::MODE_DAMP);
    damp.set_sequence(++sequence);
    damp.set_timestamp_us(client::WallClockMicros());
    const std::int64_t t0 = RealtimeNs();
    client.Send(damp);
    std::vector<std::int64_t> damp_ns(buses.size(), -1);
    std::size_t found = 0, looked = 0;
    frames.clear();
    const auto deadline = std::chrono::steady_clock::now() + 500ms;
    while (found < buses.size() && std::chrono::steady_clock::now() < deadline) {
      tap->Read(20, &frames);
      for (; looked < frames.size(); ++looked) {
        const auto& f = frames[looked];
        const auto b = static_cast<std::size_t>(f.bus);
        if (IsSpecial(f.frame) || f.t_ns < t0 || damp_ns[b] >= 0 || KpCode(f.frame) != 0) continue;
        damp_ns[b] = f.t_ns;
        ++found;
      }
    }
    if (found < buses.size()) {
      ++*invalid;
    } else {
      us.push_back(static_cast<double>(*std::max_element(damp_ns.begin(), damp_ns.end()) - t0) /
                   1000.0);
    }
    std::this_thread::sleep_for(250ms);  // past the trajectory timeout: the next stream is new
  }
  return Summarize(us);
}

// ---- loop period from the wire ----

struct Window {
  Summary period_us;
  std::size_t late = 0;  // periods longer than 1.5 control periods
  std::size_t over_10ms = 0, over_20ms = 0, over_50ms = 0;  // gaps a stall detector would see
  double seconds = 0;
  double daemon_cpu = 0, sim_cpu = 0;  // share of one CPU
  std::vector<double> frames_per_s;    // per bus
  std::vector<Diagnostics> diagnostics;
};

// Records joint 0's command frames for `seconds` (vcan0, id 1) while the robot runs as it is.
Window RecordWindow(Target& robot, DiagnosticsWatcher& diag, int seconds) {
  const config::Config& c = robot.config();
  const std::string bus0 = c.buses[c.joints[0].bus].interface;
  const auto tap = robot.Tap(bus0, {c.joints[0].can_id});
  const auto buses = Interfaces(c);
  std::vector<std::uint64_t> tx0;
  const bool sysfs = robot.CountsBusFrames();
  for (const auto& b : buses) tx0.push_back(sysfs ? TxPackets(b) : 0);
  const double cpu0 = robot.DaemonCpuSeconds(), sim0 = robot.SimCpuSeconds();
  const std::int64_t t0 = RealtimeNs();
  const std::int64_t end = t0 + static_cast<std::int64_t>(seconds) * 1'000'000'000;
  std::vector<TappedFrame> frames;
  frames.reserve(static_cast<std::size_t>(seconds) * 600);
  while (RealtimeNs() < end) tap->Read(100, &frames);
  const std::int64_t t1 = RealtimeNs();
  Window w;
  w.seconds = static_cast<double>(t1 - t0) / 1e9;
  w.daemon_cpu = (robot.DaemonCpuSeconds() - cpu0) / w.seconds;
  w.sim_cpu = (robot.SimCpuSeconds() - sim0) / w.seconds;
  for (std::size_t b = 0; sysfs && b < buses.size(); ++b) {
    w.frames_per_s.push_back(static_cast<double>(TxPackets(buses[b]) - tx0[b]) / w.seconds);
  }
  std::vector<double> periods;
  std::int64_t previous = -1;
  for (const auto& f : frames) {
    if (IsSpecial(f.frame)) continue;
    if (previous >= 0) periods.push_back(static_cast<double>(f.t_ns - previous) / 1000.0);
    previous = f.t_ns;
  }
  for (double p : periods) {
    w.late += p > 1.5 * static_cast<double>(kPeriodUs);
    w.over_10ms += p > 10'000;
    w.over_20ms += p > 20'000;
    w.over_50ms += p > 50'000;
  }
  w.period_us = Summarize(periods);
  w.diagnostics = diag.Between(t0, t1);
  return w;
}

float MaxOf(const std::vector<Diagnostics>& d, float Diagnostics::*field) {
  float m = 0;
  for (const auto& x : d) m = std::max(m, x.*field);
  return m;
}

void Stand(Target& robot) {
  auto client = robot.Connect("cloud", true, false);
  edge::CloudCommand stand = client::MakeMode(edge::MODE_STAND);
  stand.set_sequence(1);
  stand.set_timestamp_us(client::WallClockMicros());
  client.Send(stand);
  const auto r = client.WaitCommandResult(1, 2000ms);
  if (!r || !r->accepted()) throw std::runtime_error("STAND was refused");
  std::this_thread::sleep_for(2500ms);  // the ramp
}

// ---- clients ----

// Clients on a thread of their own: reads everything that arrives (telemetry and JointStates
// counted), and makes the streaming ones send a trajectory every 20 ms (staggered). State clients
// ask for the state stream at the control rate.
class ClientPool {
 public:
  ClientPool(Target& robot, int telemetry_clients, int streaming_clients, int state_clients = 0) {
    for (int i = 0; i < telemetry_clients; ++i) clients_.push_back(robot.Connect("", false, true));
    for (int i = 0; i < streaming_clients; ++i) {
      clients_.push_back(robot.Connect("cloud", true, false));
      streaming_.push_back(clients_.size() - 1);
    }
    const auto control_rate = static_cast<std::uint32_t>(robot.config().control.rate_hz);
    for (int i = 0; i < state_clients; ++i) {
      clients_.push_back(robot.Connect("", false, false));
      if (clients_.back().StreamState(control_rate, 2000ms) != control_rate) ++failures;
    }
    pose_ = StandPose(robot.config());
    thread_ = std::thread([this] { Run(); });
  }
  ~ClientPool() {
    stop_ = true;
    thread_.join();
  }
  std::atomic<std::uint64_t> telemetry{0}, states{0}, accepted{0}, dropped{0}, sent{0}, failures{0};

 private:
  void Run() {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::chrono::steady_clock::time_point> next;
    for (std::size_t i = 0; i < streaming_.size(); ++i) next.push_back(start + i * 2ms);
    std::uint32_t sequence = 0;
    std::vector<pollfd> fds;
    while (!stop_) {
      fds.clear();
      for (auto& c : clients_) fds.push_back({c.fd(), POLLIN, 0});
      ::poll(fds.data(), fds.size(), 2);
      for (std::size_t i = 0; i < clients_.size(); ++i) {
        if ((fds[i].revents & POLLIN) == 0 && !clients_[i].HasBufferedMessage()) continue;
        try {
          while (const auto m = clients_[i].Read(0ms)) {
            if (m->has_telemetry()) ++telemetry;
            if (m->has_joint_state()) ++states;
            if (m->has_command_result()) ++(m->command_result().accepted() ? accepted : dropped);
          }
        } catch (const client::ClientError&) {
          ++failures;
        }
      }
      const auto now = std::chrono::steady_clock::now();
      for (std::size_t s = 0; s < streaming_.size(); ++s) {
        if (now < next[s]) continue;
        next[s] += 20ms;
        edge::CloudCommand command = client::MakeTrajectory(pose_);
        command.set_sequence(++sequence);
        command.set_timestamp_us(client::WallClockMicros());
        try {
          clients_[streaming_[s]].Send(command, 100ms);
          ++sent;
        } catch (const client::ClientError&) {
          ++failures;
        }
      }
    }
  }

  std::vector<client::Client> clients_;
  std::vector<std::size_t> streaming_;
  std::vector<float> pose_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// ---- figures ----

void AddWindowRows(Context& ctx, const std::string& section, const std::string& what,
                   const Window& w, bool full) {
  const double budget_us = 1.1 * static_cast<double>(kPeriodUs);
  const std::string real_kernel = ctx.uml ? "budget is for a real kernel" : "";
  ctx.Add(section, what + "tick period p50", w.period_us.p50, 0, "", "µs", "");
  ctx.Add(section, what + "tick period p99", w.period_us.p99, 0, "≤ 2200", "µs",
          Verdict(w.period_us.p99, budget_us), real_kernel);
  ctx.Add(section, what + "tick period max", w.period_us.max, 0, "", "µs", "",
          std::to_string(w.period_us.count) + " periods from the wire");
  if (full) {
    ctx.Add(section, what + "periods > 3 ms (late ticks on the wire)", static_cast<double>(w.late),
            0, "", "count", "");
  }
  ctx.Add(section, what + "robot-edged CPU share", 100.0 * w.daemon_cpu, 1, "", "% of one CPU", "",
          "/proc/<pid>/stat utime + stime");
  ctx.Add(section, what + "tick work max (diagnostics)",
          MaxOf(w.diagnostics, &Diagnostics::tick_work_max_us), 0, "", "µs", "",
          "max over the 1 s windows");
  ctx.Add(section, what + "wake-up latency max (diagnostics)",
          MaxOf(w.diagnostics, &Diagnostics::wake_latency_max_us), 0, "", "µs", "");
}

// The bound on what recording or viewers may cost the loop: 1 % of a period (µs), as a
// slowdown of the period's p99; a faster window is noise, not a cost.
double OnePercentOfAPeriod() { return 0.01 * static_cast<double>(kPeriodUs); }
std::string OnePercentBudget() { return "≤ " + Format(OnePercentOfAPeriod(), 0); }

// The flight recorder, side by side with the loop window just measured without it (`without`):
// the same window recording every channel (the tick's state at the control rate, telemetry,
// events, commands, diagnostics, every CAN frame; zstd), through a client's RecorderRequest as an
// operator would.
void MeasureRecording(Context& ctx, Target& robot, DiagnosticsWatcher& diag,
                      const Window& without) {
  const std::string section = ctx.prefix + ": flight recorder, " +
                              std::to_string(ctx.settings.loop_s) + " s each, side by side";
  auto c = robot.Connect("maintainer", false, false);
  edge::RecorderRequest start;
  start.set_request_id(1);
  start.set_op(edge::RecorderRequest::OP_START);
  const auto started = c.Record(start, 3000ms);
  if (!started || !started->ok()) {
    ctx.Add(section, "recording could not start", 1, 0, "0", "count", "MISS",
            started ? started->error() : "no answer");
    return;
  }
  const std::uint64_t kept0 = started->status().bytes_kept();  // recordings before this one
  // In-process the window without recording copied no CAN frame; this one copies them all.
  const bool can_toggled = robot.CopyCanFrames(true);
  const double cpu0 = robot.ThreadCpuSeconds("re-record");
  const Window w = RecordWindow(robot, diag, ctx.settings.loop_s);
  const double cpu1 = robot.ThreadCpuSeconds("re-record");
  robot.CopyCanFrames(false);
  edge::RecorderRequest stop;
  stop.set_request_id(2);
  stop.set_op(edge::RecorderRequest::OP_STOP);
  const auto stopped = c.Record(stop, 3000ms);
  AddWindowRows(ctx, section, "recording: ", w, false);
  const double delta = w.period_us.p99 - without.period_us.p99;
  ctx.Add(section, "recording: p99 period change vs not recording", delta, 0, OnePercentBudget(),
          "µs", Verdict(delta, OnePercentOfAPeriod()),
          "at most 1 % of a period slower; faster is noise (the window above is the one without" +
              std::string(can_toggled ? ", and without the CAN frames' copy)"
                                      : "; both copy the CAN frames: the recorder runs)") +
              std::string(ctx.uml ? "; one CPU under UML" : ""));
  ctx.Add(section, "recording: robot-edged CPU change vs not recording",
          100.0 * (w.daemon_cpu - without.daemon_cpu), 1, "", "% of one CPU", "",
          "control + API threads");
  if (!std::isnan(cpu0)) {
    ctx.Add(section, "recorder thread CPU share", 100.0 * (cpu1 - cpu0) / w.seconds, 1, "",
            "% of one CPU", "", "re-record: messages built, compressed, written");
  }
  if (stopped && stopped->ok()) {
    ctx.Add(section, "recording: bytes written per second",
            static_cast<double>(stopped->status().bytes_kept() - kept0) / w.seconds / 1000.0, 0, "",
            "kB/s", "", "the closed MCAP file, zstd, 6 channels (with /can)");
    ctx.Add(section, "recording: messages lost",
            static_cast<double>(stopped->status().messages_lost()), 0, "0", "count",
            stopped->status().messages_lost() == 0 ? "ok" : "MISS",
            "the recorder fell behind or the disk failed");
  }
}

// The live view with 10 viewers (Foxglove's own client, tests/js/live_viewers.mjs, in one Node
// process), each subscribed to every channel, side by side with the loop window without any.
void MeasureViewers(Context& ctx, Target& robot, DiagnosticsWatcher& diag, const Window& without) {
  const std::string section =
      ctx.prefix + ": live view, " + std::to_string(ctx.settings.loop_s) + " s each, side by side";
  const std::string url = robot.LiveUrl();
  constexpr int kViewers = 10;
  if (url.empty()) {
    ctx.Add(section, "no live view", 1, 0, "0", "count", "MISS", "config live.address");
    return;
  }
  char dir[] = "/tmp/robot-edge-viewers.XXXXXX";
  if (::mkdtemp(dir) == nullptr) return;
  Child viewers({"/usr/bin/env", "node", ROBOT_EDGE_LIVE_VIEWERS, url, std::to_string(kViewers),
                 std::to_string(ctx.settings.loop_s + 3)},
                std::string(dir) + "/viewers");
  std::this_thread::sleep_for(2000ms);  // connected and subscribed
  const double live0 = robot.ThreadCpuSeconds("re-live");
  const Window w = RecordWindow(robot, diag, ctx.settings.loop_s);
  const double live1 = robot.ThreadCpuSeconds("re-live");
  viewers.Wait(std::chrono::seconds(15));
  const std::string out = viewers.Stdout();
  std::filesystem::remove_all(dir);
  int connected = 0;
  double messages = 0, bytes = 0;
  const auto at = out.find("\"connected\":");
  if (at == std::string::npos ||
      std::sscanf(out.c_str() + at, "\"connected\":%d,\"messages\":%lf,\"bytes\":%lf", &connected,
                  &messages, &bytes) != 3) {
    ctx.Add(section, "the viewers did not report", 1, 0, "0", "count", "MISS",
            out.substr(0, 120) + viewers.Stderr().substr(0, 200));
    return;
  }
  const std::string what = std::to_string(kViewers) + " viewers: ";
  AddWindowRows(ctx, section, what, w, false);
  const double delta = w.period_us.p99 - without.period_us.p99;
  ctx.Add(section, what + "p99 period change vs no viewer", delta, 0, OnePercentBudget(), "µs",
          Verdict(delta, OnePercentOfAPeriod()),
          "'no measurable effect': at most 1 % of a period slower; faster is noise" +
              std::string(ctx.uml ? "; one CPU under UML, the viewers on it too" : ""));
  ctx.Add(section, what + "connected", connected, 0, std::to_string(kViewers), "count",
          connected == kViewers ? "ok" : "MISS", "");
  const double seconds = static_cast<double>(ctx.settings.loop_s + 3);
  ctx.Add(section, what + "messages received per viewer per second", messages / kViewers / seconds,
          0, "", "per s", "", "every channel; /joint_state at the control rate");
  ctx.Add(section, what + "bytes sent per second, all viewers", bytes / seconds / 1000.0, 0, "",
          "kB/s", "", "");
  if (!std::isnan(live0)) {
    ctx.Add(section, what + "live thread CPU share", 100.0 * (live1 - live0) / w.seconds, 1, "",
            "% of one CPU", "", "re-live: fan-out and WebSocket writes");
  }
}

// What the stages of a run share: the diagnostics, the raw floor (vcan), and the loop window in
// STAND without clients, which later stages are compared against side by side.
struct RunState {
  DiagnosticsWatcher* diag;
  bool vcan;  // the target is on vcan buses: the raw floor and the bus load are measured
  Summary floor;
  Window loop;
};

// A figure of no sample is a miss, not a pass.
std::string Seen(const Latency& l, double value, double budget) {
  return l.us.count == 0 ? std::string("MISS") : Verdict(value, budget);
}

void FloorRows(Context& ctx, Target& robot, RunState& s) {
  const std::string sec = ctx.prefix + ": command to wire";
  s.floor = MeasureFloor(ctx, robot.config().buses.back().interface);
  ctx.Add(sec, "vcan floor: write -> receive timestamp p50", s.floor.p50, 1, "", "µs", "",
          std::to_string(s.floor.count) + " frames, same run");
  ctx.Add(sec, "vcan floor p99", s.floor.p99, 1, "", "µs", "");
  ctx.Add(sec, "vcan floor max", s.floor.max, 1, "", "µs", "");
  ctx.Add(sec, "one system call here: getppid", ctx.syscall.getppid_us, 2, "", "µs", "",
          "same run, before robot-edged started; the CPU figures of this source scale with it");
  ctx.Add(sec, "one system call here: clock_gettime", ctx.syscall.clock_gettime_us, 2, "", "µs", "",
          "a real kernel answers it from the vDSO, user-mode-linux does not");
}

void CommandToWireRows(Context& ctx, Target& robot, RunState& s) {
  const std::string sec = ctx.prefix + ": command to wire";
  const double period_us = static_cast<double>(kPeriodUs);
  const Latency lat = MeasureLatency(ctx, robot, false);
  ctx.Add(
      sec, "command-to-wire p50", lat.us.p50, 0, "", "µs", "",
      std::to_string(lat.us.count) + " trajectories, " + std::to_string(lat.lost) + " not seen");
  ctx.Add(sec, "command-to-wire p99", lat.us.p99, 0, "≤ 2500", "µs",
          Seen(lat, lat.us.p99, period_us + 500), "one control period + 0.5 ms");
  ctx.Add(sec, "command-to-wire max", lat.us.max, 0, "", "µs", "");
  if (s.vcan) {
    ctx.Add(sec, "command-to-wire p50 / floor p50", lat.us.p50 / s.floor.p50, 1, "", "x", "");
    ctx.Add(sec, "command-to-wire p99 / floor p99", lat.us.p99 / s.floor.p99, 1, "", "x", "");
  }
}

void JointCommandRows(Context& ctx, Target& robot, RunState&) {
  const std::string sec = ctx.prefix + ": command to wire";
  const double period_us = static_cast<double>(kPeriodUs);
  const Latency joint = MeasureLatency(ctx, robot, true);
  ctx.Add(sec, "JointCommand-to-wire p50", joint.us.p50, 0, "", "µs", "",
          std::to_string(joint.us.count) + " joint commands, " + std::to_string(joint.lost) +
              " not seen");
  ctx.Add(sec, "JointCommand-to-wire p99", joint.us.p99, 0, "≤ 2500", "µs",
          Seen(joint, joint.us.p99, period_us + 500), "one control period + 0.5 ms");
  ctx.Add(sec, "JointCommand-to-wire max", joint.us.max, 0, "", "µs", "");
  ctx.Add(sec, "JointCommand -> tick that applied it (echoed key) p50", joint.applied_us.p50, 0, "",
          "µs", "",
          std::to_string(joint.applied_us.count) +
              " keys back in the state stream; robot clock by TimeSync");
  ctx.Add(sec, "JointCommand -> tick that applied it (echoed key) p99", joint.applied_us.p99, 0, "",
          "µs", "", "the tick starts before its frames go out");
}

void WatchdogRows(Context& ctx, Target& robot, RunState&) {
  const Watchdog wd = MeasureWatchdog(ctx, robot);
  const std::string sec = ctx.prefix + ": trajectory watchdog";
  const double budget_ms =
      robot.config().control.trajectory_timeout_ms + 2 * static_cast<double>(kPeriodUs) / 1000.0;
  ctx.Add(sec, "last packet -> DAMP on every bus, p50", wd.slowest_bus_ms.p50, 1, "", "ms", "",
          std::to_string(wd.slowest_bus_ms.count) + " trials, " + std::to_string(wd.invalid) +
              " invalid");
  ctx.Add(sec, "last packet -> DAMP on every bus, p99", wd.slowest_bus_ms.p99, 1, "≤ 204", "ms",
          Verdict(wd.slowest_bus_ms.p99, budget_ms),
          "200 ms + 2 periods" + std::string(ctx.uml ? "; budget is for a real kernel" : ""));
  ctx.Add(sec, "last packet -> DAMP on every bus, max", wd.slowest_bus_ms.max, 1, "", "ms", "");
  ctx.Add(sec, "last packet -> DAMP on the first bus, min", wd.first_bus_ms.min, 1, "≥ 200", "ms",
          wd.first_bus_ms.min >= 200.0 ? "ok" : "MISS", "never before the timeout");
  ctx.Add(sec, "DAMP spread between buses, max", wd.spread_max_ms, 2, "", "ms", "",
          "one sendmmsg for all buses");
}

void EmergencyStopRows(Context& ctx, Target& robot, RunState&) {
  int invalid = 0;
  const Summary estop = MeasureEmergencyStop(ctx, robot, &invalid);
  const std::string sec = ctx.prefix + ": emergency stop";
  ctx.Add(sec, "client DAMP -> DAMP frame on every bus, p50", estop.p50, 0, "", "µs", "",
          std::to_string(estop.count) + " trials from MOVE, " + std::to_string(invalid) +
              " invalid; the control thread is woken for it");
  ctx.Add(sec, "client DAMP -> DAMP frame on every bus, p99", estop.p99, 0, "≤ 500", "µs",
          Verdict(estop.p99, 500),
          ctx.uml ? "budget is for a real kernel" : "without waiting for a tick");
  ctx.Add(sec, "client DAMP -> DAMP frame on every bus, max", estop.max, 0, "", "µs", "");
}

void LoopRows(Context& ctx, Target& robot, RunState& s) {
  Stand(robot);
  const std::uint64_t overruns0 = s.diag->Latest().loop_overruns;
  s.loop = RecordWindow(robot, *s.diag, ctx.settings.loop_s);
  const std::string sec =
      ctx.prefix + ": control loop, " + std::to_string(ctx.settings.loop_s) + " s";
  AddWindowRows(ctx, sec, "", s.loop, true);
  const std::uint64_t overruns = s.diag->Latest().loop_overruns - overruns0;
  ctx.Add(sec, "overruns (diagnostics)", static_cast<double>(overruns), 0, "0", "ticks",
          overruns == 0 ? "ok" : "MISS", "ticks given up");
  if (s.vcan) {
    ctx.Add(sec, "robot-edge-sim CPU share", 100.0 * s.loop.sim_cpu, 1, "", "% of one CPU", "",
            "the simulated robot, for comparison");
  }
}

void RecordingRows(Context& ctx, Target& robot, RunState& s) {
  MeasureRecording(ctx, robot, *s.diag, s.loop);
}

void ViewerRows(Context& ctx, Target& robot, RunState& s) {
  MeasureViewers(ctx, robot, *s.diag, s.loop);
}

void BusLoadRows(Context& ctx, Target& robot, RunState& s) {
  const config::Config& c = robot.config();
  const std::string sec = ctx.prefix + ": bus load (1 Mbit/s)";
  for (std::size_t b = 0; b < c.buses.size(); ++b) {
    const double fps = s.loop.frames_per_s[b];
    std::size_t motors = 0;
    for (const auto& j : c.joints) motors += j.bus == b;
    ctx.Add(sec, c.buses[b].interface + " frames/s", fps, 0, "", "frames/s", "",
            std::to_string(motors) + " motors" + (b == c.imu.bus ? " + IMU" : "") +
                "; sysfs tx_packets");
    ctx.Add(sec, c.buses[b].interface + " load, 111 / 135 bits per frame", 100.0 * fps * 111 / 1e6,
            1, "≤ 100", "%", Verdict(fps * 135 / 1e6, 1.0),
            "worst case " + Format(100.0 * fps * 135 / 1e6, 1) + " %");
  }
}

// One phase of the clients stage: so many clients of each kind, side by side with none.
struct Phase {
  std::string name;
  int telemetry, streaming, state = 0;
};

// What a phase's clients did during its window: counts (then their differences) and diagnostics.
struct PhaseCounts {
  double states = 0, telemetry = 0, accepted = 0, dropped = 0, sent = 0;
  Diagnostics d0, d1;
};

PhaseCounts Counted(const ClientPool& pool) {
  PhaseCounts n;
  n.states = static_cast<double>(pool.states.load());
  n.telemetry = static_cast<double>(pool.telemetry.load());
  n.accepted = static_cast<double>(pool.accepted.load());
  n.dropped = static_cast<double>(pool.dropped.load());
  n.sent = static_cast<double>(pool.sent.load());
  return n;
}

void PhaseRows(Context& ctx, const std::string& sec, const config::Config& c, const Phase& phase,
               const Window& w, const Window& baseline, const PhaseCounts& n) {
  const double period_us = static_cast<double>(kPeriodUs);
  const std::string uml = ctx.uml ? "; one CPU under UML" : "";
  if (phase.state > 0) {
    ctx.Add(sec, phase.name + "states received per client", n.states / w.seconds / phase.state, 0,
            Format(c.control.rate_hz, 0), "Hz", "", "lossy: a client reading late misses states");
    const double delta = w.period_us.p99 - baseline.period_us.p99;
    ctx.Add(sec, phase.name + "p99 period change vs no client", delta, 0, "≤ 22", "µs",
            Verdict(delta, 0.01 * period_us), "within 1 % of a period" + uml);
    ctx.Add(sec, phase.name + "CPU change vs no client",
            100.0 * (w.daemon_cpu - baseline.daemon_cpu), 1, "", "% of one CPU", "",
            "the API thread builds each state's frame once");
  }
  if (phase.telemetry > 0) {
    ctx.Add(sec, phase.name + "telemetry received per client",
            n.telemetry / w.seconds / phase.telemetry, 1, "10", "Hz", "", "lossy by design");
  }
  if (phase.telemetry == 50) {
    const double delta = w.period_us.p99 - baseline.period_us.p99;
    ctx.Add(sec, phase.name + "p99 period change vs no client", delta, 0, "≤ 200", "µs",
            Verdict(delta, 0.1 * period_us), "'nothing measurable': within 10 % of a period" + uml);
    ctx.Add(sec, phase.name + "CPU change vs no client",
            100.0 * (w.daemon_cpu - baseline.daemon_cpu), 1, "", "% of one CPU", "");
  }
  if (phase.streaming > 0) {
    ctx.Add(sec, phase.name + "commands sent", n.sent / w.seconds, 0, "500", "per s", "");
    ctx.Add(sec, phase.name + "accepted", n.accepted / w.seconds, 0, "50", "per s", "",
            "only the controller's are accepted");
    ctx.Add(sec, phase.name + "dropped", n.dropped / w.seconds, 0, "450", "per s", "",
            "not_controller: " + std::to_string(n.d1.not_controller - n.d0.not_controller) +
                ", queue_full: " + std::to_string(n.d1.queue_full - n.d0.queue_full) +
                " (diagnostics)");
  }
}

void ClientRows(Context& ctx, Target& robot, RunState& s) {
  const config::Config& c = robot.config();
  const std::string sec =
      ctx.prefix + ": clients (" + std::to_string(ctx.settings.phase_s) + " s each)";
  const std::string control_hz = std::to_string(static_cast<int>(c.control.rate_hz)) + " Hz";
  const std::vector<Phase> phases = {{"no client: ", 0, 0},
                                     {"1 telemetry client: ", 1, 0},
                                     {"10 telemetry clients: ", 10, 0},
                                     {"50 telemetry clients: ", 50, 0},
                                     {"10 clients streaming at 50 Hz: ", 0, 10},
                                     {"1 state stream at " + control_hz + ": ", 0, 0, 1},
                                     {"10 state streams at " + control_hz + ": ", 0, 0, 10}};
  Window baseline;
  for (const Phase& phase : phases) {
    std::printf("clients: %s\n", phase.name.c_str());
    ClientPool pool(robot, phase.telemetry, phase.streaming, phase.state);
    std::this_thread::sleep_for(1000ms);
    PhaseCounts n = Counted(pool);
    n.d0 = s.diag->Latest();
    const Window w = RecordWindow(robot, *s.diag, ctx.settings.phase_s);
    n.d1 = s.diag->Latest();
    const PhaseCounts end = Counted(pool);
    n.states = end.states - n.states;
    n.telemetry = end.telemetry - n.telemetry;
    n.accepted = end.accepted - n.accepted;
    n.dropped = end.dropped - n.dropped;
    n.sent = end.sent - n.sent;
    AddWindowRows(ctx, sec, phase.name, w, false);
    if (phase.telemetry == 0 && phase.streaming == 0 && phase.state == 0) baseline = w;
    PhaseRows(ctx, sec, c, phase, w, baseline, n);
    if (pool.failures > 0) {
      ctx.Add(sec, phase.name + "client errors", static_cast<double>(pool.failures), 0, "0",
              "count", "MISS");
    }
  }
}

// The run, stage by stage, in this order (later stages read what earlier ones left in RunState).
struct Stage {
  const char* what;  // printed as the stage starts
  void (*rows)(Context&, Target&, RunState&);
  bool vcan_only;
};
constexpr Stage kStages[] = {
    {"floor: raw vcan write -> kernel receive timestamp", FloorRows, true},
    {"latency: client send -> first command frame carrying it", CommandToWireRows, false},
    {"latency: JointCommand send -> first command frame carrying it, and the echoed key",
     JointCommandRows, false},
    {"watchdog: stream, stop, DAMP on every bus", WatchdogRows, false},
    {"emergency stop: a client's DAMP -> DAMP on every bus", EmergencyStopRows, false},
    {"loop: the loop window in STAND", LoopRows, false},
    {"recording: the loop window with the flight recorder", RecordingRows, false},
    {"live view: the loop window with 10 viewers", ViewerRows, false},
    {"bus load: from the loop window", BusLoadRows, true},
    {"clients: phase by phase", ClientRows, false},
};

// The control thread's tick gaps as a stall detector sees them (safety.control_stall_ms), in
// STAND for `seconds` under whatever load bench/run started beside this process (`load` names
// it): the distribution, and how many gaps passed 10, 20 and 50 ms.
void TickGapRows(Context& ctx, Target& robot, int seconds, const std::string& load) {
  DiagnosticsWatcher diag(robot);
  std::this_thread::sleep_for(1500ms);
  Stand(robot);
  const Window w = RecordWindow(robot, diag, seconds);
  const std::string sec = ctx.prefix + ": tick gaps, " + load;
  const std::string n =
      std::to_string(w.period_us.count) + " gaps in " + Format(w.seconds, 0) + " s";
  ctx.Add(sec, "gap p50", w.period_us.p50, 0, "", "µs", "", n);
  ctx.Add(sec, "gap p99", w.period_us.p99, 0, "", "µs", "");
  ctx.Add(sec, "gap max", w.period_us.max / 1000.0, 1, "< 20", "ms",
          Verdict(w.period_us.max, 20'000), "the shipped safety.control_stall_ms is 20");
  ctx.Add(sec, "gaps over 10 / 20 / 50 ms", static_cast<double>(w.over_20ms), 0, "0", "gaps",
          w.over_20ms == 0 ? "ok" : "MISS",
          std::to_string(w.over_10ms) + " / " + std::to_string(w.over_20ms) + " / " +
              std::to_string(w.over_50ms));
  std::printf("%s: max gap %.1f ms, %zu / %zu / %zu over 10 / 20 / 50 ms (%s)\n", sec.c_str(),
              w.period_us.max / 1000.0, w.over_10ms, w.over_20ms, w.over_50ms, n.c_str());
}

void Run(Context& ctx, Target& robot, bool vcan) {
  DiagnosticsWatcher diag(robot);
  std::this_thread::sleep_for(1500ms);
  RunState state{&diag, vcan, {}, {}};
  for (const Stage& stage : kStages) {
    if (stage.vcan_only && !vcan) continue;
    std::puts(stage.what);
    stage.rows(ctx, robot, state);
  }
}

}  // namespace
}  // namespace robot_edge::bench

int main(int argc, char** argv) {
  using namespace robot_edge::bench;
  Context ctx;
  bool in_process = false;
  int realtime_priority = 0, tick_gap_seconds = 0;
  std::string load = "idle";
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--realtime" && i + 1 < argc) {
      realtime_priority = std::atoi(argv[++i]);
    } else if (a == "--quick") {
      ctx.settings = {100, 100, 10, 10, 3};
    } else if (a == "--in-process") {
      in_process = true;
    } else if (a == "--tick-gaps" && i + 1 < argc) {
      tick_gap_seconds = std::atoi(argv[++i]);
    } else if (a == "--load" && i + 1 < argc) {
      load = argv[++i];
    } else {
      argc = 0;
    }
  }
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: bench_e2e ROWS_FILE [--quick] [--in-process] [--realtime PRIORITY]\n"
                 "                 [--tick-gaps SECONDS [--load NAME]]\n"
                 "  default: robot-edged + robot-edge-sim on vcan0..vcan4 (run it inside "
                 "tests/vcan/run)\n"
                 "  --in-process: robot-edged's parts in this process on this kernel, no CAN\n"
                 "  --realtime P: realtime.priority P (SCHED_FIFO control thread), as on the "
                 "robot\n"
                 "  --tick-gaps S: only the control thread's tick gaps in STAND for S seconds "
                 "(with --in-process), under the load NAME bench/run started beside it\n");
    return 2;
  }
  const char* harness = std::getenv("ROBOT_EDGE_VCAN_HARNESS");
  ctx.uml = !in_process && harness != nullptr && std::string(harness) == "uml";
  // The legend of bench/report.cpp explains these.
  ctx.source = in_process ? "in-process" : ctx.uml ? "vcan/UML" : "vcan/kernel";
  ctx.prefix = in_process ? "in-process daemon, host kernel" : ctx.uml ? "vcan in UML" : "vcan";
  if (realtime_priority > 0) ctx.prefix += ", SCHED_FIFO " + std::to_string(realtime_priority);
  try {
    if (in_process) {
      // Shorter phases: these figures complete the vcan ones, they do not replace them.
      ctx.settings.loop_s = std::min(ctx.settings.loop_s, 30);
      ctx.settings.phase_s = std::min(ctx.settings.phase_s, 5);
      robot_edge::config::Config config = DefaultConfig();
      config.realtime.priority = realtime_priority;
      InProcessDaemon daemon(config);
      if (tick_gap_seconds > 0) {
        ctx.prefix = "in-process daemon, host kernel, " +
                     (realtime_priority > 0 ? "SCHED_FIFO " + std::to_string(realtime_priority)
                                            : std::string("normal scheduling"));
        TickGapRows(ctx, daemon, tick_gap_seconds, load);
      } else {
        Run(ctx, daemon, false);
      }
    } else {
      ctx.syscall = MeasureSystemCallCost();  // alone on the machine
      Robot robot(ctx.uml, realtime_priority);
      Run(ctx, robot, true);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_e2e: %s\n", e.what());
    WriteRows(argv[1], ctx.rows);
    return 1;
  }
  WriteRows(argv[1], ctx.rows);
  return 0;
}
