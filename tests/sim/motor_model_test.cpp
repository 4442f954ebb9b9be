// SimMotor on a KinematicPlant joint: the MIT firmware's answers (FC/FD/FE, rest mode, reply
// layouts, fault injection, latency) and the joint's physics (PD convergence, saturation, CAN
// timeout, hard stops, heating), with time advanced by hand.
#include "sim/motor_model.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "../can/hex.hpp"
#include "sim_test_util.hpp"

namespace robot_edge::sim {
namespace {

using can::test::Hexify;
using test::Decode;
using test::Fc;
using test::Fd;
using test::Fe;

constexpr std::int64_t kMs = 1000;
constexpr std::int64_t kS = 1'000'000;

using test::MotorAndJoint;
using test::MotorOnJoint;

MotorAndJoint Params() {
  MotorAndJoint p;
  p.can_id = 1;
  p.min_rad = -3.0;
  p.max_rad = 3.0;
  p.inertia_kgm2 = 0.02;
  p.friction_nms = 0.2;
  p.ambient_c = 30.0;
  p.thermal_time_constant_s = 120.0;
  p.heating_c_per_nm2_s = 0.01;
  p.can_timeout_us = 100 * kMs;
  return p;
}

can::Payload Command(const SimMotorParams& p, float position, float kp, float kd, float torque = 0,
                     float velocity = 0) {
  return can::EncodeCommand({position, velocity, kp, kd, torque}, p.protocol.ranges);
}

// Sends `command` every `period_us` from `from_us` to `to_us` (exclusive); the motor answers each.
void Hold(MotorOnJoint* m, const can::Payload& command, std::int64_t from_us, std::int64_t to_us,
          std::int64_t period_us = 2 * kMs) {
  for (std::int64_t t = from_us; t < to_us; t += period_us) {
    ASSERT_TRUE(m->OnFrame(command, t).has_value()) << "no reply at " << t << " µs";
  }
  m->Advance(to_us);
}

TEST(SimMotor, IgnoresCommandsBeforeFc) {
  const MotorAndJoint p = Params();
  MotorOnJoint m(p);
  EXPECT_FALSE(m.OnFrame(Command(p, 1.0f, 50, 1), 0).has_value());
  m.Advance(100 * kMs);
  EXPECT_EQ(m.state().commands, 0u);
  EXPECT_EQ(m.state().position_rad, 0.0);  // no torque: did not move
  EXPECT_FALSE(m.state().motor_mode);
}

TEST(SimMotor, FcEntersMotorModeAndRepliesWithTheState) {
  const MotorAndJoint p = Params();
  MotorOnJoint m(p);
  const auto reply = m.OnFrame(Fc(), 0);
  ASSERT_TRUE(reply.has_value());
  // id 1, position 0 (0x8000), velocity 0 (0x800), torque 0 (0x800), 30 °C, no error.
  EXPECT_EQ(Hexify(reply->data, reply->len), "0180008008001e00");
  EXPECT_TRUE(m.state().motor_mode);
  EXPECT_TRUE(m.OnFrame(Command(p, 0, 10, 1), 1 * kMs).has_value());
  EXPECT_EQ(m.state().commands, 1u);
}

TEST(SimMotor, ReportsTheGainsOfTheCommandInEffect) {
  const MotorAndJoint p = Params();
  MotorOnJoint m(p);
  EXPECT_EQ(m.state().kp, 0.0);  // no command yet
  m.OnFrame(Fc(), 0);
  m.OnFrame(Command(p, 0, 50, 1), 1 * kMs);
  m.Advance(10 * kMs);
  EXPECT_NEAR(m.state().kp, 50.0, 0.2);  // 12-bit on the wire
  EXPECT_NEAR(m.state().kd, 1.0, 0.01);
  m.OnFrame(Command(p, 0, 0, 1), 11 * kMs);  // DAMP: kp 0
  m.Advance(20 * kMs);
  EXPECT_EQ(m.state().kp, 0.0);
}

TEST(SimMotor, FdLeavesMotorModeAndCommandsGetNoReply) {
  const MotorAndJoint p = Params();
  MotorOnJoint m(p);
  m.OnFrame(Fc(), 0);
  ASSERT_TRUE(m.OnFrame(Command(p, 0, 10, 1), 1 * kMs).has_value());
  ASSERT_TRUE(m.OnFrame(Fd(), 2 * kMs).has_value());  // FD itself is answered
  EXPECT_FALSE(m.state().motor_mode);
  EXPECT_FALSE(m.OnFrame(Command(p, 0, 10, 1), 3 * kMs).has_value());
  EXPECT_EQ(m.state().commands, 1u);
}

TEST(SimMotor, FcForgetsThePreviousCommand) {
  const MotorAndJoint p = Params();
  MotorOnJoint m(p);
  m.OnFrame(Fc(), 0);
  m.OnFrame(Command(p, 0, 0, 0, 5.0f), 1 * kMs);
  m.OnFrame(Fc(), 2 * kMs);
  m.Advance(10 * kMs);
  EXPECT_EQ(m.state().torque_nm, 0.0);
  EXPECT_FALSE(m.state().active);
}

TEST(SimMotor, FeMakesThePresentPositionReadZero) {
  const MotorAndJoint p = Params();
  MotorOnJoint m(p);
  m.OnFrame(Fc(), 0);
  Hold(&m, Command(p, 0.5f, 50, 1), 0, 1 * kS);
  ASSERT_NEAR(m.state().position_rad, 0.5, 0.01);
  const auto reply = m.OnFrame(Fe(), 1 * kS);
  ASSERT_TRUE(reply.has_value());
  EXPECT_NEAR(Decode(*reply, p).position_rad, 0.0f, 1e-3f);
  // Targets are in the new frame too: holding 0 now holds the joint where it was.
  Hold(&m, Command(p, 0.0f, 50, 1), 1 * kS, 2 * kS);
  EXPECT_NEAR(m.state().position_rad, 0.0, 0.01);
  EXPECT_NEAR(m.state().joint_position_rad, 0.5, 0.01);
}

TEST(SimMotor, PdCommandConvergesToItsTarget) {
  const MotorAndJoint p = Params();
  MotorOnJoint m(p);
  m.OnFrame(Fc(), 0);
  Hold(&m, Command(p, 1.0f, 50, 1), 0, 1 * kS);
  EXPECT_NEAR(m.state().position_rad, 1.0, 0.01);
  EXPECT_NEAR(m.state().velocity_rad_s, 0.0, 0.05);
  const auto reply = m.OnFrame(Command(p, 1.0f, 50, 1), 1 * kS);
  ASSERT_TRUE(reply.has_value());
  EXPECT_NEAR(Decode(*reply, p).position_rad, 1.0f, 0.01f);
}

TEST(SimMotor, VelocityTargetWithDampingOnly) {
  // kd only: the joint settles where kd·(v_des − v) + t_ff = friction·v (t_ff = 0 encodes as
  // half a step above 0).
  const MotorAndJoint p = Params();
  MotorOnJoint m(p);
  m.OnFrame(Fc(), 0);
  const can::Payload command = Command(p, 0, 0, 2.0f, 0, 1.0f);
  can::MitCommand sent;  // the quantised values the motor sees
  ASSERT_TRUE(can::DecodeCommand(command, p.protocol.ranges, &sent));
  Hold(&m, command, 0, 500 * kMs);
  EXPECT_NEAR(m.state().velocity_rad_s,
              (sent.kd * sent.velocity_rad_s + sent.torque_nm) / (sent.kd + 0.2), 1e-4);
}

TEST(SimMotor, TorqueSaturatesAtTMax) {
  MotorAndJoint p = Params();
  p.protocol.ranges.t_max = 5.0f;
  MotorOnJoint m(p);
  m.OnFrame(Fc(), 0);
  m.OnFrame(Command(p, 2.0f, 500, 0), 0);  // 500 · 2 = 1000 N·m asked
  m.Advance(10 * kMs);
  EXPECT_DOUBLE_EQ(m.state().torque_nm, 5.0);
  // J·dv/dt = 5 − 0.2·v from rest: v(10 ms) = 25·(1 − e^(−0.1)) ≈ 2.38 rad/s.
  EXPECT_NEAR(m.state().velocity_rad_s, 25 * (1 - std::exp(-0.1)), 0.01);
  const auto reply = m.OnFrame(Command(p, 2.0f, 500, 0), 10 * kMs);
  EXPECT_NEAR(Decode(*reply, p).torque_nm, 5.0f, 0.01f);
}

TEST(SimMotor, GoesLimpAfterItsCanTimeout) {
  const MotorAndJoint p = Params();
  MotorOnJoint m(p);
  m.OnFrame(Fc(), 0);
  Hold(&m, Command(p, 0, 0, 0, 0.5f), 0, 50 * kMs);  // last command at 48 ms
  m.Advance(148 * kMs);                              // exactly the timeout: still driven
  EXPECT_NEAR(m.state().torque_nm, 0.5, 0.01);
  m.Advance(149 * kMs);
  EXPECT_EQ(m.state().torque_nm, 0.0);
  EXPECT_FALSE(m.state().active);
  EXPECT_TRUE(m.state().motor_mode);  // limp, not out of motor mode
  const double v_limp = m.state().velocity_rad_s;
  ASSERT_GT(v_limp, 1.0);
  m.Advance(649 * kMs);  // friction alone: v decays as exp(−t·b/J) = exp(−5) after 0.5 s
  EXPECT_NEAR(m.state().velocity_rad_s, v_limp * std::exp(-5.0), 0.01 * v_limp);
  // A new command drives it again.
  m.OnFrame(Command(p, 0, 0, 0, 0.5f), 650 * kMs);
  m.Advance(651 * kMs);
  EXPECT_NEAR(m.state().torque_nm, 0.5, 0.01);
}

TEST(SimMotor, ZeroCanTimeoutNeverGoesLimp) {
  MotorAndJoint p = Params();
  p.can_timeout_us = 0;
  MotorOnJoint m(p);
  m.OnFrame(Fc(), 0);
  m.OnFrame(Command(p, 0, 0, 0, 0.5f), 0);
  m.Advance(10 * kS);
  EXPECT_NEAR(m.state().torque_nm, 0.5, 0.01);
}

TEST(SimMotor, HardStopsAtTheJointLimitsPlusMargin) {
  MotorAndJoint p = Params();
  p.min_rad = -0.5;
  p.max_rad = 0.5;
  MotorOnJoint m(p);
  m.OnFrame(Fc(), 0);
  Hold(&m, Command(p, 2.0f, 10, 1), 0, 500 * kMs);
  EXPECT_NEAR(m.state().position_rad, 0.5 + KinematicPlant::kHardStopMarginRad, 1e-6);
  EXPECT_EQ(m.state().velocity_rad_s, 0.0);
  EXPECT_NEAR(m.state().torque_nm, 10 * (2.0 - 0.55), 0.05);  // still pushing
  Hold(&m, Command(p, -2.0f, 10, 1), 500 * kMs, 1 * kS);
  EXPECT_NEAR(m.state().position_rad, -0.5 - KinematicPlant::kHardStopMarginRad, 1e-6);
}

TEST(SimMotor, StableWithStiffGainsOnATinyInertia) {
  MotorAndJoint p = Params();
  p.inertia_kgm2 = 1e-5;
  p.friction_nms = 0;
  MotorOnJoint m(p);
  m.OnFrame(Fc(), 0);
  Hold(&m, Command(p, 0.3f, 500, 5), 0, 200 * kMs);
  EXPECT_NEAR(m.state().position_rad, 0.3, 0.01);
  EXPECT_TRUE(std::isfinite(m.state().velocity_rad_s));
}

TEST(SimMotor, HeatsWithTorqueSquaredAndCoolsTowardAmbient) {
  MotorAndJoint p = Params();
  p.min_rad = -0.1;
  p.max_rad = 0.1;
  MotorOnJoint m(p);
  m.OnFrame(Fc(), 0);
  // 10 N·m against the hard stop for 10 s: T → 30 + 0.01·100·120·(1 − e^(−10/120)) ≈ 39.6 °C.
  Hold(&m, Command(p, 0, 0, 0, 10.0f), 0, 10 * kS, 50 * kMs);
  const double hot = m.state().temperature_c;
  EXPECT_NEAR(hot, 30 + 120 * (1 - std::exp(-10.0 / 120)), 0.1);
  const auto reply = m.OnFrame(Command(p, 0, 0, 0, 10.0f), 10 * kS);
  EXPECT_EQ(reply->data[6], static_cast<std::uint8_t>(std::lround(hot)));
  // Limp from 10.1 s: cools by e^(−1) over one time constant, then to ambient.
  m.Advance(10 * kS + 100 * kMs + 120 * kS);
  EXPECT_NEAR(m.state().temperature_c - 30, (hot - 30) * std::exp(-1.0), 0.1);
  m.Advance(2000 * kS);
  EXPECT_NEAR(m.state().temperature_c, 30.0, 0.01);
}

TEST(SimMotor, PinnedTemperatureIsReportedInByte6) {
  const MotorAndJoint p = Params();
  MotorOnJoint m(p);
  m.OnFrame(Fc(), 0);
  m.PinTemperature(85.4);
  Hold(&m, Command(p, 0, 0, 0, 10.0f), 0, 1 * kS);  // heating would move it; pinned does not
  auto reply = m.OnFrame(Command(p, 0, 0, 0, 10.0f), 1 * kS);
  EXPECT_EQ(reply->data[6], 85);
  m.PinTemperature(300);
  EXPECT_EQ(m.OnFrame(Fc(), 1 * kS)->data[6], 255);  // clamped to the byte
  m.PinTemperature(-10);
  EXPECT_EQ(m.OnFrame(Fc(), 1 * kS)->data[6], 0);
  m.PinTemperature(85.4);
  m.ReleaseTemperature();  // limp (FC forgot the command): cools from 85.4 toward 30
  m.Advance(2 * kS);
  EXPECT_LT(m.state().temperature_c, 85.4);
  EXPECT_GT(m.state().temperature_c, 80.0);
}

TEST(SimMotor, SilencedMotorNeitherProcessesNorReplies) {
  const MotorAndJoint p = Params();
  MotorOnJoint m(p);
  m.OnFrame(Fc(), 0);
  m.OnFrame(Command(p, 0, 0, 0, 0.5f), 0);
  m.SetSilenced(true);
  EXPECT_FALSE(m.OnFrame(Command(p, 0, 0, 0, 0.5f), 50 * kMs).has_value());
  EXPECT_FALSE(m.OnFrame(Fd(), 60 * kMs).has_value());
  EXPECT_EQ(m.state().commands, 1u);
  EXPECT_TRUE(m.state().motor_mode);  // the FD never arrived
  m.Advance(150 * kMs);               // its commands stopped at 0: limp after 100 ms
  EXPECT_EQ(m.state().torque_nm, 0.0);
  m.SetSilenced(false);
  EXPECT_TRUE(m.OnFrame(Command(p, 0, 0, 0, 0.5f), 160 * kMs).has_value());
}

TEST(SimMotor, ErrorCodeIsReportedInByte7) {
  const MotorAndJoint p = Params();
  MotorOnJoint m(p);
  m.SetErrorCode(static_cast<std::uint8_t>(can::MotorError::kEncoder));
  EXPECT_EQ(m.OnFrame(Fc(), 0)->data[7], 5);
  m.SetErrorCode(0);
  EXPECT_EQ(m.OnFrame(Fc(), 0)->data[7], 0);
}

TEST(SimMotor, ClassicLayoutRepliesSixBytesWithoutTemperature) {
  MotorAndJoint p = Params();
  p.protocol.layout = can::ReplyLayout::kClassic6Byte;
  p.can_id = 0x23;
  MotorOnJoint m(p);
  m.PinTemperature(70);
  m.SetErrorCode(2);
  const auto reply = m.OnFrame(Fc(), 0);
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->len, 6);
  EXPECT_EQ(Hexify(reply->data, reply->len), "238000800800");
}

TEST(SimMotor, IgnoresFramesItDoesNotUnderstand) {
  const MotorAndJoint p = Params();
  MotorOnJoint m(p);
  m.OnFrame(Fc(), 0);
  const std::uint8_t short_frame[6] = {0x80, 0, 0x80, 0, 0, 0x08};
  EXPECT_FALSE(m.OnFrame(short_frame, 1 * kMs).has_value());
  const std::uint8_t not_special[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE, 0xFC};
  EXPECT_TRUE(m.OnFrame(not_special, 2 * kMs).has_value());  // a valid (if odd) command
  EXPECT_EQ(m.state().commands, 1u);
}

TEST(SimMotor, ParamsComeFromTheConfigWithPerJointOverrides) {
  const config::Config c = test::SmallConfig();
  const SimMotorParams knee = MotorParamsFor(c, 0);
  EXPECT_EQ(knee.can_id, 1u);
  EXPECT_DOUBLE_EQ(knee.ambient_c, 25);
  EXPECT_EQ(knee.can_timeout_us, 100'000);
  EXPECT_EQ(knee.latency_us, 0);
  EXPECT_EQ(knee.protocol.layout, can::ReplyLayout::kAk8Byte);
  EXPECT_EQ(MotorParamsFor(c, 2).protocol.layout, can::ReplyLayout::kClassic6Byte);
  const KinematicJoint knee_joint = KinematicJointFor(c, 0);
  EXPECT_DOUBLE_EQ(knee_joint.inertia_kgm2, 0.02);  // sim default
  EXPECT_DOUBLE_EQ(knee_joint.friction_nms, 0.2);
  EXPECT_DOUBLE_EQ(knee_joint.min_rad, -1.0);
  const KinematicJoint hip_joint = KinematicJointFor(c, 1);
  EXPECT_DOUBLE_EQ(hip_joint.inertia_kgm2, 0.5);  // per joint
  EXPECT_DOUBLE_EQ(hip_joint.friction_nms, 3.0);
}

TEST(SimMotor, ACommandTakesEffectAfterTheActuatorsLatency) {
  MotorAndJoint p = Params();
  p.latency_us = 10 * kMs;
  MotorOnJoint m(p);
  m.OnFrame(Fc(), 0);
  ASSERT_TRUE(m.OnFrame(Command(p, 0, 0, 0, 1.0f), 2 * kMs).has_value());  // answered at once
  m.Advance(11 * kMs);
  EXPECT_EQ(m.state().torque_nm, 0.0);  // still in flight
  m.Advance(13 * kMs);
  EXPECT_NEAR(m.state().torque_nm, 1.0, 0.01);
  // A stream keeps its order and its delay: each command applies 10 ms after it arrived.
  m.OnFrame(Command(p, 0, 0, 0, 2.0f), 14 * kMs);
  m.OnFrame(Command(p, 0, 0, 0, 3.0f), 16 * kMs);
  m.Advance(24 * kMs + 500);
  EXPECT_NEAR(m.state().torque_nm, 2.0, 0.01);
  m.Advance(26 * kMs + 500);
  EXPECT_NEAR(m.state().torque_nm, 3.0, 0.01);
}

// Damiao and Robstride firmware take their CAN-loss timeout over CAN: off as shipped, set by a
// write (robot-edged's at start), answered by a read, and then obeyed.
can_frame AsFrame(const SimReply& r) {
  can_frame f{};
  f.can_id = r.can_id;
  f.len = r.len;
  std::copy(r.data.begin(), r.data.begin() + r.len, f.data);
  return f;
}

TEST(SimMotorCanTimeout, ADamiaoOrRobstrideMotorTakesItsTimeoutOverCanAndThenObeysIt) {
  for (auto family : {config::MotorFamily::kDamiao, config::MotorFamily::kRobstride}) {
    MotorAndJoint p = Params();
    p.protocol.family = family;
    p.master_id = 0x10;
    p.can_timeout_us = 0;  // as shipped
    MotorOnJoint m(p);
    can_frame enable{};
    ASSERT_TRUE(can::EncodeRequestFrame(p.protocol, 1, 0x10, can::MotorRequest::kEnable, &enable));
    m.OnCanFrame(enable, 0);
    const can_frame hold = can::EncodeCommandFrame(p.protocol, 1, 0x10, {0.5f, 0, 50, 1, 0});
    ASSERT_TRUE(m.OnCanFrame(hold, 1 * kMs));
    m.Advance(500 * kMs);
    EXPECT_TRUE(m.state().active) << "timeout off: the last command holds";

    can_frame write{}, read{};
    ASSERT_TRUE(can::EncodeCanTimeoutWrite(p.protocol, 1, 0x10, 100, &write));
    ASSERT_TRUE(can::EncodeCanTimeoutRead(p.protocol, 1, 0x10, &read));
    ASSERT_TRUE(m.OnCanFrame(write, 501 * kMs).has_value()) << "a write is answered";
    EXPECT_EQ(m.state().can_timeout_us, 100 * kMs);
    const auto answer = m.OnCanFrame(read, 502 * kMs);
    ASSERT_TRUE(answer.has_value());
    std::uint32_t id = 0, ms = 0;
    ASSERT_TRUE(can::DecodeCanTimeoutReply(family, 0x10, AsFrame(*answer), &id, &ms));
    EXPECT_EQ(id, 1u);
    EXPECT_EQ(ms, 100u);

    ASSERT_TRUE(m.OnCanFrame(hold, 503 * kMs));
    m.Advance(590 * kMs);
    EXPECT_TRUE(m.state().active);
    m.Advance(700 * kMs);
    EXPECT_FALSE(m.state().active) << "no command for more than 100 ms: limp";
  }
}

}  // namespace
}  // namespace robot_edge::sim
