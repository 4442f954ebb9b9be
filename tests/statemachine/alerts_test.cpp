// Alerts: thresholds, hysteresis, hold times, and what they do to the mode. Time by hand.
#include "statemachine/alerts.hpp"

#include <gtest/gtest.h>

#include <limits>

#include <cmath>

#include "config/library_options.hpp"
#include "fixture.hpp"

namespace robot_edge::sm {
namespace {

using test::HasEvent;
using test::kMs;
using test::kS;
using test::Machine;
using test::ModeCmd;

const Event* Find(const Outputs& out, EventKind kind) {
  for (const auto& e : out.events) {
    if (e.kind == kind) return &e;
  }
  return nullptr;
}

// Quaternion of a pitch rotation by `deg` degrees.
std::array<float, 4> Pitch(float deg) {
  const float h = deg * static_cast<float>(M_PI) / 360.0f;
  return {std::cos(h), 0.0f, std::sin(h), 0.0f};
}

// ---- Motor overtemperature: trips at 80 °C, clears below 70 °C ----

TEST(Overtemp, TripsAt80ClearsAt70AndBlocksStandMeanwhile) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  const std::size_t elbow = 15;
  m.robot.joints[elbow].temperature_c = 79.9f;
  EXPECT_EQ(m.Step(1 * kS).mode, Mode::kStand);

  m.robot.joints[elbow].temperature_c = 81.0f;
  const Outputs& tripped = m.Step(2 * kS);
  EXPECT_EQ(tripped.mode, Mode::kDamp);
  const Event* raised = Find(tripped, EventKind::kAlertRaised);
  ASSERT_NE(raised, nullptr);
  EXPECT_EQ(raised->alert.id, AlertId::kMotorOvertemp);
  EXPECT_EQ(raised->alert.source, elbow);
  EXPECT_EQ(raised->alert.value, 81u);
  EXPECT_EQ(raised->alert.threshold, 80u);
  EXPECT_EQ(raised->alert.first_set_us, 2 * kS);
  EXPECT_EQ(raised->alert.severity, Severity::kCritical);
  ASSERT_EQ(tripped.alerts.size(), 1u);
  EXPECT_EQ(tripped.error_flags, 0x01u);
  const Event* changed = Find(tripped, EventKind::kModeChanged);
  ASSERT_NE(changed, nullptr);
  EXPECT_EQ(changed->cause, Cause::kAlert);

  // Cooling through the hysteresis band: still active, STAND accepted but the robot stays in DAMP.
  m.robot.joints[elbow].temperature_c = 75.0f;
  m.Step(3 * kS);
  const SubmitResult r = m.sm.Submit(3 * kS, ModeCmd(ModeRequest::kStand));
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.reason, Reason::kBlockedByAlert);
  const Outputs& blocked = m.Step(3 * kS);
  EXPECT_EQ(blocked.mode, Mode::kDamp);
  const Event* why = Find(blocked, EventKind::kModeBlocked);
  ASSERT_NE(why, nullptr) << "an error must say which alert blocks STAND";
  EXPECT_EQ(why->alert.id, AlertId::kMotorOvertemp);
  EXPECT_EQ(why->alert.source, elbow);
  EXPECT_EQ(blocked.alerts.size(), 1u);
  EXPECT_EQ(blocked.alerts[0].first_set_us, 2 * kS) << "first_set_us is kept while active";

  m.robot.joints[elbow].temperature_c = 70.1f;  // not down to 70 yet
  EXPECT_EQ(m.Step(4 * kS).alerts.size(), 1u);
  m.robot.joints[elbow].temperature_c = 70.0f;  // seed 001: "clears at 70°C"
  const Outputs& cleared = m.Step(5 * kS);
  EXPECT_TRUE(cleared.alerts.empty());
  EXPECT_EQ(cleared.error_flags, 0u);
  EXPECT_TRUE(HasEvent(cleared, EventKind::kAlertCleared));
  EXPECT_TRUE(m.sm.Submit(5 * kS, ModeCmd(ModeRequest::kStand, 5 * kS)).accepted);
  EXPECT_EQ(m.Step(5 * kS).mode, Mode::kStand);
}

TEST(Overtemp, AlsoBlocksATrajectoryFromDampButReportsOncePerStream) {
  Machine m;
  m.robot.joints[0].temperature_c = 85.0f;
  m.Step(1 * kS);
  int blocked_events = 0;
  for (std::int64_t t = 1 * kS; t < 2 * kS; t += 20 * kMs) {
    EXPECT_FALSE(m.sm.Submit(t, m.traj.Zero(t)).accepted);
    if (HasEvent(m.Step(t), EventKind::kModeBlocked)) ++blocked_events;
  }
  EXPECT_EQ(m.sm.mode(), Mode::kDamp);
  EXPECT_EQ(blocked_events, 1);
}

TEST(Overtemp, ConfiguredThresholdsAreUsed) {
  config::Config c = test::DefaultConfig();
  c.safety.overtemp_trip_c = 60;
  c.safety.overtemp_clear_c = 50;
  AlertMonitor a(config::MachineOptionsOf(c).alerts, config::BuildJointTable(c));
  EventBuffer events(64);
  test::Robot robot;
  robot.joints[2].temperature_c = 61;
  a.Update(0, robot.At(0), &events);
  ASSERT_EQ(a.active().size(), 1u);
  robot.joints[2].temperature_c = 55;
  a.Update(1, robot.At(1), &events);
  EXPECT_EQ(a.active().size(), 1u);
  robot.joints[2].temperature_c = 49;
  a.Update(2, robot.At(2), &events);
  EXPECT_TRUE(a.active().empty());
}

// ---- Motor reply timeout (FW link) ----

TEST(MotorTimeout, ReportedWhenAMotorIsSilentLongerThanTheTimeout) {
  Machine m;
  m.BringTo(Mode::kStand, 1 * kS);
  m.robot.At(1 * kS);
  m.robot.joints[20].last_reply_us = 1 * kS;
  auto in = m.robot.At(1 * kS + 49 * kMs);
  m.robot.joints[20].last_reply_us = 1 * kS;  // silent since 1 s
  m.robot.joints[20].unanswered = 25;
  EXPECT_EQ(m.sm.Step(1 * kS + 50 * kMs, in).mode, Mode::kStand) << "50 ms is not more than 50";
  in = m.robot.At(1 * kS + 52 * kMs);
  m.robot.joints[20].last_reply_us = 1 * kS;
  const Outputs& out = m.sm.Step(1 * kS + 52 * kMs, in);
  EXPECT_EQ(out.mode, Mode::kDamp);
  ASSERT_EQ(out.alerts.size(), 1u);
  EXPECT_EQ(out.alerts[0].id, AlertId::kMotorTimeout);
  EXPECT_EQ(out.alerts[0].source, 20u);
  EXPECT_EQ(out.alerts[0].value, 52u);
  EXPECT_EQ(out.alerts[0].threshold, 50u);
  EXPECT_EQ(out.error_flags, 0x04u);
  // Replies again: cleared.
  EXPECT_TRUE(m.Step(2 * kS).alerts.empty());
}

TEST(MotorTimeout, NotBlamedOnMotorsWhenTheirCommandsWereNotSent) {
  // The daemon itself was held up for 60 ms: nothing was sent, so nothing went unanswered.
  Machine m;
  m.BringTo(Mode::kStand, 1 * kS);
  auto in = m.robot.At(1 * kS + 60 * kMs);
  for (auto& j : m.robot.joints) {
    j.last_reply_us = 1 * kS;
    j.unanswered = 1;
  }
  EXPECT_EQ(m.sm.Step(1 * kS + 60 * kMs, in).mode, Mode::kStand);
  for (auto& j : m.robot.joints) j.unanswered = AlertMonitor::kMinUnanswered;
  const Outputs& out = m.sm.Step(1 * kS + 64 * kMs, in);
  EXPECT_EQ(out.mode, Mode::kDamp) << "commands keep going unanswered: the motors are silent";
  EXPECT_EQ(out.alerts.size(), 25u);
}

TEST(MotorTimeout, AMotorThatNeverRepliedBlocksStandThenIsReported) {
  test::Robot robot;
  StateMachine sm(config::MachineOptionsOf(test::DefaultConfig()),
                  config::BuildJointTable(test::DefaultConfig()), nullptr);
  auto in = robot.At(0);
  robot.joints[7].last_reply_us = -1;  // R_Hip_Roll never answered
  sm.Step(0, in);
  const SubmitResult r = sm.Submit(10 * kMs, ModeCmd(ModeRequest::kStand));
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.reason, Reason::kMotorsNotReady);
  const Outputs& early = sm.Step(10 * kMs, in);
  EXPECT_TRUE(early.alerts.empty()) << "no alert during the start-up grace";
  EXPECT_TRUE(HasEvent(early, EventKind::kModeBlocked));
  in = robot.At(AlertMonitor::kMinStartupGraceUs);
  robot.joints[7].last_reply_us = -1;
  const Outputs& late = sm.Step(AlertMonitor::kMinStartupGraceUs, in);
  ASSERT_EQ(late.alerts.size(), 1u);
  EXPECT_EQ(late.alerts[0].id, AlertId::kMotorTimeout);
  EXPECT_EQ(late.alerts[0].source, 7u);
}

// ---- Motor-reported fault ----

TEST(MotorFault, AnErrorCodeFromTheMotorIsCritical) {
  Machine m;
  m.BringTo(Mode::kMoveTrajectory, 0);
  m.robot.joints[11].error_code = 2;  // overcurrent
  const Outputs& out = m.Step(10 * kMs);
  EXPECT_EQ(out.mode, Mode::kDamp);
  ASSERT_EQ(out.alerts.size(), 1u);
  EXPECT_EQ(out.alerts[0].id, AlertId::kMotorFault);
  EXPECT_EQ(out.alerts[0].value, 2u);
  EXPECT_EQ(out.alerts[0].source, 11u);
  m.robot.joints[11].error_code = 0;
  EXPECT_TRUE(m.Step(20 * kMs).alerts.empty());
}

TEST(JointOutOfRange, AJointReadingBeyondItsLimitsByTheMarginDampsAndBlocksUntilBack) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  m.robot.joints[3].position_rad = 2.4f + 0.14f;  // L_Knee: max 2.4, margin 0.15: still in
  EXPECT_EQ(m.Step(10 * kMs).mode, Mode::kStand);
  m.robot.joints[3].position_rad = 2.4f + 0.31f;  // a slipped encoder
  const Outputs& out = m.Step(20 * kMs);
  EXPECT_EQ(out.mode, Mode::kDamp);
  ASSERT_EQ(out.alerts.size(), 2u);  // and the warning JOINT_PAST_LIMIT, raised at 0.14
  EXPECT_EQ(out.alerts[0].id, AlertId::kJointOutOfRange);
  EXPECT_EQ(out.alerts[0].source, 3u);
  EXPECT_NEAR(out.alerts[0].value, 310u, 1u);  // mrad beyond the limit
  EXPECT_EQ(out.alerts[0].threshold, 150u);
  EXPECT_NEAR(out.alerts[0].reading, 2.71f, 1e-5f);
  EXPECT_FALSE(m.sm.Submit(30 * kMs, ModeCmd(ModeRequest::kStand, 30 * kMs)).accepted);
  m.robot.joints[3].position_rad = -0.2f;  // below its 0.0 minimum by more than the margin
  EXPECT_EQ(m.Step(40 * kMs).alerts.size(), 2u);
  m.robot.joints[3].position_rad = 0.6f;
  const Outputs& back = m.Step(50 * kMs);
  ASSERT_EQ(back.alerts.size(), 1u);  // JOINT_PAST_LIMIT holds for a second; a warning
  EXPECT_EQ(back.alerts[0].severity, Severity::kWarning);
  EXPECT_TRUE(m.sm.Submit(60 * kMs, ModeCmd(ModeRequest::kStand, 60 * kMs)).accepted);
}

TEST(JointOutOfRange, ANonFiniteReadingCountsAsOut) {
  Machine m;
  m.robot.joints[5].position_rad = std::numeric_limits<float>::quiet_NaN();
  const Outputs& out = m.Step(10 * kMs);
  ASSERT_EQ(out.alerts.size(), 1u);
  EXPECT_EQ(out.alerts[0].id, AlertId::kJointOutOfRange);
}

// The audit's probe drove L_Shoulder_Pitch past its limit by less than the margin: nothing said
// so. JOINT_PAST_LIMIT says so, as a warning: the robot is not put in DAMP for it.
TEST(JointPastLimit, AJointPastItsLimitWithinTheMarginWarnsWithoutDamp) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  m.robot.joints[3].position_rad = 2.4f + 0.009f;  // L_Knee: max 2.4; noise at the stop
  EXPECT_TRUE(m.Step(10 * kMs).alerts.empty());
  m.robot.joints[3].position_rad = 2.4f + 0.08f;  // driven past it
  const Outputs& out = m.Step(20 * kMs);
  EXPECT_EQ(out.mode, Mode::kStand);
  ASSERT_EQ(out.alerts.size(), 1u);
  EXPECT_EQ(out.alerts[0].id, AlertId::kJointPastLimit);
  EXPECT_EQ(out.alerts[0].severity, Severity::kWarning);
  EXPECT_EQ(out.alerts[0].source, 3u);
  EXPECT_NEAR(out.alerts[0].value, 80u, 1u);  // mrad past the limit
  EXPECT_EQ(out.alerts[0].threshold, 10u);
  EXPECT_EQ(out.error_flags, 0x400u);
  m.robot.joints[3].position_rad = 2.4f - 0.005f;  // back inside: held 1 s, then cleared
  EXPECT_EQ(m.Step(30 * kMs).alerts.size(), 1u);
  m.robot.joints[3].position_rad = 2.4f + 0.02f;  // touches it again: no new raise
  EXPECT_FALSE(HasEvent(m.Step(40 * kMs), EventKind::kAlertRaised));
  m.robot.joints[3].position_rad = 2.4f + 0.004f;  // resting on its stop, a few mrad past it
  EXPECT_EQ(m.Step(1039 * kMs).alerts.size(), 1u);
  EXPECT_TRUE(m.Step(1040 * kMs).alerts.empty()) << "a joint resting on its stop clears it";
  // Another joint, below its minimum.
  m.robot.joints[7].position_rad =
      static_cast<float>(test::UnlimitedConfig().joints[7].min_rad) - 0.05f;
  const Outputs& low = m.Step(1050 * kMs);
  ASSERT_EQ(low.alerts.size(), 1u);
  EXPECT_EQ(low.alerts[0].source, 7u);
  EXPECT_EQ(low.mode, Mode::kStand);
}

// ---- Fall detection ----

TEST(Fall, TiltBeyondTheThresholdForTheHoldTimeIsAFall) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  m.robot.imu.quat_wxyz = Pitch(70);
  EXPECT_EQ(m.Step(1 * kS).mode, Mode::kStand);
  EXPECT_EQ(m.Step(1 * kS + 99 * kMs).mode, Mode::kStand) << "shorter than fall_hold_ms";
  const Outputs& out = m.Step(1 * kS + 100 * kMs);
  EXPECT_EQ(out.mode, Mode::kDamp);
  ASSERT_EQ(out.alerts.size(), 1u);
  EXPECT_EQ(out.alerts[0].id, AlertId::kFallDetected);
  EXPECT_EQ(out.alerts[0].value, 70u);
  EXPECT_EQ(out.alerts[0].threshold, 60u);
  EXPECT_EQ(out.error_flags, 0x02u);
  m.robot.imu.quat_wxyz = Pitch(45);  // inside the hysteresis band
  EXPECT_EQ(m.Step(2 * kS).alerts.size(), 1u);
  m.robot.imu.quat_wxyz = Pitch(10);
  EXPECT_TRUE(m.Step(3 * kS).alerts.empty());
}

TEST(Fall, ABriefTiltIsNotAFall) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  m.robot.imu.quat_wxyz = Pitch(80);
  m.Step(1 * kS);
  m.robot.imu.quat_wxyz = Pitch(20);
  m.Step(1 * kS + 50 * kMs);
  m.robot.imu.quat_wxyz = Pitch(80);
  EXPECT_EQ(m.Step(1 * kS + 140 * kMs).mode, Mode::kStand) << "the hold restarts after a dip";
}

TEST(ImuTimeout, NoImuFramesIsCriticalAndStopsFallJudgement) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  auto in = m.robot.At(1 * kS);
  in.imu.last_update_us = 1 * kS - 101 * kMs;
  in.imu.quat_wxyz = Pitch(90);  // stale data must not raise a fall
  const Outputs& out = m.sm.Step(1 * kS, in);
  EXPECT_EQ(out.mode, Mode::kDamp);
  ASSERT_EQ(out.alerts.size(), 1u);
  EXPECT_EQ(out.alerts[0].id, AlertId::kImuTimeout);
}

// ---- CAN bus-off ----

TEST(BusOff, IsCriticalAndStaysVisibleForAtLeastASecond) {
  Machine m;
  m.BringTo(Mode::kMoveTrajectory, 0);
  m.robot.buses[2].bus_off = true;
  m.robot.buses[2].bus_off_count = 1;
  const Outputs& out = m.Step(10 * kMs);
  EXPECT_EQ(out.mode, Mode::kDamp);
  ASSERT_EQ(out.alerts.size(), 1u);
  EXPECT_EQ(out.alerts[0].id, AlertId::kCanBusOff);
  EXPECT_EQ(out.alerts[0].source, 2u);
  EXPECT_EQ(out.error_flags, 0x08u);
  m.robot.buses[2].bus_off = false;  // restarted at once
  EXPECT_EQ(m.Step(500 * kMs).alerts.size(), 1u);
  EXPECT_TRUE(m.Step(1010 * kMs).alerts.empty());
}

TEST(BusOff, ABusOffOverBetweenTwoTicksStillCounts) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  m.robot.buses[0].bus_off_count = 3;  // bus_off already false again
  EXPECT_EQ(m.Step(10 * kMs).mode, Mode::kDamp);
}

// ---- Control loop too slow: below half of control.rate_hz (500 Hz) over a second ----

TEST(LoopSlow, BelowTheFloorIsCriticalAndClearsWhenASecondIsBackAbove) {
  Machine m;
  m.BringTo(Mode::kMoveTrajectory, 0);
  auto in = m.robot.At(10 * kMs);
  in.loop_rate_hz = 251;
  EXPECT_EQ(m.sm.Step(10 * kMs, in).mode, Mode::kMoveTrajectory);
  in = m.robot.At(20 * kMs);
  in.loop_rate_hz = 249.4;
  const Outputs& out = m.sm.Step(20 * kMs, in);
  EXPECT_EQ(out.mode, Mode::kDamp);
  ASSERT_EQ(out.alerts.size(), 1u);
  EXPECT_EQ(out.alerts[0].id, AlertId::kLoopSlow);
  EXPECT_EQ(out.alerts[0].value, 249u);
  EXPECT_EQ(out.alerts[0].threshold, 250u);
  EXPECT_EQ(out.error_flags, 0x40u);
  in = m.robot.At(1 * kS);
  in.loop_rate_hz = 499;
  EXPECT_TRUE(m.sm.Step(1 * kS, in).alerts.empty());
}

TEST(LoopSlow, NotJudgedBeforeTheFirstSecondNorWhenOff) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  auto in = m.robot.At(10 * kMs);
  in.loop_rate_hz = 0;  // not measured yet
  EXPECT_EQ(m.sm.Step(10 * kMs, in).mode, Mode::kStand);
  config::Config c = test::DefaultConfig();
  c.safety.min_loop_rate_fraction = 0;
  StateMachine off(config::MachineOptionsOf(c), config::BuildJointTable(c), nullptr);
  test::Robot robot;
  auto slow = robot.At(0);
  slow.loop_rate_hz = 1;
  EXPECT_TRUE(off.Step(0, slow).alerts.empty());
}

// ---- Battery low: a warning at battery.low_percent (20), clears at clear_percent (25) ----

Inputs WithBattery(Inputs in, float percent, std::int64_t read_us) {
  in.battery.percent = percent;
  in.battery.voltage_v = 44.0f;
  in.battery.last_update_us = read_us;
  return in;
}

TEST(BatteryLow, AWarningWithHysteresisThatNeverDampsNorBlocks) {
  Machine m;
  m.BringTo(Mode::kMoveTrajectory, 0);
  EXPECT_TRUE(
      m.sm.Step(10 * kMs, WithBattery(m.robot.At(10 * kMs), 20.5f, 10 * kMs)).alerts.empty());
  const Outputs& low = m.sm.Step(20 * kMs, WithBattery(m.robot.At(20 * kMs), 19.6f, 20 * kMs));
  EXPECT_EQ(low.mode, Mode::kMoveTrajectory) << "a walking robot must not collapse for it";
  ASSERT_EQ(low.alerts.size(), 1u);
  EXPECT_EQ(low.alerts[0].id, AlertId::kBatteryLow);
  EXPECT_EQ(low.alerts[0].severity, Severity::kWarning);
  EXPECT_EQ(low.alerts[0].value, 20u);
  EXPECT_EQ(low.alerts[0].threshold, 20u);
  EXPECT_EQ(low.error_flags, 0x100u);
  const Event* raised = Find(low, EventKind::kAlertRaised);
  ASSERT_NE(raised, nullptr);
  EXPECT_EQ(raised->alert.id, AlertId::kBatteryLow);
  // 24 %: above low, below clear: still active.
  EXPECT_EQ(m.sm.Step(30 * kMs, WithBattery(m.robot.At(30 * kMs), 24.0f, 30 * kMs)).alerts.size(),
            1u);
  const Outputs& back = m.sm.Step(40 * kMs, WithBattery(m.robot.At(40 * kMs), 25.0f, 40 * kMs));
  EXPECT_TRUE(back.alerts.empty());
  EXPECT_NE(Find(back, EventKind::kAlertCleared), nullptr);
}

TEST(BatteryLow, DoesNotKeepTheRobotInDamp) {
  Machine m;
  m.BringTo(Mode::kDamp, 0);
  m.sm.Step(10 * kMs, WithBattery(m.robot.At(10 * kMs), 5.0f, 10 * kMs));
  m.sm.Submit(20 * kMs, ModeCmd(ModeRequest::kStand, 20 * kMs));
  EXPECT_EQ(m.sm.Step(20 * kMs, WithBattery(m.robot.At(20 * kMs), 5.0f, 20 * kMs)).mode,
            Mode::kStand);
}

TEST(BatteryLow, JudgedOnlyOnAFreshReadingWithAKnownCharge) {
  Machine m;
  m.BringTo(Mode::kStand, 0);
  // No source, an unknown charge, a reading older than battery.timeout_ms (3 s): no alert.
  EXPECT_TRUE(m.sm.Step(10 * kMs, m.robot.At(10 * kMs)).alerts.empty());
  EXPECT_TRUE(m.sm.Step(20 * kMs, WithBattery(m.robot.At(20 * kMs), NAN, 20 * kMs)).alerts.empty());
  EXPECT_TRUE(m.sm.Step(4 * kS, WithBattery(m.robot.At(4 * kS), 3.0f, 500 * kMs)).alerts.empty());
  // Raised on a fresh one; a stale one afterwards does not clear it.
  EXPECT_EQ(m.sm.Step(5 * kS, WithBattery(m.robot.At(5 * kS), 3.0f, 5 * kS)).alerts.size(), 1u);
  EXPECT_EQ(m.sm.Step(9 * kS, WithBattery(m.robot.At(9 * kS), 90.0f, 5 * kS)).alerts.size(), 1u);
}

TEST(Alerts, ACriticalAlertInAnyModeLeadsToDamp) {
  for (Mode from : {Mode::kStand, Mode::kMovePolicy, Mode::kMoveTrajectory}) {
    Machine m;
    m.BringTo(from, 0);
    m.robot.joints[24].temperature_c = 90;
    EXPECT_EQ(m.Step(2 * kMs).mode, Mode::kDamp) << ToString(from);
  }
}

TEST(Alerts, NamesAndFlags) {
  EXPECT_STREQ(ToString(AlertId::kMotorOvertemp), "MOTOR_OVERTEMP");
  EXPECT_STREQ(ToString(AlertId::kMotorTimeout), "FW_LINK_TIMEOUT");
  EXPECT_STREQ(ToString(AlertId::kCanBusOff), "CAN_BUS_OFF");
  EXPECT_EQ(ErrorFlagOf(AlertId::kImuTimeout), 0x20u);
  EXPECT_STREQ(ToString(AlertId::kBatteryLow), "BATTERY_LOW");
  EXPECT_EQ(ErrorFlagOf(AlertId::kBatteryLow), 0x100u);
}

}  // namespace
}  // namespace robot_edge::sm
