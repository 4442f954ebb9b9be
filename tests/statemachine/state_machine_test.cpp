// The state machine over time, with time advanced by hand (the model: PX4's failsafe tests).
#include "statemachine/state_machine.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "config/library_options.hpp"
#include "fixture.hpp"
#include "statemachine/stand_ramp.hpp"

namespace robot_edge::sm {
namespace {

using test::DefaultConfig;
using test::HasEvent;
using test::kMs;
using test::kS;
using test::Machine;
using test::ModeCmd;
using test::VelocityCmd;

const auto& Joints() { return DefaultConfig().joints; }

// ---- Boot and DAMP ----

TEST(Boot, StartsInDampWithZeroStiffnessOnEveryMotor) {
  Machine m;
  const Outputs& out = m.Step(2 * kMs);
  EXPECT_EQ(out.mode, Mode::kDamp);
  ASSERT_EQ(out.targets.size(), 25u);
  for (std::size_t j = 0; j < 25; ++j) {
    EXPECT_EQ(out.targets[j].kp, 0.0f) << j;
    EXPECT_FLOAT_EQ(out.targets[j].kd, Joints()[j].damp_kd) << j;
    EXPECT_EQ(out.targets[j].torque_nm, 0.0f) << j;
    EXPECT_EQ(out.targets[j].velocity_rad_s, 0.0f) << j;
  }
}

TEST(Damp, IsAcceptedFromEveryModeAndGoesLimp) {
  for (Mode from : {Mode::kStand, Mode::kMovePolicy, Mode::kMoveTrajectory}) {
    Machine m;
    m.BringTo(from, 10 * kMs);
    EXPECT_TRUE(m.sm.Submit(20 * kMs, ModeCmd(ModeRequest::kDamp)).accepted);
    const Outputs& out = m.Step(20 * kMs);
    EXPECT_EQ(out.mode, Mode::kDamp) << ToString(from);
    EXPECT_EQ(out.targets[0].kp, 0.0f);
    EXPECT_TRUE(HasEvent(out, EventKind::kModeChanged));
  }
}

// ---- Trajectory session timeout (200 ms) ----

TEST(TrajectoryWatchdog, HoldsAt199msAndDampsAt201ms) {
  Machine m;
  m.sm.Submit(1 * kS, m.traj.Zero(1 * kS));
  EXPECT_EQ(m.Step(1 * kS).mode, Mode::kMoveTrajectory);
  EXPECT_EQ(m.Step(1 * kS + 199 * kMs).mode, Mode::kMoveTrajectory);
  const Outputs& out = m.Step(1 * kS + 201 * kMs);
  EXPECT_EQ(out.mode, Mode::kDamp);
  ASSERT_TRUE(HasEvent(out, EventKind::kTrajectoryTimeout));
  for (const auto& e : out.events) {
    if (e.kind == EventKind::kTrajectoryTimeout) {
      EXPECT_EQ(e.silence_ms, 201u);
    }
    if (e.kind == EventKind::kModeChanged) {
      EXPECT_EQ(e.cause, Cause::kTrajectoryTimeout);
    }
  }
  EXPECT_EQ(out.targets[0].kp, 0.0f) << "DAMP targets in the same tick";
}

TEST(TrajectoryWatchdog, FiresAtExactlyTheTimeout) {
  Machine m;
  m.sm.Submit(0, m.traj.Zero(0));
  EXPECT_EQ(m.Step(200 * kMs).mode, Mode::kDamp);
}

TEST(TrajectoryWatchdog, StreamingAt50HzKeepsTheSessionAlive) {
  Machine m;
  for (std::int64_t t = 0; t <= 2 * kS; t += 2 * kMs) {
    if (t % (20 * kMs) == 0) m.sm.Submit(t, m.traj.Zero(t));
    ASSERT_EQ(m.Step(t).mode, Mode::kMoveTrajectory) << t;
  }
}

TEST(TrajectoryWatchdog, UsesTheTimeThePacketWasReceived) {
  Machine m;
  // Received at 100 ms, handed to the state machine at 150 ms: the 200 ms count from 100.
  m.sm.Submit(150 * kMs, m.traj.Zero(100 * kMs));
  EXPECT_EQ(m.Step(299 * kMs).mode, Mode::kMoveTrajectory);
  EXPECT_EQ(m.Step(301 * kMs).mode, Mode::kDamp);
}

TEST(TrajectoryWatchdog, DoesNotApplyToVelocityOrStand) {
  Machine m;
  m.BringTo(Mode::kMovePolicy, 0);
  EXPECT_EQ(m.Step(10 * kS).mode, Mode::kMovePolicy);
  m.sm.Submit(10 * kS, ModeCmd(ModeRequest::kStand));
  EXPECT_EQ(m.Step(20 * kS).mode, Mode::kStand);
}

TEST(TrajectoryWatchdog, ConfiguredTimeoutIsUsed) {
  config::Config c = DefaultConfig();
  c.control.trajectory_timeout_ms = 50;
  test::Robot robot;
  StateMachine sm(config::MachineOptionsOf(c), config::BuildJointTable(c), nullptr);
  test::TrajectoryMaker traj;
  sm.Step(0, robot.At(0));
  sm.Submit(0, traj.Zero(0));
  EXPECT_EQ(sm.Step(49 * kMs, robot.At(49 * kMs)).mode, Mode::kMoveTrajectory);
  EXPECT_EQ(sm.Step(51 * kMs, robot.At(51 * kMs)).mode, Mode::kDamp);
}

// ---- Trajectory playback ----

// A trajectory of 0.1, 0.2, 0.3 on every joint, gains 80 / 3, received at `t`.
Command ThreeSegments(test::TrajectoryMaker& maker, std::int64_t t) {
  auto& trajectory = maker.trajectory();
  trajectory.Clear();
  std::vector<float> kp(25, 80.0f), kd(25, 3.0f);
  for (float p : {0.1f, 0.2f, 0.3f}) trajectory.Append(std::vector<float>(25, p), kp, kd);
  Command c;
  c.kind = CommandKind::kTrajectory;
  c.trajectory = &trajectory;
  c.received_us = c.sent_us = t;
  return c;
}

TEST(TrajectoryPlayback, OneSegmentPerControlPeriodThenTheLastIsHeld) {
  Machine m;
  test::TrajectoryMaker maker;
  m.sm.Submit(10 * kMs, ThreeSegments(maker, 10 * kMs));
  maker.trajectory().Clear();  // the state machine keeps its own copy
  EXPECT_FLOAT_EQ(m.Step(10 * kMs).targets[14].position_rad, 0.1f);
  EXPECT_FLOAT_EQ(m.Step(12 * kMs).targets[14].position_rad, 0.2f);
  EXPECT_FLOAT_EQ(m.Step(14 * kMs).targets[14].position_rad, 0.3f);
  const Outputs& held = m.Step(16 * kMs);
  EXPECT_FLOAT_EQ(held.targets[14].position_rad, 0.3f);
  EXPECT_FLOAT_EQ(held.targets[14].kp, 80.0f);
  EXPECT_FLOAT_EQ(held.targets[14].kd, 3.0f);
  EXPECT_EQ(held.targets[14].torque_nm, 0.0f);
}

TEST(TrajectoryPlayback, FollowsTheClockNotTheTickCount) {
  Machine m;
  test::TrajectoryMaker maker;
  m.sm.Submit(10 * kMs, ThreeSegments(maker, 10 * kMs));
  EXPECT_FLOAT_EQ(m.Step(10 * kMs).targets[14].position_rad, 0.1f);
  // The next tick came 4 ms later (a late tick): the segment due then plays, so the
  // trajectory keeps its timing instead of running slow.
  EXPECT_FLOAT_EQ(m.Step(14 * kMs).targets[14].position_rad, 0.3f);
}

TEST(TrajectoryPlayback, ANewRequestStartsOverAtItsFirstSegment) {
  Machine m;
  m.sm.Submit(0, m.traj.Make(std::vector<float>(25, 0.2f), 0));
  m.Step(2 * kMs);
  m.sm.Submit(3 * kMs, m.traj.Make(std::vector<float>(25, -0.1f), 3 * kMs));
  EXPECT_FLOAT_EQ(m.Step(4 * kMs).targets[22].position_rad, -0.1f);
}

TEST(TrajectoryPlayback, DirectPdEngagesOnTheFirstPacketFromDamp) {
  Machine m;
  m.sm.Submit(0, m.traj.Make(std::vector<float>(25, 0.05f), 0));
  const Outputs& out = m.Step(0);
  EXPECT_EQ(out.mode, Mode::kMoveTrajectory);
  EXPECT_FLOAT_EQ(out.targets[0].kp, Joints()[0].kp);
  EXPECT_FLOAT_EQ(out.targets[0].position_rad, 0.05f);
}

// ---- DAMP interrupting a trajectory stream ----

// Streams at 50 Hz from `from` to `to` (packets every 20 ms, ticks every 2 ms); returns the mode.
Mode Stream(Machine& m, std::int64_t from, std::int64_t to) {
  for (std::int64_t t = from; t < to; t += 2 * kMs) {
    if ((t - from) % (20 * kMs) == 0) m.sm.Submit(t, m.traj.Zero(t));
    m.Step(t);
  }
  return m.sm.mode();
}

TEST(DampLatch, AStreamThatDampInterruptedCannotRestartTheRobot) {
  Machine m;
  ASSERT_EQ(Stream(m, 0, 100 * kMs), Mode::kMoveTrajectory);
  m.sm.Submit(100 * kMs, ModeCmd(ModeRequest::kDamp, 100 * kMs));  // another client's e-stop
  m.Step(100 * kMs);
  const SubmitResult r = m.sm.Submit(120 * kMs, m.traj.Zero(120 * kMs));  // the stream goes on
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.reason, Reason::kTrajectoryStreamDamped);
  const Outputs& out = m.Step(120 * kMs);
  ASSERT_TRUE(HasEvent(out, EventKind::kModeBlocked)) << "reported once";
  EXPECT_EQ(out.events.back().reason, Reason::kTrajectoryStreamDamped);
  EXPECT_EQ(Stream(m, 140 * kMs, 2 * kS), Mode::kDamp) << "still DAMP after 2 s of streaming";
  EXPECT_EQ(m.sm.counters()[Reason::kTrajectoryStreamDamped], 94u);
}

TEST(DampLatch, MODE_BLOCKEDIsReportedOncePerStream) {
  Machine m;
  Stream(m, 0, 100 * kMs);
  m.sm.Submit(100 * kMs, ModeCmd(ModeRequest::kDamp, 100 * kMs));
  int blocked = 0;
  for (std::int64_t t = 120 * kMs; t < kS; t += 20 * kMs) {
    m.sm.Submit(t, m.traj.Zero(t));
    for (const auto& e : m.Step(t).events) blocked += e.kind == EventKind::kModeBlocked;
  }
  EXPECT_EQ(blocked, 1);
}

TEST(DampLatch, APauseOfTheTimeoutStartsANewStream) {
  Machine m;
  Stream(m, 0, 100 * kMs);
  m.sm.Submit(100 * kMs, ModeCmd(ModeRequest::kDamp, 100 * kMs));
  m.Step(100 * kMs);
  EXPECT_FALSE(m.sm.Submit(120 * kMs, m.traj.Zero(120 * kMs)).accepted);
  EXPECT_FALSE(m.sm.Submit(319 * kMs, m.traj.Zero(319 * kMs)).accepted) << "199 ms: same stream";
  EXPECT_TRUE(m.sm.Submit(519 * kMs, m.traj.Zero(519 * kMs)).accepted) << "200 ms: a new one";
  EXPECT_EQ(m.Step(520 * kMs).mode, Mode::kMoveTrajectory);
}

TEST(DampLatch, StandReleasesIt) {
  Machine m;
  Stream(m, 0, 100 * kMs);
  m.sm.Submit(100 * kMs, ModeCmd(ModeRequest::kDamp, 100 * kMs));
  m.Step(100 * kMs);
  EXPECT_TRUE(m.sm.Submit(110 * kMs, ModeCmd(ModeRequest::kStand, 110 * kMs)).accepted);
  EXPECT_TRUE(m.sm.Submit(120 * kMs, m.traj.Zero(120 * kMs)).accepted);
  EXPECT_EQ(m.Step(120 * kMs).mode, Mode::kMoveTrajectory);
}

TEST(DampLatch, AnAlertThatClearsDoesNotLetTheStreamResume) {
  Machine m;
  Stream(m, 0, 100 * kMs);
  m.robot.joints[3].temperature_c = 85;  // overtemp: DAMP
  m.sm.Submit(100 * kMs, m.traj.Zero(100 * kMs));
  EXPECT_EQ(m.Step(102 * kMs).mode, Mode::kDamp);
  EXPECT_EQ(m.sm.Submit(120 * kMs, m.traj.Zero(120 * kMs)).reason, Reason::kBlockedByAlert);
  m.Step(120 * kMs);
  m.robot.joints[3].temperature_c = 60;  // cleared
  m.Step(130 * kMs);
  EXPECT_EQ(m.sm.Submit(140 * kMs, m.traj.Zero(140 * kMs)).reason, Reason::kTrajectoryStreamDamped);
  EXPECT_TRUE(HasEvent(m.Step(140 * kMs), EventKind::kModeBlocked)) << "a new reason is reported";
}

// A WiFi drop: packets sent at 50 Hz are held back, the watchdog DAMPs, then the network
// delivers them in a burst. None of them may re-engage the motors: they were sent before DAMP.
TEST(DampLatch, LatePacketsOfAStreamTheWatchdogStoppedNeverLeaveDamp) {
  Machine m;
  Stream(m, 0, 100 * kMs);
  const Outputs& damped = m.Step(300 * kMs);  // last packet at 80 ms: the watchdog at 280
  ASSERT_EQ(damped.mode, Mode::kDamp);
  for (std::int64_t sent = 100 * kMs; sent < 2900 * kMs; sent += 20 * kMs) {
    Command late = m.traj.Zero(3 * kS);  // delivered at 3 s
    late.sent_us = sent;
    if (sent < 280 * kMs) {
      const SubmitResult r = m.sm.Submit(3 * kS, late);
      EXPECT_FALSE(r.accepted) << "sent at " << sent / kMs << " ms";
      EXPECT_EQ(r.reason, Reason::kSentBeforeDamp);
    }
  }
  EXPECT_EQ(m.Step(3 * kS).mode, Mode::kDamp);
  EXPECT_GT(m.sm.counters()[Reason::kSentBeforeDamp], 0u);
}

TEST(DampLatch, AFreshStreamAfterTheWatchdogEntersTrajectoryOnItsFirstPacket) {
  Machine m;
  Stream(m, 0, 100 * kMs);
  EXPECT_EQ(m.Step(400 * kMs).mode, Mode::kDamp);  // trajectory timeout at 280 ms
  EXPECT_TRUE(m.sm.Submit(410 * kMs, m.traj.Zero(410 * kMs)).accepted) << "seed 000";
  EXPECT_EQ(m.Step(410 * kMs).mode, Mode::kMoveTrajectory);
}

TEST(DampLatch, AStandSentBeforeAnotherClientsDampDoesNotUndoIt) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  m.sm.Submit(kS, ModeCmd(ModeRequest::kDamp, kS));  // the phone's e-stop arrives first
  m.Step(kS);
  Command stand = ModeCmd(ModeRequest::kStand, kS + 30 * kMs);  // the cloud's, sent earlier
  stand.sent_us = kS - 5 * kMs;
  EXPECT_EQ(m.sm.Submit(kS + 30 * kMs, stand).reason, Reason::kSentBeforeDamp);
  const Outputs& out = m.Step(kS + 30 * kMs);
  EXPECT_EQ(out.mode, Mode::kDamp);
  ASSERT_TRUE(HasEvent(out, EventKind::kModeBlocked));
  EXPECT_EQ(out.events.back().reason, Reason::kSentBeforeDamp);
}

TEST(DampLatch, DampWithoutAStreamDoesNotLatchANewOne) {
  Machine n;
  n.BringTo(Mode::kStand, 0);
  n.sm.Submit(kS, ModeCmd(ModeRequest::kDamp, kS));
  n.Step(kS);
  EXPECT_TRUE(n.sm.Submit(kS + 10 * kMs, n.traj.Zero(kS + 10 * kMs)).accepted);
}

TEST(DampExit, IsRefusedUntilTheImuHasReported) {
  Machine m;  // booted at 0 with the IMU reporting
  test::Robot blind;
  blind.imu.last_update_us = -1;  // never received
  StateMachine sm(config::MachineOptionsOf(DefaultConfig()),
                  config::BuildJointTable(DefaultConfig()), nullptr);
  for (auto& j : blind.joints) j.last_reply_us = 0;
  sm.Step(0, Inputs{blind.joints, blind.imu, blind.buses});
  EXPECT_EQ(sm.Submit(10 * kMs, ModeCmd(ModeRequest::kStand, 10 * kMs)).reason,
            Reason::kImuNotReady);
  EXPECT_EQ(sm.Submit(10 * kMs, m.traj.Zero(10 * kMs)).reason, Reason::kImuNotReady);
  blind.imu.last_update_us = 20 * kMs;
  sm.Step(20 * kMs, Inputs{blind.joints, blind.imu, blind.buses});
  EXPECT_TRUE(sm.Submit(30 * kMs, ModeCmd(ModeRequest::kStand, 30 * kMs)).accepted);
}

// ---- STAND ramp ----

TEST(StandRamp, QuinticFromStartToEndWithZeroEndVelocities) {
  EXPECT_FLOAT_EQ(StandRamp(0, 2).fraction, 0.0f);
  EXPECT_FLOAT_EQ(StandRamp(1, 2).fraction, 0.5f);
  EXPECT_FLOAT_EQ(StandRamp(2, 2).fraction, 1.0f);
  EXPECT_FLOAT_EQ(StandRamp(5, 2).fraction, 1.0f);
  EXPECT_FLOAT_EQ(StandRamp(0, 2).rate_per_s, 0.0f);
  EXPECT_FLOAT_EQ(StandRamp(2, 2).rate_per_s, 0.0f);
  EXPECT_FLOAT_EQ(StandRamp(1, 2).rate_per_s, 30.0f / 16.0f / 2.0f);
  float previous = -1;
  for (double t = 0; t <= 2.0; t += 0.01) {
    const float s = StandRamp(t, 2).fraction;
    EXPECT_GE(s, previous);
    previous = s;
  }
}

TEST(StandRamp, RampsFromTheMeasuredPoseToTheStandPoseOverTwoSeconds) {
  Machine m;
  for (std::size_t j = 0; j < 25; ++j) m.robot.joints[j].position_rad = 0.2f;  // L_Knee 0.2
  m.sm.Submit(1 * kS, ModeCmd(ModeRequest::kStand));
  const std::size_t knee = 3;  // stand 0.6
  EXPECT_FLOAT_EQ(m.Step(1 * kS).targets[knee].position_rad, 0.2f);
  // The measured pose is taken on entry only: later measurements do not move the ramp.
  m.robot.joints[knee].position_rad = 1.0f;
  const Outputs& mid = m.Step(2 * kS);
  EXPECT_FLOAT_EQ(mid.targets[knee].position_rad, 0.4f);
  EXPECT_GT(mid.targets[knee].velocity_rad_s, 0.0f) << "velocity feed-forward along the ramp";
  EXPECT_FLOAT_EQ(mid.targets[knee].kp, Joints()[knee].kp);
  EXPECT_FLOAT_EQ(mid.targets[knee].kd, Joints()[knee].kd);
  EXPECT_FLOAT_EQ(m.Step(3 * kS).targets[knee].position_rad, 0.6f);
  const Outputs& held = m.Step(10 * kS);
  EXPECT_FLOAT_EQ(held.targets[knee].position_rad, 0.6f);
  EXPECT_EQ(held.targets[knee].velocity_rad_s, 0.0f);
  EXPECT_EQ(held.mode, Mode::kStand);
}

TEST(StandRamp, ReturningFromMoveRampsFromWhereTheJointsAre) {
  Machine m;
  m.sm.Submit(0, m.traj.Make(std::vector<float>(25, 0.5f), 0));
  m.Step(0);
  for (auto& j : m.robot.joints) j.position_rad = 0.5f;
  m.sm.Submit(100 * kMs, ModeCmd(ModeRequest::kStand));
  EXPECT_FLOAT_EQ(m.Step(100 * kMs).targets[23].position_rad, 0.5f);  // Neck_Pitch
  EXPECT_FLOAT_EQ(m.Step(2100 * kMs).targets[23].position_rad, 0.0f);
}

TEST(StandRamp, IsAdvisoryMoveIsAcceptedAtOnce) {
  Machine m;
  m.sm.Submit(0, ModeCmd(ModeRequest::kStand));
  m.Step(0);
  EXPECT_TRUE(m.sm.Submit(2 * kMs, VelocityCmd(0.5f, 0, 0)).accepted);
  EXPECT_EQ(m.Step(2 * kMs).mode, Mode::kMovePolicy);
}

TEST(StandRamp, UsesTheConfiguredDuration) {
  config::Config c = DefaultConfig();
  c.control.stand_ramp_s = 1.0;
  test::Robot robot;
  StateMachine sm(config::MachineOptionsOf(c), config::BuildJointTable(c), nullptr);
  sm.Step(0, robot.At(0));
  sm.Submit(0, ModeCmd(ModeRequest::kStand));
  sm.Step(0, robot.At(0));
  EXPECT_FLOAT_EQ(sm.Step(500 * kMs, robot.At(500 * kMs)).targets[3].position_rad, 0.3f);
}

// ---- Velocity and MOVE/POLICY ----

TEST(Velocity, PersistsUntilANewVelocityAModeSwitchOrDamp) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  m.sm.Submit(10 * kMs, VelocityCmd(0.4f, 0.1f, -0.2f));
  for (std::int64_t t = 10 * kMs; t < 5 * kS; t += 100 * kMs) m.Step(t);
  EXPECT_FLOAT_EQ(m.policy.last_command.vx, 0.4f);
  EXPECT_FLOAT_EQ(m.policy.last_command.vyaw, -0.2f);
  m.sm.Submit(5 * kS, VelocityCmd(-0.3f, 0, 0));
  EXPECT_FLOAT_EQ(m.Step(5 * kS).velocity.vx, -0.3f);
  m.sm.Submit(6 * kS, ModeCmd(ModeRequest::kStand));
  EXPECT_EQ(m.Step(6 * kS).velocity.vx, 0.0f) << "a mode switch stops walking";
  m.sm.Submit(7 * kS, VelocityCmd(0.2f, 0, 0));
  m.Step(7 * kS);
  EXPECT_EQ(m.policy.last_command.vx, 0.2f) << "the new POLICY session starts from its command";
  m.sm.Submit(8 * kS, ModeCmd(ModeRequest::kDamp));
  EXPECT_EQ(m.Step(8 * kS).velocity.vx, 0.0f);
}

TEST(Velocity, StopWalkingZeroesTheVelocityButStaysInPolicy) {
  Machine m;
  m.BringTo(Mode::kMovePolicy, 0);
  Command stop;
  stop.kind = CommandKind::kStopWalking;
  EXPECT_TRUE(m.sm.Submit(10 * kMs, stop).accepted);
  const Outputs& out = m.Step(10 * kMs);
  EXPECT_EQ(out.mode, Mode::kMovePolicy);
  EXPECT_EQ(out.velocity.vx, 0.0f);
  EXPECT_EQ(m.policy.last_command.vx, 0.0f);
}

TEST(Policy, ResetOnEntryAndItsTargetsDriveTheMotors) {
  Machine m;
  m.BringTo(Mode::kMovePolicy, 10 * kMs);
  EXPECT_EQ(m.policy.resets, 1);
  EXPECT_EQ(m.policy.last_reset_us, 10 * kMs);
  const Outputs& out = m.Step(12 * kMs);
  EXPECT_FLOAT_EQ(out.targets[5].position_rad, 0.1f);
  EXPECT_FLOAT_EQ(out.targets[5].kp, 50.0f);
}

TEST(Policy, WithoutOutputYetTheStandPoseIsHeld) {
  Machine m;
  m.policy.ready = false;
  m.BringTo(Mode::kMovePolicy, 0);
  const Outputs& out = m.Step(2 * kMs);
  for (std::size_t j = 0; j < 25; ++j) {
    EXPECT_FLOAT_EQ(out.targets[j].position_rad, Joints()[j].stand_rad);
    EXPECT_FLOAT_EQ(out.targets[j].kp, Joints()[j].kp);
  }
}

// Every policy fault ends MOVE/POLICY on the tick it is reported: walking stops, and STAND
// ramps from the measured pose (not a jump), with the fault in the event.
TEST(PolicyFault, EachFaultHandsOverToStandFromTheMeasuredPose) {
  for (PolicyFault fault : {PolicyFault::kStale, PolicyFault::kNonFinite, PolicyFault::kFailed}) {
    Machine m;
    m.BringTo(Mode::kMovePolicy, 0);
    for (auto& j : m.robot.joints) j.position_rad = 0.1f;  // where the policy put them
    EXPECT_EQ(m.Step(100 * kMs).mode, Mode::kMovePolicy);
    m.policy.fault = fault;
    m.policy.fault_detail = 7;
    const Outputs& out = m.Step(102 * kMs);
    EXPECT_EQ(out.mode, Mode::kStand);
    ASSERT_TRUE(HasEvent(out, EventKind::kPolicyFault));
    for (const auto& e : out.events) {
      if (e.kind == EventKind::kPolicyFault) {
        EXPECT_EQ(e.policy_fault, fault);
        EXPECT_EQ(e.detail, 7u);
      }
      if (e.kind == EventKind::kModeChanged) {
        EXPECT_EQ(e.cause, Cause::kPolicyFault);
      }
    }
    const std::size_t knee = 3;  // stand 0.6
    EXPECT_FLOAT_EQ(out.targets[knee].position_rad, 0.1f) << "a ramp, not a jump";
    EXPECT_FLOAT_EQ(out.targets[knee].kp, Joints()[knee].kp);
    EXPECT_EQ(out.velocity.vx, 0.0f) << "walking stopped";
    EXPECT_FLOAT_EQ(m.Step(2102 * kMs).targets[knee].position_rad, 0.6f);
  }
}

TEST(PolicyFault, WithOnFaultDampTheRobotDamps) {
  config::Config c = DefaultConfig();
  c.policy.on_fault = config::PolicyFaultAction::kDamp;
  test::ScriptedPolicy policy;
  test::Robot robot;
  StateMachine sm(config::MachineOptionsOf(c), config::BuildJointTable(c), &policy);
  sm.Step(0, robot.At(0));
  sm.Submit(0, ModeCmd(ModeRequest::kStand));
  sm.Submit(0, VelocityCmd(0.5f, 0, 0));
  ASSERT_EQ(sm.Step(0, robot.At(0)).mode, Mode::kMovePolicy);
  policy.fault = PolicyFault::kNonFinite;
  const Outputs& out = sm.Step(2 * kMs, robot.At(2 * kMs));
  EXPECT_EQ(out.mode, Mode::kDamp);
  EXPECT_EQ(out.targets[0].kp, 0.0f) << "DAMP targets in the same tick";
  EXPECT_EQ(out.velocity.vx, 0.0f);
}

TEST(PolicyFault, OneThatNeverGivesTargetsFaultsAfterOneSecond) {
  Machine m;
  m.policy.ready = false;
  m.BringTo(Mode::kMovePolicy, 0);
  EXPECT_EQ(m.Step(998 * kMs).mode, Mode::kMovePolicy);
  const Outputs& out = m.Step(1000 * kMs);
  EXPECT_EQ(out.mode, Mode::kStand);
  ASSERT_TRUE(HasEvent(out, EventKind::kPolicyFault));
  for (const auto& e : out.events) {
    if (e.kind == EventKind::kPolicyFault) {
      EXPECT_EQ(e.policy_fault, PolicyFault::kNoTargets);
      EXPECT_EQ(e.detail, 1000u);
    }
  }
}

// Whatever a policy returns, no non-finite or out-of-range target reaches a motor, and a
// non-finite position holds the joint's last target (never a jump to some default pose).
TEST(Policy, NonFiniteAndOutOfRangeTargetsAreMadeSafe) {
  Machine m;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  m.BringTo(Mode::kMovePolicy, 0);
  const float last = m.Step(2 * kMs).targets[3].position_rad;  // the policy's 0.1
  m.policy.targets[3] = {nan, nan, nan, nan, nan};
  m.policy.targets[4] = {9.0f, 99.0f, 900.0f, 9.0f, 99.0f};
  const Outputs& out = m.Step(4 * kMs);
  EXPECT_FLOAT_EQ(out.targets[3].position_rad, last);
  EXPECT_FLOAT_EQ(out.targets[3].kp, Joints()[3].kp);
  EXPECT_EQ(out.targets[3].torque_nm, 0.0f);
  EXPECT_FLOAT_EQ(out.targets[4].position_rad, 0.8f);  // L_Ankle_A max
  EXPECT_FLOAT_EQ(out.targets[4].kp, 500.0f);
  EXPECT_FLOAT_EQ(out.targets[4].kd, 5.0f);
  EXPECT_FLOAT_EQ(out.targets[4].velocity_rad_s, 50.0f);
  EXPECT_FLOAT_EQ(out.targets[4].torque_nm, 18.0f);
}

// ---- Clamping, events, sequence ----

TEST(Targets, EveryPositionIsClampedToTheJointLimits) {
  Machine m;
  for (auto& j : m.robot.joints) j.position_rad = 5.0f;  // measured far outside every limit
  m.sm.Submit(0, ModeCmd(ModeRequest::kStand));
  const Outputs& out = m.Step(0);
  for (std::size_t j = 0; j < 25; ++j) {
    EXPECT_LE(out.targets[j].position_rad, static_cast<float>(Joints()[j].max_rad)) << j;
    EXPECT_GE(out.targets[j].position_rad, static_cast<float>(Joints()[j].min_rad)) << j;
  }
}

TEST(Events, AreReportedByOneStepOnly) {
  Machine m;
  m.sm.Submit(0, ModeCmd(ModeRequest::kStand));
  EXPECT_TRUE(HasEvent(m.Step(0), EventKind::kModeChanged));
  EXPECT_TRUE(m.Step(2 * kMs).events.empty());
}

TEST(Events, ModeChangeSaysFromToAndWhy) {
  Machine m;
  m.sm.Submit(0, ModeCmd(ModeRequest::kStand));
  const Outputs& out = m.Step(0);
  ASSERT_EQ(out.events.size(), 1u);
  EXPECT_EQ(out.events[0].from, Mode::kDamp);
  EXPECT_EQ(out.events[0].to, Mode::kStand);
  EXPECT_EQ(out.events[0].cause, Cause::kCommand);
}

TEST(Sequence, TheDaemonsOwnCommandsDoNotResetIt) {
  Machine m;
  Command stand = ModeCmd(ModeRequest::kStand);
  stand.sequence = 41;
  m.sm.Submit(0, stand);
  Command internal = ModeCmd(ModeRequest::kDamp, 2 * kMs);  // shutdown, or the DAMP mailbox
  internal.source = CommandSource::kDaemon;
  EXPECT_TRUE(m.sm.Submit(2 * kMs, internal).accepted);
  EXPECT_EQ(m.Step(2 * kMs).last_command_sequence, 41u);
}

TEST(Sequence, TheLastAcceptedCommandIsEchoedAndDroppedOnesAreNot) {
  Machine m;
  Command dropped = VelocityCmd(0.1f, 0, 0);  // velocity in DAMP
  dropped.sequence = 40;
  EXPECT_FALSE(m.sm.Submit(0, dropped).accepted);
  EXPECT_EQ(m.Step(0).last_command_sequence, 0u);
  Command stand = ModeCmd(ModeRequest::kStand);
  stand.sequence = 41;
  EXPECT_TRUE(m.sm.Submit(1, stand).accepted);
  EXPECT_EQ(m.Step(1).last_command_sequence, 41u);
}

}  // namespace
}  // namespace robot_edge::sm
