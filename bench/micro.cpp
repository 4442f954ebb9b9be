// Micro benchmarks (Google Benchmark) of the daemon's real code paths, on this machine's CPU with
// no system calls in the measured code (FakeTransport instead of SocketCAN):
//
//   Command/segments:S    one TrajectoryRequest of S segments x 25 joints from socket bytes to the
//                         control thread's queue: frame decode, ClientMessage parse, arbiter,
//                         validation (positions, kp and kd checked and clamped), hand-off
//   CommandArena/...      the same parsed into a protobuf Arena on a kept block (a proposed change)
//   JointCommand          one JointCommand (25 positions, velocities, torques, kp, kd) the same
//   way:
//                         the joint stream's decode + validate + hand-off (issue 15: <= 2 µs)
//   Tick/joints:N         one control tick in steady STAND: 25 / 50 / 100 joints (generated
//                         configs): replies decoded, alerts checked, state machine stepped,
//                         N command frames encoded and sent, snapshot published
//   TickStream            a tick in MOVE/TRAJECTORY with a new 1-segment trajectory every 10th
//                         tick (a 50 Hz stream at 500 Hz), amortised
//   TickNewTrajectory/S   a tick that applies a new S-segment trajectory (every tick: worst case)
//   Telemetry             one EdgeTelemetry built from the snapshot and framed (Hub's path)
//   Diagnostics           one EdgeDiagnostics built, CAN health filled, appended to the event log
//   PolicyInference[Lstm] one network evaluation: the demo model; an H1-sized LSTM actor
//
// Each benchmark runs kRepetitions times; the median goes into the results table as a row.
// Usage: bench_micro ROWS_FILE [Google Benchmark flags]
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "config/library_options.hpp"
#include "daemon/api/bus_health.hpp"
#include "daemon/api/event_log.hpp"
#include "daemon/api/messages.hpp"
#include "daemon/api/telemetry_frames.hpp"
#include "policy/load.hpp"
#include "support.hpp"

namespace robot_edge::bench {
namespace {

void BM_Command(benchmark::State& state) {
  const config::Config& c = DefaultConfig();
  FreshCommand command(TrajectoryBytes(c, static_cast<std::size_t>(state.range(0))));
  CommandPath path(c);
  std::int64_t now = 0;
  for (auto _ : state) {
    now += 1000;
    if (!path.Handle(command.Next(now), now)) state.SkipWithError("command dropped");
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(command.size()));
}
BENCHMARK(BM_Command)->ArgName("segments")->Arg(1)->Arg(16)->Arg(64)->Arg(100);

void BM_JointCommand(benchmark::State& state) {
  const config::Config& c = DefaultConfig();
  FreshCommand command(JointCommandBytes(c), /*joint=*/true);
  CommandPath path(c);
  std::int64_t now = 0;
  for (auto _ : state) {
    now += 1000;
    if (!path.Handle(command.Next(now), now)) state.SkipWithError("joint command dropped");
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(command.size()));
}
BENCHMARK(BM_JointCommand);

void BM_Tick(benchmark::State& state) {
  const config::Config c = GeneratedConfig(static_cast<std::size_t>(state.range(0)));
  LoopRig rig(c);
  rig.Stand();
  for (auto _ : state) rig.Tick();
}
BENCHMARK(BM_Tick)->ArgName("joints")->Arg(25)->Arg(50)->Arg(100);

// BM_Tick with the flight recorder running: every tick's state queued (the queue emptied every
// 500 ticks, as the recorder thread does in batches; the emptying, a few ns a state, is timed).
void BM_TickRecording(benchmark::State& state) {
  LoopRig rig(DefaultConfig());
  rig.Stand();
  rig.channels().record_states.store(true);
  int ticks = 0;
  for (auto _ : state) {
    rig.Tick();
    if (++ticks % 500 != 0) continue;
    while (rig.channels().states.Peek() != nullptr) rig.channels().states.Release();
  }
}
BENCHMARK(BM_TickRecording);

void BM_TickStream(benchmark::State& state) {
  LoopRig rig(DefaultConfig());
  rig.Stand();
  const auto segment = StandSegments(rig.config(), 1, 0.05f);
  std::vector<float> kp, kd;
  for (const auto& j : rig.config().joints) {
    kp.push_back(static_cast<float>(j.kp));
    kd.push_back(static_cast<float>(j.kd));
  }
  int i = 0;
  for (auto _ : state) {
    if (i++ % 10 == 0) {
      daemon::CommandSlot* slot = rig.AcquireSlot();
      slot->trajectory.Clear();
      slot->trajectory.Append(segment[0], kp, kd);
      slot->command.kind = sm::CommandKind::kTrajectory;
      slot->command.trajectory = &slot->trajectory;
      rig.Send(slot);
    }
    rig.Tick();
  }
  if (rig.channels().snapshots.Latest().mode != sm::Mode::kMoveTrajectory) {
    state.SkipWithError("not in MOVE/TRAJECTORY");
  }
}
BENCHMARK(BM_TickStream);

void BM_TickNewTrajectory(benchmark::State& state) {
  LoopRig rig(DefaultConfig());
  rig.Stand();
  const std::size_t segments = static_cast<std::size_t>(state.range(0));
  const auto rows = StandSegments(rig.config(), segments, 0.05f);
  std::vector<float> kp, kd;
  for (const auto& j : rig.config().joints) {
    kp.push_back(static_cast<float>(j.kp));
    kd.push_back(static_cast<float>(j.kd));
  }
  // Fill every slot once; a slot keeps its trajectory when it comes back to the pool.
  std::vector<daemon::CommandSlot*> slots;
  while (daemon::CommandSlot* slot = rig.channels().commands.Acquire()) slots.push_back(slot);
  for (daemon::CommandSlot* slot : slots) {
    slot->trajectory.Clear();
    for (const auto& row : rows) slot->trajectory.Append(row, kp, kd);
    rig.channels().commands.Release(slot);
  }
  for (auto _ : state) {
    daemon::CommandSlot* slot = rig.AcquireSlot();
    slot->command.kind = sm::CommandKind::kTrajectory;
    slot->command.trajectory = &slot->trajectory;
    rig.Send(slot);
    rig.Tick();
  }
}
BENCHMARK(BM_TickNewTrajectory)->ArgName("segments")->Arg(1)->Arg(16)->Arg(64)->Arg(100);

void BM_Telemetry(benchmark::State& state) {
  LoopRig rig(DefaultConfig());
  rig.Stand();
  const daemon::ControlSnapshot& s = rig.channels().snapshots.Latest();
  std::uint32_t sequence = 0;
  std::size_t bytes = 0;
  daemon::TelemetryFrames frames(rig.config());
  for (auto _ : state) {
    // As Hub::EveryTelemetryPeriod: the kept message filled, framed once for every client.
    const daemon::Clocks now{rig.now_us(), 1'700'000'000'000'000ull};
    const daemon::Frame frame = frames.Build(s, ++sequence, now);
    bytes = frame->size();
    benchmark::DoNotOptimize(frame);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Telemetry);

void BM_Diagnostics(benchmark::State& state) {
  LoopRig rig(DefaultConfig());
  rig.Stand();
  // No CAN controllers: on vcan the daemon has none to poll either (libsocketcan finds no link).
  daemon::BusHealth health(rig.config(), rig.robot().transport(), nullptr, {});
  daemon::EventLog log(rig.config().api.event_history);
  const daemon::ControlSnapshot& s = rig.channels().snapshots.Latest();
  std::int64_t now = rig.now_us();
  std::size_t bytes = 0;
  for (auto _ : state) {
    now += 1'000'000;
    // As Hub::EveryDiagnosticsPeriod (with one controlling client).
    edge::EdgeEvent event;
    edge::EdgeDiagnostics* d = event.mutable_diagnostics();
    edge::DiagnosticsExtension x;
    health.Fill(now, d->mutable_can_health(), x.mutable_can_buses());
    d->set_controller("cloud");
    d->set_provisioned(true);
    d->set_cloud_connected(true);
    x.set_connected_clients(1);
    x.set_uptime_s(static_cast<std::uint64_t>(now / 1'000'000));
    daemon::FillLoopDiagnostics(s, sm::Counters{}, &x);
    const daemon::Frame frame = log.Append(std::move(event), 1'700'000'000'000'000ull, &x);
    bytes = frame->size();
    benchmark::DoNotOptimize(frame);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Diagnostics);

// MOVE/POLICY with the shipped demonstration model (config/examples/sim-with-policy.yaml).
struct PolicyTicking {
  config::Config config = config::LoadConfig(ROBOT_EDGE_POLICY_CONFIG);
  std::unique_ptr<policy::PolicyRunner> runner =
      policy::MakePolicyRunner(config::PolicySetupOf(config));
  std::vector<sm::JointMeasurement> joints = std::vector<sm::JointMeasurement>(25);
  std::vector<sm::JointTarget> out = std::vector<sm::JointTarget>(25);
  sm::Inputs inputs;
  std::int64_t now_us = 1'000'000;
  PolicyTicking() {
    inputs.joints = joints;
    runner->Reset(now_us);
  }
  // One control tick at `now_us` (which the caller may hold still to keep the targets fresh).
  bool Tick() {
    return runner->Targets(now_us, sm::Velocity{0.3f, 0.0f, 0.0f}, inputs, out).status ==
           sm::PolicyStatus::kTargets;
  }
};

// One evaluation of the network (what onnx_avg_ms reports), on the inference thread.
void BM_PolicyInference(benchmark::State& state) {
  const config::Config c = config::LoadConfig(ROBOT_EDGE_POLICY_CONFIG);
  const auto net = policy::LoadPolicyModel(config::PolicySetupOf(c));
  std::vector<float> in(net->input_size(), 0.1f), result(net->output_size());
  for (auto _ : state) {
    net->Run(in, result);
    benchmark::DoNotOptimize(result.data());
  }
}
BENCHMARK(BM_PolicyInference);

// One evaluation of an LSTM actor the size of unitree_rl_gym's H1 (obs 41 -> LSTM 64 -> [32] ->
// 10; tests/policy/recurrent/lstm64_h1.onnx, exported by torch), its state carried each time.
void BM_PolicyInferenceLstm(benchmark::State& state) {
  const auto net = policy::LoadOnnx(ROBOT_EDGE_LSTM_POLICY);
  std::vector<float> in(net->input_size(), 0.1f), result(net->output_size());
  for (auto _ : state) {
    net->Run(in, result);
    benchmark::DoNotOptimize(result.data());
  }
}
BENCHMARK(BM_PolicyInferenceLstm);

// The control thread's side per tick in MOVE/POLICY: publish inputs, take the latest targets.
void BM_PolicyTargets(benchmark::State& state) {
  PolicyTicking t;
  t.Tick();
  t.runner->InferOnce();
  for (auto _ : state) benchmark::DoNotOptimize(t.Tick());
}
BENCHMARK(BM_PolicyTargets);

// ---- Rows for the results table ----

constexpr int kRepetitions = 5;

// Collects the median of each benchmark (ns per iteration, CPU time) while the console shows
// the usual output.
class MedianCollector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name == "median" &&
          !run.error_occurred) {
        median_ns[run.run_name.str()] = run.GetAdjustedCPUTime() *
                                        benchmark::GetTimeUnitMultiplier(benchmark::kNanosecond) /
                                        benchmark::GetTimeUnitMultiplier(run.time_unit);
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> median_ns;
};

std::vector<Row> RowsOf(const std::map<std::string, double>& ns) {
  const std::string source = "host";
  const auto us = [&](const std::string& name) {
    const auto it = ns.find(name);
    return it == ns.end() ? std::nan("") : it->second / 1000.0;
  };
  std::vector<Row> rows;
  const auto add = [&](const std::string& figure, double value, double budget,
                       const std::string& note) {
    const bool has_budget = budget > 0;
    rows.push_back({"micro", figure, Format(value, value < 10 ? 2 : 1),
                    has_budget ? "≤ " + Format(budget, budget < 10 ? 1 : 0) : "", "µs",
                    has_budget ? Verdict(value, budget) : "", source, note});
  };
  add("command: decode + parse + arbiter + freshness + validate + hand-off, 1 segment x 25 "
      "joints",
      us("BM_Command/segments:1"), 2.0, "TrajectoryRequest with kp and kd, parsed into an arena");
  add("command, 16 segments", us("BM_Command/segments:16"), 0, "with kp and kd");
  add("command, 64 segments", us("BM_Command/segments:64"), 0, "with kp and kd");
  add("command, 100 segments (max_segments)", us("BM_Command/segments:100"), 0,
      "with kp and kd: 200 ms of playback, the trajectory timeout");
  add("joint command: decode + parse + arbiter + freshness + validate + hand-off, 25 joints",
      us("BM_JointCommand"), 2.0,
      "JointCommand: position, velocity, torque, kp, kd per joint (the joint stream, issue 15)");
  add("control tick, 25 joints (steady STAND)", us("BM_Tick/joints:25"), 20.0,
      "receive + alerts + step + 25 frames encoded + publish");
  add("control tick, 25 joints, state queued for the flight recorder", us("BM_TickRecording"), 20.0,
      "the row above with the recorder running (side by side, same run)");
  add("control tick, 50 joints (generated config)", us("BM_Tick/joints:50"), 0, "10 buses");
  add("control tick, 100 joints (generated config)", us("BM_Tick/joints:100"), 0, "16 buses");
  add("control tick, MOVE with a 50 Hz trajectory stream", us("BM_TickStream"), 20.0,
      "a new 1-segment trajectory every 10th tick");
  add("control tick + new trajectory every tick, 1 segment", us("BM_TickNewTrajectory/segments:1"),
      20.0, "worst case: a command applied in every tick");
  add("control tick + new trajectory every tick, 16 segments",
      us("BM_TickNewTrajectory/segments:16"), 20.0, "");
  add("control tick + new trajectory every tick, 64 segments",
      us("BM_TickNewTrajectory/segments:64"), 20.0, "");
  add("control tick + new trajectory every tick, 100 segments",
      us("BM_TickNewTrajectory/segments:100"), 20.0, "copies 100 x 25 x 3 floats");
  add("EdgeTelemetry built + serialised (25 joints)", us("BM_Telemetry"), 0,
      "once per 10 Hz period, shared by every client");
  add("EdgeDiagnostics built + serialised + logged", us("BM_Diagnostics"), 0, "once per second");
  add("policy: one inference, demo model (45 -> 12)", us("BM_PolicyInference"), 0,
      "inference thread, 50 Hz; larger actors: build/tests/policy/policy_bench");
  add("policy: one inference, LSTM actor (41 -> LSTM 64 -> 32 -> 10)", us("BM_PolicyInferenceLstm"),
      50.0, "unitree_rl_gym's H1 actor size, state carried");
  add("policy: control thread's cost per tick in MOVE/POLICY", us("BM_PolicyTargets"), 0,
      "publish inputs + take the latest targets");
  return rows;
}

}  // namespace
}  // namespace robot_edge::bench

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: bench_micro ROWS_FILE [benchmark flags]\n");
    return 2;
  }
  const std::string rows_file = argv[1];
  std::vector<char*> args = {argv[0]};
  const std::string repetitions =
      "--benchmark_repetitions=" + std::to_string(robot_edge::bench::kRepetitions);
  std::string aggregates = "--benchmark_report_aggregates_only=true";
  args.push_back(const_cast<char*>(repetitions.c_str()));
  args.push_back(aggregates.data());
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 2;
  robot_edge::bench::MedianCollector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  benchmark::Shutdown();
  robot_edge::bench::WriteRows(rows_file, robot_edge::bench::RowsOf(collector.median_ns));
  robot_edge::bench::WriteRows(rows_file,
                               robot_edge::bench::CanLimitRows(robot_edge::bench::DefaultConfig()));
  return 0;
}
