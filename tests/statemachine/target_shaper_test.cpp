// The guards on streamed targets (target_shaper.hpp): exact values of the low-pass, the velocity
// and acceleration limits, and no overshoot; then through the state machine from DAMP.
#include "statemachine/target_shaper.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "config/library_options.hpp"
#include "fixture.hpp"

namespace robot_edge::sm {
namespace {

using test::kMs;

constexpr std::int64_t kTick = 2 * kMs;

// Two joints: 0 with `limits`, 1 without.
config::JointTable Table(float v_max, float a_max, float low_pass) {
  config::JointTable t(2);
  t[0].target_v_max = v_max;
  t[0].target_a_max = a_max;
  t[0].target_low_pass = low_pass;
  return t;
}

struct Shaping {
  Shaping(float v_max, float a_max, float low_pass) : shaper(Table(v_max, a_max, low_pass)) {
    shaper.Reset(0, targets);
  }
  // One tick later with both joints asked for `q` (velocity target `v`).
  const JointTarget& Tick(float q, float v = 0) {
    t += kTick;
    targets[0] = {q, v, 100, 2, 0};
    targets[1] = {q, v, 100, 2, 0};
    shaper.Apply(t, targets);
    return targets[0];
  }
  TargetShaper shaper;
  std::vector<JointTarget> targets = std::vector<JointTarget>(2);
  std::int64_t t = 0;
};

TEST(TargetShaper, NoLimitsNoChange) {
  TargetShaper s(config::JointTable(3));
  EXPECT_FALSE(s.active());
  std::vector<JointTarget> targets(3, JointTarget{0.7f, 1.0f, 50, 1, 0});
  s.Reset(0, std::vector<JointTarget>(3));
  s.Apply(kTick, targets);
  EXPECT_EQ(targets[2].position_rad, 0.7f);
}

TEST(TargetShaper, LowPassIsTheFirstOrderFilter) {
  Shaping r(0, 0, 0.1f);
  EXPECT_NEAR(r.Tick(1.0f).position_rad, 0.1f, 1e-6);
  EXPECT_NEAR(r.Tick(1.0f).position_rad, 0.19f, 1e-6);
  EXPECT_NEAR(r.Tick(1.0f).position_rad, 0.271f, 1e-6);
  EXPECT_EQ(r.targets[1].position_rad, 1.0f) << "a joint without limits is untouched";
}

TEST(TargetShaper, VelocityLimitMovesAtMostVmaxPerSecond) {
  Shaping r(3.0f, 0, 1);
  for (int i = 1; i <= 10; ++i) {
    const JointTarget& t = r.Tick(1.0f, 9.0f);
    EXPECT_NEAR(t.position_rad, 0.006f * static_cast<float>(i), 1e-6) << i;
    EXPECT_FLOAT_EQ(t.velocity_rad_s, 3.0f) << "held back: the shaped target's velocity";
  }
}

TEST(TargetShaper, AccelerationLimitRampsTheVelocity) {
  Shaping r(0, 6.28f, 1);
  const JointTarget& a = r.Tick(1.0f);
  EXPECT_NEAR(a.velocity_rad_s, 0.01256f, 1e-6);
  EXPECT_NEAR(a.position_rad, 0.01256f * 0.002f, 1e-8);
  const JointTarget& b = r.Tick(1.0f);
  EXPECT_NEAR(b.velocity_rad_s, 0.02512f, 1e-6);
  EXPECT_NEAR(b.position_rad, (0.01256f + 0.02512f) * 0.002f, 1e-8);
}

TEST(TargetShaper, BrakesToStopOnTheTargetWithoutOvershoot) {
  Shaping r(3.0f, 6.28f, 1);
  float highest = 0, fastest = 0;
  for (int i = 0; i < 1000; ++i) {  // 2 s
    const JointTarget& t = r.Tick(0.5f);
    highest = std::max(highest, t.position_rad);
    fastest = std::max(fastest, std::fabs(t.velocity_rad_s));
  }
  EXPECT_LE(highest, 0.5f + 1e-4f);
  EXPECT_NEAR(r.targets[0].position_rad, 0.5f, 1e-4);
  EXPECT_LE(fastest, 3.0f);
  // Settled: the requested velocity passes, within the max.
  EXPECT_FLOAT_EQ(r.Tick(0.5f, 5.0f).velocity_rad_s, 3.0f);
  EXPECT_FLOAT_EQ(r.Tick(0.5f, -1.0f).velocity_rad_s, -1.0f);
}

TEST(TargetShaper, AStalledLoopDoesNotLeapAhead) {
  Shaping r(3.0f, 0, 1);
  r.t += 500 * kMs;  // a 0.5 s gap before the next tick
  EXPECT_NEAR(r.Tick(1.0f).position_rad, 3.0f * 0.02f, 1e-6);
}

// ---- Through the state machine: the default config limits the arms.

TEST(TargetLimits, AFirstPacketFromDampCannotJumpAnArm) {
  test::Machine m(/*with_policy=*/true, /*target_limits=*/true);
  constexpr std::size_t kElbow = 15;  // L_Elbow, limited in config/robot-edge.yaml
  constexpr std::size_t kKnee = 3;    // L_Knee, not limited
  std::vector<float> pose(25, 0.0f);
  pose[kElbow] = 2.0f;
  pose[kKnee] = 1.0f;
  ASSERT_TRUE(m.sm.Submit(10 * kMs, m.joint.Make(pose, 10 * kMs, 1000 * kMs)).accepted);
  float elbow = m.Step(10 * kMs).targets[kElbow].position_rad;
  EXPECT_EQ(elbow, 0.0f) << "starts from the measured pose";
  float previous = elbow;
  float fastest = 0;
  for (std::int64_t t = 12 * kMs; t <= 600 * kMs; t += 2 * kMs) {
    if (t % (100 * kMs) == 0) m.sm.Submit(t, m.joint.Make(pose, t, 1000 * kMs));
    const Outputs& out = m.Step(t);
    ASSERT_EQ(out.mode, Mode::kMoveJointStream);
    EXPECT_EQ(out.targets[kKnee].position_rad, 1.0f) << "legs have no limits";
    elbow = out.targets[kElbow].position_rad;
    fastest = std::max(fastest, (elbow - previous) / 0.002f);
    previous = elbow;
  }
  EXPECT_LE(fastest, 3.0f + 1e-3f);
  EXPECT_GT(elbow, 0.5f) << "but it gets there";
  EXPECT_LT(elbow, 2.0f);
}

// Seed 000: "Each TrajectoryRequest is applied as an instantaneous PD target". The shipped config
// limits the arms for joint streams only; MOVE/TRAJECTORY shaping is opt-in.
TEST(TargetLimits, TrajectoryTargetsReachTheMotorsAsSentInTheShippedConfig) {
  test::Machine m(/*with_policy=*/true, /*target_limits=*/true);
  constexpr std::size_t kElbow = 15;
  std::vector<float> pose(25, 0.0f);
  pose[kElbow] = 0.2f;
  ASSERT_TRUE(m.sm.Submit(10 * kMs, m.traj.Make(pose, 10 * kMs)).accepted);
  EXPECT_EQ(m.Step(10 * kMs).targets[kElbow].position_rad, 0.2f);
}

TEST(TargetLimits, TrajectoryShapingIsOptIn) {
  config::Config c = test::DefaultConfig();
  c.control.shape_trajectory = true;
  test::Robot robot;
  StateMachine sm(config::MachineOptionsOf(c), config::BuildJointTable(c), nullptr);
  test::TrajectoryMaker traj;
  sm.Step(0, robot.At(0));
  std::vector<float> pose(25, 0.0f);
  pose[15] = 0.2f;
  ASSERT_TRUE(sm.Submit(10 * kMs, traj.Make(pose, 10 * kMs)).accepted);
  EXPECT_LT(sm.Step(12 * kMs, robot.At(12 * kMs)).targets[15].position_rad, 0.1f);
}

}  // namespace
}  // namespace robot_edge::sm
