// The stop latch (safety.latch_external_damp): a DAMP from anyone but the client in control holds
// until that client sends ModeCommand(STAND), across pauses of any length; another controller's
// STAND never releases it; a local release (kReleaseStop) does; a kept latch is restored.
#include <gtest/gtest.h>

#include <cstring>

#include "config/library_options.hpp"
#include "fixture.hpp"
#include "statemachine/state_machine.hpp"

namespace robot_edge::sm {
namespace {

using test::HasEvent;
using test::kMs;
using test::kS;
using test::Machine;
using test::ModeCmd;

// The controlling client's commands carry from_controller and its name ("cloud" unless told);
// an observer's DAMP latches, recording who held control then ("cloud" unless told).
Command FromController(Command c, const char* controller = "cloud") {
  c.from_controller = true;
  c.holder = MakeSenderLabel(controller);
  return c;
}
Command ObserverDamp(std::int64_t t, const char* holder = "cloud") {
  Command c = ModeCmd(ModeRequest::kDamp, t);
  c.latches = true;
  c.sender = MakeSenderLabel("an observer (client 7)");
  c.holder = MakeSenderLabel(holder);
  return c;
}
Command ReleaseStop(std::int64_t t) {
  Command c;
  c.kind = CommandKind::kReleaseStop;
  c.source = CommandSource::kDaemon;
  c.received_us = c.sent_us = t;
  return c;
}

// Streams trajectory packets from the controller every 20 ms, ticking every 2 ms.
Mode Stream(Machine& m, std::int64_t from, std::int64_t to) {
  for (std::int64_t t = from; t < to; t += 2 * kMs) {
    if ((t - from) % (20 * kMs) == 0) m.sm.Submit(t, FromController(m.traj.Zero(t)));
    m.Step(t);
  }
  return m.sm.mode();
}

TEST(StopLatch, AnObserversDampHoldsAcrossAPauseOfAnyLength) {
  Machine m;
  ASSERT_EQ(Stream(m, 0, 100 * kMs), Mode::kMoveTrajectory);
  ASSERT_TRUE(m.sm.Submit(100 * kMs, ObserverDamp(100 * kMs)).accepted);
  EXPECT_EQ(m.Step(100 * kMs).mode, Mode::kDamp);
  // The same stream after 250 ms, and a new one after 5 s: neither leaves DAMP.
  EXPECT_EQ(Stream(m, 350 * kMs, 1 * kS), Mode::kDamp);
  EXPECT_EQ(Stream(m, 6 * kS, 7 * kS), Mode::kDamp);
  const SubmitResult r = m.sm.Submit(7 * kS, FromController(m.traj.Zero(7 * kS)));
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.reason, Reason::kStopLatched);
}

TEST(StopLatch, MODE_BLOCKEDNamesWhoStoppedTheRobot) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  m.sm.Submit(10 * kMs, ObserverDamp(10 * kMs));
  m.Step(10 * kMs);
  m.sm.Submit(20 * kMs, FromController(m.joint.Zero(20 * kMs)));
  const Outputs& out = m.Step(20 * kMs);
  ASSERT_TRUE(HasEvent(out, EventKind::kModeBlocked));
  const Event& e = out.events.back();
  EXPECT_EQ(e.reason, Reason::kStopLatched);
  EXPECT_STREQ(e.stopped_by.data(), "an observer (client 7)");
}

TEST(StopLatch, OnlyTheControllersStandReleasesIt) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  m.sm.Submit(10 * kMs, ObserverDamp(10 * kMs));
  m.Step(10 * kMs);
  // A STAND that did not come from the client in control (the daemon's own) does not release it.
  EXPECT_EQ(m.sm.Submit(20 * kMs, ModeCmd(ModeRequest::kStand, 20 * kMs)).reason,
            Reason::kStopLatched);
  // Neither does the controller's own DAMP, nor a jog.
  EXPECT_TRUE(
      m.sm.Submit(30 * kMs, FromController(ModeCmd(ModeRequest::kDamp, 30 * kMs))).accepted);
  Command jog;
  jog.kind = CommandKind::kJog;
  jog.received_us = jog.sent_us = 40 * kMs;
  jog.from_controller = true;
  EXPECT_EQ(m.sm.Submit(40 * kMs, jog).reason, Reason::kStopLatched);
  // The controller's STAND does, and then its stream is accepted.
  EXPECT_TRUE(
      m.sm.Submit(50 * kMs, FromController(ModeCmd(ModeRequest::kStand, 50 * kMs))).accepted);
  EXPECT_EQ(m.Step(50 * kMs).mode, Mode::kStand);
  EXPECT_TRUE(m.sm.Submit(60 * kMs, FromController(m.traj.Zero(60 * kMs))).accepted);
  EXPECT_EQ(m.Step(60 * kMs).mode, Mode::kMoveTrajectory);
}

// M1 of issue 38: 'ble' overriding, or the fleet taking control after 'cloud' idled, released
// the latch with its own STAND.
TEST(StopLatch, AnotherControllersStandDoesNotReleaseIt) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  m.sm.Submit(10 * kMs, ObserverDamp(10 * kMs, "cloud"));
  m.Step(10 * kMs);
  for (const char* other : {"ble", "fleet"}) {
    EXPECT_EQ(
        m.sm.Submit(20 * kMs, FromController(ModeCmd(ModeRequest::kStand, 20 * kMs), other)).reason,
        Reason::kStopLatched)
        << other;
  }
  EXPECT_EQ(m.Step(20 * kMs).mode, Mode::kDamp);
  EXPECT_TRUE(
      m.sm.Submit(30 * kMs, FromController(ModeCmd(ModeRequest::kStand, 30 * kMs))).accepted)
      << "cloud held control when it latched";
}

TEST(StopLatch, WithNobodyInControlOnlyALocalReleaseLiftsIt) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  m.sm.Submit(10 * kMs, ObserverDamp(10 * kMs, ""));
  m.Step(10 * kMs);
  EXPECT_EQ(m.sm.Submit(20 * kMs, FromController(ModeCmd(ModeRequest::kStand, 20 * kMs))).reason,
            Reason::kStopLatched);
  ASSERT_TRUE(m.sm.Submit(30 * kMs, ReleaseStop(30 * kMs)).accepted);
  EXPECT_FALSE(m.sm.stop_latch().latched);
  EXPECT_EQ(m.Step(30 * kMs).mode, Mode::kDamp) << "a release does not move the robot";
  EXPECT_TRUE(
      m.sm.Submit(40 * kMs, FromController(ModeCmd(ModeRequest::kStand, 40 * kMs))).accepted);
}

TEST(StopLatch, ALaterDampKeepsTheFirstStopsRecord) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  m.sm.Submit(10 * kMs, ObserverDamp(10 * kMs, "cloud"));
  Command second = ObserverDamp(20 * kMs, "ble");
  second.sender = MakeSenderLabel("someone else");
  m.sm.Submit(20 * kMs, second);
  EXPECT_STREQ(m.sm.stop_latch().stopped_by.data(), "an observer (client 7)");
  EXPECT_STREQ(m.sm.stop_latch().holder.data(), "cloud");
}

// C2 of issue 38: the latch is restored from disk at start, and holds against a reconnecting
// stream, even with the latch turned off in the config that starts now.
TEST(StopLatch, ARestoredLatchHoldsUntilReleased) {
  for (const bool latch_enabled : {true, false}) {
    config::Config c = test::UnlimitedConfig();
    c.safety.latch_external_damp = latch_enabled;
    test::Robot robot;
    StateMachine sm(config::MachineOptionsOf(c), config::BuildJointTable(c), nullptr);
    test::TrajectoryMaker traj;
    StopLatch kept;
    kept.latched = true;
    kept.stopped_by = MakeSenderLabel("an observer (client 3)");
    kept.holder = MakeSenderLabel("cloud");
    sm.RestoreStopLatch(kept);
    sm.Step(0, robot.At(0));
    EXPECT_EQ(sm.Submit(10 * kMs, FromController(traj.Zero(10 * kMs))).reason,
              Reason::kStopLatched);
    EXPECT_EQ(
        sm.Submit(20 * kMs, FromController(ModeCmd(ModeRequest::kStand, 20 * kMs), "ble")).reason,
        Reason::kStopLatched);
    EXPECT_EQ(sm.Step(20 * kMs, robot.At(20 * kMs)).mode, Mode::kDamp);
    EXPECT_TRUE(
        sm.Submit(30 * kMs, FromController(ModeCmd(ModeRequest::kStand, 30 * kMs))).accepted)
        << "latch_external_damp " << latch_enabled;
  }
}

TEST(StopLatch, AStandSentBeforeTheStopDoesNotReleaseIt) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  m.sm.Submit(100 * kMs, ObserverDamp(100 * kMs));
  m.Step(100 * kMs);
  Command late = FromController(ModeCmd(ModeRequest::kStand, 90 * kMs));
  late.received_us = 110 * kMs;  // sent at 90 ms, before the stop
  EXPECT_FALSE(m.sm.Submit(110 * kMs, late).accepted);
  EXPECT_EQ(m.sm.Submit(120 * kMs, FromController(m.traj.Zero(120 * kMs))).reason,
            Reason::kStopLatched)
      << "still latched";
}

TEST(StopLatch, TheControllersOwnDampKeepsSeedRules) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  m.sm.Submit(10 * kMs, FromController(ModeCmd(ModeRequest::kDamp, 10 * kMs)));
  m.Step(10 * kMs);
  EXPECT_TRUE(m.sm.Submit(20 * kMs, FromController(m.traj.Zero(20 * kMs))).accepted)
      << "seed 000: a trajectory may leave DAMP";
}

// Not the latch, but the same kind of hold: after robot-edgectl zero the offsets are stale.
TEST(ZeroSet, NothingLeavesDampUntilTheCalibrationIsReadAgain) {
  Machine m;
  Command zero;
  zero.kind = CommandKind::kZeroSet;
  zero.source = CommandSource::kDaemon;
  zero.received_us = zero.sent_us = 10 * kMs;
  ASSERT_TRUE(m.sm.Submit(10 * kMs, zero).accepted);
  EXPECT_EQ(m.sm.Submit(20 * kMs, FromController(ModeCmd(ModeRequest::kStand, 20 * kMs))).reason,
            Reason::kCalibrationStale);
  EXPECT_EQ(m.sm.Submit(30 * kMs, FromController(m.traj.Zero(30 * kMs))).reason,
            Reason::kCalibrationStale);
  EXPECT_EQ(m.Step(30 * kMs).mode, Mode::kDamp);
}

TEST(StopLatch, OffInTheConfigFollowsTheSeed) {
  config::Config c = test::UnlimitedConfig();
  c.safety.latch_external_damp = false;
  test::Robot robot;
  StateMachine sm(config::MachineOptionsOf(c), config::BuildJointTable(c), nullptr);
  test::TrajectoryMaker traj;
  sm.Step(0, robot.At(0));
  sm.Submit(0, ModeCmd(ModeRequest::kStand, 0));
  sm.Submit(10 * kMs, ObserverDamp(10 * kMs));
  sm.Step(10 * kMs, robot.At(10 * kMs));
  EXPECT_TRUE(sm.Submit(20 * kMs, FromController(traj.Zero(20 * kMs))).accepted);
}

}  // namespace
}  // namespace robot_edge::sm
