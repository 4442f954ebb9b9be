// End to end on vcan with the physics backend: robot-edged drives robot-edge-sim's MuJoCo
// humanoid (sim/models/humanoid.xml) through the CAN buses. STAND on the gantry, lowered and
// released: the robot stands on its own for 10 s. A push topples it: FALL_DETECTED and DAMP,
// measured from the simulator's ground truth. DAMP while standing: it sinks without a violent
// collapse, and the fall detector catches it when it tips over.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "harness.hpp"

namespace robot_edge::e2e {
namespace {

TEST(Physics, StandsOnItsOwnThenAPushIsAFallCaughtWithinItsBound) {
  Robot robot(WithPhysics());
  auto c = robot.Connect("cloud");
  auto observer = robot.Connect("");
  ASSERT_EQ(StandOnTheFloor(robot, c), "");

  const double nominal = GetTruth(robot).torso_height_m;
  double worst_height = 0, worst_tilt = 0;
  const auto until = std::chrono::steady_clock::now() + 10s;
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
  Robot robot(WithPhysics());
  auto c = robot.Connect("cloud");
  auto observer = robot.Connect("");
  ASSERT_EQ(StandOnTheFloor(robot, c), "");
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
