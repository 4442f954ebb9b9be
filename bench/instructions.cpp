// The program bench/run runs under valgrind --tool=callgrind to count instructions, which do not
// depend on the machine's load. It sets up, warms up, then runs N of one kind of work:
//
//   tick N      N control ticks in steady STAND (25 joints)
//   recording N the same, with every tick's state queued for the flight recorder (the queue is
//               emptied between ticks, outside the count, as the recorder thread would)
//   stream N    N control ticks in MOVE/TRAJECTORY, a new 1-segment trajectory every 10th tick
//   command N   N TrajectoryRequests (1 segment x 25 joints, kp and kd) through the API
//               thread's path: decode, parse, arbiter, validation, hand-off
//
// bench/run collects only inside ControlLoop::Tick or CommandPath::Handle
// (--toggle-collect) and subtracts a run with N = 0, so set-up and warm-up cancel out exactly:
// (Ir(N) - Ir(0)) / N is the cost of one.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "support.hpp"

namespace robot_edge::bench {
namespace {

constexpr int kWarmUp = 200;

void SendTrajectory(LoopRig& rig, const std::vector<float>& pose, const std::vector<float>& kp,
                    const std::vector<float>& kd) {
  daemon::CommandSlot* slot = rig.AcquireSlot();
  slot->trajectory.Clear();
  slot->trajectory.Append(pose, kp, kd);
  slot->command.kind = sm::CommandKind::kTrajectory;
  slot->command.trajectory = &slot->trajectory;
  rig.Send(slot);
}

int Run(const std::string& what, long n) {
  const config::Config& c = DefaultConfig();
  if (what == "command") {
    CommandPath path(c);
    FreshCommand command(TrajectoryBytes(c, 1));
    std::int64_t now = 0;
    for (long i = 0; i < kWarmUp + n; ++i) {
      now += 1000;
      if (!path.Handle(command.Next(now), now)) return 1;
    }
    return 0;
  }
  LoopRig rig(c);
  rig.Stand();
  if (what == "tick") {
    for (long i = 0; i < kWarmUp + n; ++i) rig.Tick();
    return 0;
  }
  if (what == "recording") {
    rig.channels().record_states.store(true);
    for (long i = 0; i < kWarmUp + n; ++i) {
      rig.Tick();
      while (rig.channels().states.Peek() != nullptr) rig.channels().states.Release();
    }
    return 0;
  }
  if (what == "stream") {
    std::vector<float> kp, kd;
    for (const auto& j : c.joints) {
      kp.push_back(static_cast<float>(j.kp));
      kd.push_back(static_cast<float>(j.kd));
    }
    const std::vector<float> pose = StandSegments(c, 1, 0.05f)[0];
    for (long i = 0; i < kWarmUp + n; ++i) {
      if (i % 10 == 0) SendTrajectory(rig, pose, kp, kd);
      rig.Tick();
    }
    return 0;
  }
  std::fprintf(stderr, "unknown work '%s'\n", what.c_str());
  return 2;
}

}  // namespace
}  // namespace robot_edge::bench

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: bench_instructions tick|recording|stream|command N\n");
    return 2;
  }
  return robot_edge::bench::Run(argv[1], std::strtol(argv[2], nullptr, 10));
}
