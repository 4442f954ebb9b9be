// End to end on vcan with the physics backend: robot-edged drives robot-edge-sim's MuJoCo
// humanoid (sim/models/humanoid.xml) through the CAN buses. STAND on the gantry, lowered and
// released: the robot stands on its own. A push topples it: FALL_DETECTED and DAMP, measured from
// the simulator's ground truth. DAMP while standing: it sinks without a violent collapse, and the
// fall detector catches it when it tips over.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "harness.hpp"

namespace robot_edge::e2e {
namespace {

RobotOptions Physics() {
  RobotOptions o;
  o.config_edits = {{"physics: kinematic", "physics: mujoco"},
                    {"gantry_height_m: 0 ", "gantry_height_m: 1.0 "}};
  return o;
}

// What `truth` says: base=x,y,z ... torso_height=H tilt=T contacts=N feet=F.
struct Truth {
  double base_vz = 0;
  double torso_height_m = 0;
  double tilt_deg = 0;
  int feet = 0;
};

double Field(const std::string& line, const std::string& key, int index = 0) {
  std::size_t at = line.find(" " + key + "=");
  if (at == std::string::npos) {
    ADD_FAILURE() << "no " << key << " in '" << line << "'";
    return NAN;
  }
  at += key.size() + 2;
  for (int i = 0; i < index; ++i) at = line.find(',', at) + 1;
  return std::strtod(line.c_str() + at, nullptr);
}

Truth GetTruth(Robot& robot) {
  const std::string line = robot.Sim("truth");
  EXPECT_EQ(line.rfind("ok ", 0), 0u) << line;
  Truth t;
  t.base_vz = Field(line, "vel", 2);
  t.torso_height_m = Field(line, "torso_height");
  t.tilt_deg = Field(line, "tilt");
  t.feet = static_cast<int>(Field(line, "feet"));
  return t;
}

// STAND while hanging, lowered onto the feet, released, settled: as on a bring-up stand.
void StandOnTheFloor(Robot& robot, client::Client& c) {
  ASSERT_TRUE(WaitTelemetry(c, [](const auto& msg) { return msg.fw_age_ms() < 100; }, 10s));
  const auto r = Command(c, Mode(edge::MODE_STAND));
  ASSERT_TRUE(r.accepted()) << r.reason();
  std::this_thread::sleep_for(2500ms);  // the 2 s ramp, hanging
  ASSERT_EQ(robot.Sim("gantry 0.62").rfind("ok", 0), 0u);
  std::this_thread::sleep_for(2s);  // lowered at 0.25 m/s
  ASSERT_EQ(robot.Sim("gantry off"), "ok gantry released");
  std::this_thread::sleep_for(1s);
}

TEST(Physics, StandsOnItsOwnThenAPushIsAFallCaughtWithinItsBound) {
  Robot robot(Physics());
  auto c = robot.Connect("cloud");
  auto observer = robot.Connect("");
  StandOnTheFloor(robot, c);

  const double nominal = GetTruth(robot).torso_height_m;
  double worst_height = 0, worst_tilt = 0;
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (std::chrono::steady_clock::now() < until) {
    const Truth t = GetTruth(robot);
    worst_height = std::max(worst_height, std::abs(t.torso_height_m - nominal));
    worst_tilt = std::max(worst_tilt, t.tilt_deg);
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_LT(worst_height, 0.03) << "STAND keeps the torso at its height";
  EXPECT_LT(worst_tilt, 5.0) << "and upright";
  EXPECT_GE(GetTruth(robot).feet, 2);

  ASSERT_EQ(robot.Sim("push torso 0 400 0 0.2"), "ok");
  // The fall, from the ground truth: the first time the torso is 60° (safety.fall_tilt_deg) over.
  std::int64_t fell_us = 0;
  const auto deadline = std::chrono::steady_clock::now() + 3s;
  while (fell_us == 0 && std::chrono::steady_clock::now() < deadline) {
    if (GetTruth(robot).tilt_deg >= 60) fell_us = NowUs();
  }
  ASSERT_NE(fell_us, 0) << "a 400 N push for 0.2 s topples the robot";
  ASSERT_TRUE(WaitError(observer, "FALL_DETECTED", 3s));
  const auto damp = robot.monitor().WaitFor(
      fell_us - 200'000,
      [](const SeenFrame& f) { return !f.special && f.command.kp == 0 && f.command.kd > 0; }, 3s);
  ASSERT_TRUE(damp) << "DAMP frames on the buses";
  // fall_hold_ms (100) + a tick, with the emulator's slack and the truth's polling.
  const double latency_ms = static_cast<double>(damp->t_us - fell_us) / 1000.0;
  EXPECT_LT(latency_ms, 100 + 250) << "fall -> DAMP on the wire";
  RecordProperty("fall_to_damp_ms", std::to_string(latency_ms));
  std::printf("  fall (ground truth, tilt >= 60 deg) -> DAMP on the wire: %.0f ms\n", latency_ms);
}

TEST(Physics, DampWhileStandingSinksWithoutAViolentCollapseAndIsCaught) {
  Robot robot(Physics());
  auto c = robot.Connect("cloud");
  auto observer = robot.Connect("");
  StandOnTheFloor(robot, c);
  const double standing = GetTruth(robot).torso_height_m;

  const auto r = Command(c, Mode(edge::MODE_DAMP));
  ASSERT_TRUE(r.accepted()) << r.reason();
  double fastest_fall = 0, lowest = standing, tilt = 0;
  const auto until = std::chrono::steady_clock::now() + 4s;
  while (std::chrono::steady_clock::now() < until) {
    const Truth t = GetTruth(robot);
    fastest_fall = std::max(fastest_fall, -t.base_vz);
    lowest = std::min(lowest, t.torso_height_m);
    tilt = std::max(tilt, t.tilt_deg);
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_LT(lowest, standing - 0.15) << "DAMP lets it sink";
  EXPECT_LT(fastest_fall, 2.5) << "m/s: sinking, not dropping";
  // Limp, the model sits down on its folded knees and rolls over: the detector must catch it.
  EXPECT_GE(tilt, 60) << "it tipped over";
  EXPECT_TRUE(WaitError(observer, "FALL_DETECTED", 3s));
}

}  // namespace
}  // namespace robot_edge::e2e
