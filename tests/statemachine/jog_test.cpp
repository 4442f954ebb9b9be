// Bring-up jog: one joint moved gently in DAMP, every other joint limp; it ends when it is not
// renewed, on any command, any alert, and it is refused outside DAMP or while blocked.
#include <gtest/gtest.h>

#include "fixture.hpp"

namespace robot_edge::sm::test {
namespace {

constexpr std::uint32_t kKnee = 3;  // L_Knee: limits 0..2.4, kp 150, kd 4

Command JogCmd(std::uint32_t joint, float target, float speed, std::int64_t t) {
  Command c;
  c.kind = CommandKind::kJog;
  c.source = CommandSource::kDaemon;
  c.jog = {joint, target, speed};
  c.received_us = c.sent_us = t;
  return c;
}

// Renews the jog every 50 ms from `from` to `to`, stepping every 2 ms; returns the last output.
const Outputs* JogFor(Machine& m, const Command& jog, std::int64_t from, std::int64_t to) {
  const Outputs* out = nullptr;
  for (std::int64_t t = from; t <= to; t += 2 * kMs) {
    if ((t - from) % (50 * kMs) == 0) {
      Command c = jog;
      c.received_us = c.sent_us = t;
      EXPECT_TRUE(m.sm.Submit(t, c).accepted) << "at " << t;
    }
    out = &m.Step(t);
  }
  return out;
}

TEST(Jog, RampsOneJointAtItsSpeedWithAFifthOfItsGainsTheOthersLimp) {
  Machine m;
  m.robot.joints[kKnee].position_rad = 0.2f;
  m.Step(1 * kMs);
  const Outputs* out = JogFor(m, JogCmd(kKnee, 1.0f, 0.5f, 2 * kMs), 2 * kMs, 1002 * kMs);
  EXPECT_EQ(out->mode, Mode::kDamp);
  EXPECT_EQ(m.sm.jogging_joint(), static_cast<int>(kKnee));
  const JointTarget& knee = out->targets[kKnee];
  EXPECT_NEAR(knee.position_rad, 0.2f + 0.5f * 1.0f, 0.01f) << "0.5 rad/s for 1 s from 0.2";
  EXPECT_NEAR(knee.velocity_rad_s, 0.5f, 1e-6f);
  EXPECT_NEAR(knee.kp, 150.0f / 5, 1e-3f);
  EXPECT_NEAR(knee.kd, 4.0f, 1e-3f);
  for (std::size_t j = 0; j < out->targets.size(); ++j) {
    if (j == kKnee) continue;
    EXPECT_EQ(out->targets[j].kp, 0.0f) << j;
  }
  out = JogFor(m, JogCmd(kKnee, 1.0f, 0.5f, 1004 * kMs), 1004 * kMs, 2004 * kMs);
  EXPECT_FLOAT_EQ(out->targets[kKnee].position_rad, 1.0f) << "arrived and holds";
  EXPECT_EQ(out->targets[kKnee].velocity_rad_s, 0.0f);
}

TEST(Jog, TargetAndSpeedAreClampedToTheJointAndTheJogsLimits) {
  Machine m;
  const Outputs* out = JogFor(m, JogCmd(kKnee, 9.0f, 50.0f, 2 * kMs), 2 * kMs, 4002 * kMs);
  EXPECT_FLOAT_EQ(out->targets[kKnee].position_rad, 2.4f) << "the knee's upper limit";
  Machine n;
  out = JogFor(n, JogCmd(kKnee, 2.0f, 50.0f, 2 * kMs), 2 * kMs, 1002 * kMs);
  EXPECT_NEAR(out->targets[kKnee].position_rad, Jog::kMaxSpeedRadS * 1.0f, 0.01f);
}

TEST(Jog, EndsWhenNotRenewedWithinTheTrajectoryTimeout) {
  Machine m;
  ASSERT_TRUE(m.sm.Submit(2 * kMs, JogCmd(kKnee, 1.0f, 0.5f, 2 * kMs)).accepted);
  m.Step(2 * kMs);
  EXPECT_GT(m.Step(200 * kMs).targets[kKnee].kp, 0.0f);
  const Outputs& out = m.Step(204 * kMs);  // 202 ms after the last renewal
  EXPECT_EQ(out.targets[kKnee].kp, 0.0f);
  EXPECT_EQ(m.sm.jogging_joint(), -1);
}

TEST(Jog, ADampCommandEndsIt) {
  Machine m;
  JogFor(m, JogCmd(kKnee, 1.0f, 0.5f, 2 * kMs), 2 * kMs, 100 * kMs);
  ASSERT_TRUE(m.sm.Submit(102 * kMs, ModeCmd(ModeRequest::kDamp, 102 * kMs)).accepted);
  EXPECT_EQ(m.Step(102 * kMs).targets[kKnee].kp, 0.0f);
  EXPECT_EQ(m.sm.jogging_joint(), -1);
}

TEST(Jog, AnAlertEndsItAndBlocksANewOne) {
  Machine m;
  JogFor(m, JogCmd(kKnee, 1.0f, 0.5f, 2 * kMs), 2 * kMs, 100 * kMs);
  m.robot.joints[kKnee + 1].temperature_c = 95;
  EXPECT_EQ(m.Step(102 * kMs).targets[kKnee].kp, 0.0f);
  const SubmitResult r = m.sm.Submit(104 * kMs, JogCmd(kKnee, 1.0f, 0.5f, 104 * kMs));
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.reason, Reason::kBlockedByAlert);
}

TEST(Jog, RefusedOutsideDamp) {
  Machine m;
  m.BringTo(Mode::kStand, 10 * kMs);
  const SubmitResult r = m.sm.Submit(12 * kMs, JogCmd(kKnee, 1.0f, 0.5f, 12 * kMs));
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.reason, Reason::kJogNotInDamp);
  EXPECT_EQ(m.sm.mode(), Mode::kStand);
}

TEST(Jog, StandEndsIt) {
  Machine m;
  JogFor(m, JogCmd(kKnee, 1.0f, 0.5f, 2 * kMs), 2 * kMs, 100 * kMs);
  m.BringTo(Mode::kStand, 102 * kMs);
  EXPECT_EQ(m.sm.jogging_joint(), -1);
}

}  // namespace
}  // namespace robot_edge::sm::test
