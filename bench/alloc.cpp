// Heap allocations (global operator new, counted by tests/common's counting allocator) per
// control tick in steady state — STAND, MOVE with a 50 Hz trajectory stream, and an alert raised
// and cleared — and per command on the API thread's path, per telemetry frame and per
// diagnostics event. The control thread's budget is 0; the API thread's figures are reported.
//
// Usage: bench_alloc ROWS_FILE
#include <cstdio>
#include <functional>

#include "allocation_counter.hpp"
#include "daemon/api/messages.hpp"
#include "daemon/api/state_stream.hpp"
#include "daemon/api/telemetry_frames.hpp"
#include "policy/runtime.hpp"
#include "support.hpp"

namespace robot_edge::bench {
namespace {

// Allocations per call of `work`, over `n` calls (after one warm-up call).
double PerCall(std::size_t n, const std::function<void()>& work) {
  work();
  std::size_t count = 0;
  {
    test::AllocationCounter counter;
    for (std::size_t i = 0; i < n; ++i) work();
    count = counter.count();
  }
  return static_cast<double>(count) / static_cast<double>(n);
}

void SendTrajectory(LoopRig& rig, const std::vector<float>& pose, const std::vector<float>& kp,
                    const std::vector<float>& kd) {
  daemon::CommandSlot* slot = rig.AcquireSlot();
  slot->trajectory.Clear();
  slot->trajectory.Append(pose, kp, kd);  // within the slot's preallocated capacity
  slot->command.kind = sm::CommandKind::kTrajectory;
  slot->command.trajectory = &slot->trajectory;
  rig.Send(slot);
}

std::vector<Row> Measure() {
  const config::Config& c = DefaultConfig();
  std::vector<float> kp, kd;
  for (const auto& j : c.joints) {
    kp.push_back(static_cast<float>(j.kp));
    kd.push_back(static_cast<float>(j.kd));
  }
  const std::vector<float> pose = StandSegments(c, 1, 0.05f)[0];

  LoopRig rig(c);
  rig.Stand();
  const double stand = PerCall(5000, [&] { rig.Tick(); });
  int i = 0;
  const double stream = PerCall(5000, [&] {
    if (i++ % 10 == 0) SendTrajectory(rig, pose, kp, kd);
    rig.Tick();
  });
  // Watchdog: the stream stops, DAMP; an overtemperature alert raised and cleared; STAND again.
  const double events = PerCall(10,
                                [&] {
                                  for (int k = 0; k < 150; ++k) rig.Tick();
                                  rig.robot().SetTemperature(4, 90);
                                  for (int k = 0; k < 5; ++k) rig.Tick();
                                  rig.robot().SetTemperature(4, 30);
                                  for (int k = 0; k < 5; ++k) rig.Tick();
                                  daemon::CommandSlot* slot = rig.AcquireSlot();
                                  slot->command.kind = sm::CommandKind::kMode;
                                  slot->command.mode = sm::ModeRequest::kStand;
                                  rig.Send(slot);
                                  for (int k = 0; k < 10; ++k)
                                    SendTrajectory(rig, pose, kp, kd), rig.Tick();
                                }) /
                        180.0;

  CommandPath path(c);
  FreshCommand one(TrajectoryBytes(c, 1)), many(TrajectoryBytes(c, c.control.max_segments));
  std::int64_t now = 0;
  const double command_1 = PerCall(1000, [&] {
    now += 1000;
    path.Handle(one.Next(now), now);
  });
  const double command_max = PerCall(200, [&] {
    now += 1000;
    path.Handle(many.Next(now), now);
  });

  std::uint32_t sequence = 0;
  daemon::TelemetryFrames frames(c);
  frames.Build(rig.channels().snapshots.Latest(), ++sequence,
               {rig.now_us(), 1'700'000'000'000'000ull});
  const double telemetry = PerCall(1000, [&] {
    const daemon::Frame frame = frames.Build(rig.channels().snapshots.Latest(), ++sequence,
                                             {rig.now_us(), 1'700'000'000'000'000ull});
  });

  daemon::StateStream state_stream(c, &rig.channels());
  daemon::StateSample sample(c.joints.size());
  sample.imu.has_accel = true;
  const double state = PerCall(1000, [&] {
    ++sample.tick;
    const daemon::Frame frame =
        state_stream.Build(sample, {rig.now_us(), 1'700'000'000'000'000ull});
  });

  // An H1-sized LSTM actor's evaluation (inference thread), its state carried each time.
  const auto lstm = policy::LoadOnnx(ROBOT_EDGE_LSTM_POLICY);
  std::vector<float> lstm_in(lstm->input_size(), 0.1f), lstm_out(lstm->output_size());
  const double inference = PerCall(1000, [&] { lstm->Run(lstm_in, lstm_out); });

  const std::string source = "alloc";
  const auto fmt = [](double v) { return Format(v, v == static_cast<long>(v) ? 0 : 2); };
  return {
      {"allocations", "control tick, steady STAND", fmt(stand), "0", "allocs/tick",
       stand == 0 ? "ok" : "MISS", source, "5000 ticks"},
      {"allocations", "control tick, MOVE with a 50 Hz trajectory stream", fmt(stream), "0",
       "allocs/tick", stream == 0 ? "ok" : "MISS", source, "5000 ticks, 500 commands applied"},
      {"allocations", "control tick, timeout + DAMP + alert raised/cleared + STAND", fmt(events),
       "0", "allocs/tick", events == 0 ? "ok" : "MISS", source, "1800 ticks with events"},
      {"allocations", "command on the API thread, 1 segment", fmt(command_1), "0", "allocs/command",
       command_1 == 0 ? "ok" : "MISS", source, "parsed into the reader's kept arena block"},
      {"allocations",
       "command on the API thread, " + std::to_string(c.control.max_segments) + " segments",
       fmt(command_max), "0", "allocs/command", command_max == 0 ? "ok" : "MISS", source, ""},
      {"allocations", "EdgeTelemetry frame (API thread)", fmt(telemetry), "0", "allocs/frame",
       telemetry == 0 ? "ok" : "MISS", source,
       "10 per second, shared by every client (TelemetryFrames: kept message, pooled frames)"},
      {"allocations", "state stream frame (API thread)", fmt(state), "0", "allocs/frame",
       state == 0 ? "ok" : "MISS", source,
       "up to the control rate, one per tick shared by every client due (StateStream)"},
      {"allocations", "policy inference, LSTM actor 41 -> LSTM 64 -> 32 -> 10", fmt(inference), "0",
       "allocs/inference", inference == 0 ? "ok" : "MISS", source,
       "operator new; tests/policy counts malloc (Eigen) too"},
  };
}

}  // namespace
}  // namespace robot_edge::bench

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bench_alloc ROWS_FILE\n");
    return 2;
  }
  const auto rows = robot_edge::bench::Measure();
  for (const auto& r : rows)
    std::printf("%-60s %8s %s\n", r.figure.c_str(), r.value.c_str(), r.unit.c_str());
  robot_edge::bench::WriteRows(argv[1], rows);
  return 0;
}
