// bench_sim: the simulator's real-time factor on one core — simulated seconds per CPU second of
// the thread that runs it — for the MuJoCo humanoid (1 kHz physics, contacts) in the situations
// a session goes through, beside the kinematic backend as the baseline. The robot is driven as
// robot-edged drives it (sim::BusDriver: one MIT command frame per motor per 2 ms period through
// SimRobot, each answered: the frames' decode and the replies' encode are in the figure).
//
//   hanging        in the gantry, STAND: no contacts
//   standing       released on its feet, STAND: foot contacts
//   fallen         pushed over, DAMP, lying: many contacts
//   kinematic      the joint-level backend, STAND (baseline)
//
// Usage: bench_sim ROWS_FILE [SIM_SECONDS]   (default 10 s of simulated time per situation)
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/bus_driver.hpp"
#include "sim/mujoco_plant.hpp"
#include "sim/sim_robot.hpp"
#include "support.hpp"

namespace robot_edge::bench {
namespace {

constexpr std::int64_t kS = 1'000'000;

double ThreadCpuSeconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Measured {
  double rtf = 0;       // simulated s per thread-CPU s
  double wall_rtf = 0;  // simulated s per wall s
  double physics_hz = 0;
  std::uint64_t lagged_us = 0;
};

Measured Measure(sim::BusDriver* d, double sim_seconds) {
  const std::uint64_t steps0 = d->robot().totals().steps;
  const double cpu0 = ThreadCpuSeconds();
  timespec w0{}, w1{};
  ::clock_gettime(CLOCK_MONOTONIC, &w0);
  d->Run(static_cast<std::int64_t>(sim_seconds * kS));
  ::clock_gettime(CLOCK_MONOTONIC, &w1);
  const double cpu = ThreadCpuSeconds() - cpu0;
  const double wall = static_cast<double>(w1.tv_sec - w0.tv_sec) +
                      static_cast<double>(w1.tv_nsec - w0.tv_nsec) * 1e-9;
  Measured m;
  m.rtf = sim_seconds / cpu;
  m.wall_rtf = sim_seconds / wall;
  m.physics_hz = static_cast<double>(d->robot().totals().steps - steps0) / sim_seconds;
  m.lagged_us = static_cast<std::uint64_t>(d->robot().totals().lagged_us);
  return m;
}

bool Check(const std::string& reply, const std::string& what) {
  if (reply.rfind("ok", 0) == 0) return true;
  std::fprintf(stderr, "bench_sim: %s: %s\n", what.c_str(), reply.c_str());
  return false;
}

std::unique_ptr<sim::Plant> Humanoid(const config::Config& c, std::optional<double> gantry_m) {
  return std::make_unique<sim::MujocoPlant>(c, sim::DefaultModelPath(), gantry_m);
}

}  // namespace
}  // namespace robot_edge::bench

int main(int argc, char** argv) {
  using namespace robot_edge;
  using namespace robot_edge::bench;
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: bench_sim ROWS_FILE [SIM_SECONDS]\n");
    return 2;
  }
  const double seconds = argc > 2 ? std::atof(argv[2]) : 10.0;
  if (!(seconds > 0)) {
    std::fprintf(stderr, "bench_sim: SIM_SECONDS must be positive\n");
    return 2;
  }
  const config::Config& c = DefaultConfig();
  std::vector<Row> rows;
  const auto add = [&](const std::string& figure, const Measured& m, double goal,
                       const std::string& note) {
    char detail[160];
    std::snprintf(detail, sizeof(detail), "%s; wall %.1fx, physics %.0f Hz", note.c_str(),
                  m.wall_rtf, m.physics_hz);
    rows.push_back({"simulator on one core (host CPU)", figure, Format(m.rtf, 1),
                    goal > 0 ? "≥ " + Format(goal, 0) : "", "x real time",
                    goal > 0 ? (m.rtf >= goal ? "ok" : "MISS") : "", "host", detail});
    std::printf("bench_sim: %-44s %7.1fx real time (one core), wall %.1fx, %.0f Hz physics\n",
                figure.c_str(), m.rtf, m.wall_rtf, m.physics_hz);
  };

  sim::BusDriver hanging(c, Humanoid(c, 1.0));
  hanging.Run(2 * kS);  // the legs reach the stand pose
  add("real-time factor, MuJoCo humanoid hanging in the gantry", Measure(&hanging, seconds), 5,
      "STAND, no contacts");

  sim::BusDriver standing(c, Humanoid(c, 1.0));
  standing.Run(2 * kS);
  if (!Check(standing.Execute("gantry 0.62"), "gantry")) return 1;
  standing.Run(2 * kS);
  if (!Check(standing.Execute("gantry off"), "gantry off")) return 1;
  standing.Run(1 * kS);
  add("real-time factor, MuJoCo humanoid standing on the floor", Measure(&standing, seconds), 5,
      "STAND, foot contacts: the issue's goal");
  if (!Check(standing.Execute("push torso 0 400 0 0.2"), "push")) return 1;
  standing.Damp();
  standing.Run(3 * kS);
  add("real-time factor, MuJoCo humanoid fallen (DAMP, lying)", Measure(&standing, seconds), 5,
      "many contacts");

  sim::BusDriver kinematic(c, std::make_unique<sim::KinematicPlant>(c));
  kinematic.Run(2 * kS);
  add("real-time factor, kinematic backend (baseline)", Measure(&kinematic, seconds), 0,
      "STAND, joints alone");
  WriteRows(argv[1], rows);
  return 0;
}
