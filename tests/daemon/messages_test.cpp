// Telemetry and errors built from the control thread's snapshot.
#include "daemon/api/messages.hpp"

#include <gtest/gtest.h>

namespace robot_edge::daemon {
namespace {

const config::Config& Config() {
  static const config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  return c;
}

ControlSnapshot Healthy(std::int64_t t) {
  ControlSnapshot s(25);
  s.tick_us = t;
  for (std::size_t j = 0; j < 25; ++j) {
    s.joints[j] = {0.1f * static_cast<float>(j), -0.5f, 1.6f, 40.0f + static_cast<float>(j), 0, t};
  }
  s.imu.quat_wxyz = {1, 0, 0, 0};
  s.imu.gyro_rad_s = {0.1f, 0.2f, 0.3f};
  s.imu.last_update_us = t;
  return s;
}

TEST(Telemetry, HasEveryFieldOfTheSpecification) {
  ControlSnapshot s = Healthy(10'000'000);
  s.mode = sm::Mode::kMoveTrajectory;
  s.joints[7].last_reply_us = 10'000'000 - 12'000;  // the oldest sample: 12 ms old
  s.error_flags = 0x01;
  s.alerts[0] = {sm::AlertId::kMotorOvertemp, sm::Severity::kCritical, 81, 80, 9'000'000, 15};
  s.alert_count = 1;
  s.last_command_sequence = 99;
  const Clocks now{10'000'000, 1'700'000'000'000'000};
  edge::EdgeTelemetry t;
  edge::TelemetryExtension x;
  FillTelemetry(s, Config(), 17, now, &t, &x);

  EXPECT_EQ(t.timestamp_us(), now.wall_us);
  EXPECT_EQ(t.sequence(), 17u);
  EXPECT_EQ(t.fw_mode(), edge::FW_MODE_MOVE);
  EXPECT_EQ(x.control_mode(), edge::CONTROL_MODE_MOVE_TRAJECTORY);
  ASSERT_EQ(t.joint_pos_size(), 25);
  ASSERT_EQ(t.joint_vel_size(), 25);
  ASSERT_EQ(t.joint_current_size(), 25);
  ASSERT_EQ(t.joint_temp_size(), 25);
  EXPECT_FLOAT_EQ(t.joint_pos(3), 0.3f);
  EXPECT_FLOAT_EQ(t.joint_vel(3), -0.5f);
  EXPECT_FLOAT_EQ(t.joint_current(3), 1.6f / 0.8f) << "torque / torque constant";
  EXPECT_FLOAT_EQ(x.joint_torque(3), 1.6f);
  EXPECT_FLOAT_EQ(t.joint_temp(3), 43.0f);
  ASSERT_EQ(t.imu_quat_size(), 4);
  EXPECT_FLOAT_EQ(t.imu_quat(0), 1.0f);
  ASSERT_EQ(t.imu_gyro_size(), 3);
  EXPECT_FLOAT_EQ(t.imu_gyro(2), 0.3f);
  ASSERT_EQ(t.imu_gravity_size(), 3);
  EXPECT_FLOAT_EQ(t.imu_gravity(2), -1.0f) << "upright: gravity along -z of the body";
  EXPECT_EQ(t.error_flags(), 0x01u);
  ASSERT_EQ(t.active_alerts_size(), 1);
  EXPECT_EQ(t.active_alerts(0).id(), 1u);
  EXPECT_EQ(t.active_alerts(0).source_id(), 15u);
  EXPECT_EQ(t.active_alerts(0).value(), 81u);
  EXPECT_EQ(t.active_alerts(0).threshold(), 80u);
  EXPECT_EQ(t.active_alerts(0).first_set_us(), now.wall_us - 1'000'000) << "steady -> wall";
  EXPECT_EQ(t.fw_age_ms(), 12u);
  EXPECT_EQ(t.fw_timestamp_us(), now.wall_us - 12'000);
  EXPECT_EQ(t.last_video_timestamp_us(), 0u) << "no camera in this process";
  EXPECT_EQ(t.last_audio_timestamp_us(), 0u);
  EXPECT_EQ(x.last_command_sequence(), 99u);
}

TEST(Telemetry, SaysWhenAMotorNeverReplied) {
  ControlSnapshot s = Healthy(1000);
  s.joints[2].last_reply_us = -1;
  edge::EdgeTelemetry t;
  edge::TelemetryExtension x;
  FillTelemetry(s, Config(), 1, Clocks{1000, 5000}, &t, &x);
  EXPECT_EQ(t.fw_age_ms(), kNeverAgeMs);
}

TEST(Errors, AnAlertNamesTheJointAndItsBus) {
  sm::Event e;
  e.kind = sm::EventKind::kAlertRaised;
  e.alert = {sm::AlertId::kMotorOvertemp, sm::Severity::kCritical, 81, 80, 0, 15};
  const auto error = ErrorFor(e, Config(), "");
  ASSERT_TRUE(error);
  EXPECT_EQ(error->code(), "MOTOR_OVERTEMP");
  EXPECT_EQ(error->subsystem(), edge::SUBSYSTEM_FIRMWARE);
  EXPECT_NE(error->message().find("L_Elbow (joint 15, left_arm/vcan2 id 4)"), std::string::npos)
      << error->message();
  EXPECT_NE(error->message().find("81 °C"), std::string::npos) << error->message();
}

TEST(Errors, CodesAndSubsystemsOfEveryAlert) {
  const std::pair<sm::AlertId, std::pair<const char*, edge::Subsystem>> cases[] = {
      {sm::AlertId::kFallDetected, {"FALL_DETECTED", edge::SUBSYSTEM_FIRMWARE}},
      {sm::AlertId::kMotorTimeout, {"FW_LINK_TIMEOUT", edge::SUBSYSTEM_FW_LINK}},
      {sm::AlertId::kCanBusOff, {"CAN_BUS_OFF", edge::SUBSYSTEM_FW_LINK}},
      {sm::AlertId::kMotorFault, {"MOTOR_FAULT", edge::SUBSYSTEM_FIRMWARE}},
      {sm::AlertId::kImuTimeout, {"IMU_TIMEOUT", edge::SUBSYSTEM_FW_LINK}},
      {sm::AlertId::kLoopSlow, {"CONTROL_LOOP_SLOW", edge::SUBSYSTEM_FIRMWARE}},
  };
  for (const auto& [id, expected] : cases) {
    sm::Event e;
    e.kind = sm::EventKind::kAlertRaised;
    e.alert.id = id;
    e.alert.source = 2;
    const auto error = ErrorFor(e, Config(), "");
    ASSERT_TRUE(error);
    EXPECT_EQ(error->code(), expected.first);
    EXPECT_EQ(error->subsystem(), expected.second);
    EXPECT_FALSE(error->message().empty());
  }
  sm::Event bus_off;
  bus_off.kind = sm::EventKind::kAlertRaised;
  bus_off.alert = {sm::AlertId::kCanBusOff, sm::Severity::kCritical, 1, 1, 0, 2};
  EXPECT_NE(ErrorFor(bus_off, Config(), "")->message().find("left_arm (vcan2)"), std::string::npos);
}

TEST(Errors, ASilentMotorWhoseIdSendsUndecodableFramesIsCalledTheWrongFamily) {
  sm::Event e;
  e.kind = sm::EventKind::kAlertRaised;
  e.alert = {sm::AlertId::kMotorTimeout, sm::Severity::kCritical, 600, 50, 0, 3};
  EXPECT_EQ(ErrorFor(e, Config(), "")->message().find("did not decode"), std::string::npos);
  e.alert.reading = 12;
  const std::string text = ErrorFor(e, Config(), "")->message();
  EXPECT_NE(text.find("L_Knee"), std::string::npos) << text;
  EXPECT_NE(text.find("12 frames from its id did not decode as ak"), std::string::npos) << text;
}

TEST(Errors, JointOutOfRangeNamesTheJointAndItsReading) {
  sm::Event e;
  e.kind = sm::EventKind::kAlertRaised;
  e.alert = {sm::AlertId::kJointOutOfRange, sm::Severity::kCritical, 600, 150, 0, 3};
  e.alert.reading = 3.0f;
  const auto error = ErrorFor(e, Config(), "");
  EXPECT_EQ(error->code(), "JOINT_OUT_OF_RANGE");
  EXPECT_NE(error->message().find("L_Knee"), std::string::npos);
  EXPECT_NE(error->message().find("reads 3.000 rad, beyond its limits [0.00, 2.40]"),
            std::string::npos)
      << error->message();
}

TEST(Errors, JointPastLimitNamesTheJointAndHowFar) {
  sm::Event e;
  e.kind = sm::EventKind::kAlertRaised;
  e.alert = {sm::AlertId::kJointPastLimit, sm::Severity::kWarning, 80, 10, 0, 3};
  e.alert.reading = 2.48f;
  const auto error = ErrorFor(e, Config(), "");
  EXPECT_EQ(error->code(), "JOINT_PAST_LIMIT");
  EXPECT_NE(error->message().find("reads 2.480 rad, 80 mrad past its limits [0.00, 2.40]"),
            std::string::npos)
      << error->message();
}

TEST(Errors, TrajectoryTimeoutBlamesTheControllersLink) {
  sm::Event e;
  e.kind = sm::EventKind::kTrajectoryTimeout;
  e.silence_ms = 201;
  EXPECT_EQ(ErrorFor(e, Config(), "cloud")->subsystem(), edge::SUBSYSTEM_CLOUD);
  EXPECT_EQ(ErrorFor(e, Config(), "ble")->subsystem(), edge::SUBSYSTEM_BLE);
  const auto error = ErrorFor(e, Config(), "");
  EXPECT_EQ(error->code(), "TRAJECTORY_TIMEOUT");
  EXPECT_NE(error->message().find("201 ms"), std::string::npos);
}

TEST(Errors, ModeBlockedSaysWhichAlertBlocks) {
  sm::Event e;
  e.kind = sm::EventKind::kModeBlocked;
  e.to = sm::Mode::kStand;
  e.reason = sm::Reason::kBlockedByAlert;
  e.alert = {sm::AlertId::kMotorOvertemp, sm::Severity::kCritical, 75, 80, 0, 15};
  const auto error = ErrorFor(e, Config(), "");
  EXPECT_EQ(error->code(), "MODE_BLOCKED");
  EXPECT_NE(error->message().find("STAND refused"), std::string::npos) << error->message();
  EXPECT_NE(error->message().find("MOTOR_OVERTEMP"), std::string::npos);
  EXPECT_NE(error->message().find("L_Elbow"), std::string::npos);
}

TEST(Errors, ADampedTrajectoryStreamIsToldHowToStartOver) {
  sm::Event e;
  e.kind = sm::EventKind::kModeBlocked;
  e.to = sm::Mode::kMoveTrajectory;
  e.reason = sm::Reason::kTrajectoryStreamDamped;
  const auto error = ErrorFor(e, Config(), "");
  EXPECT_EQ(error->code(), "MODE_BLOCKED");
  EXPECT_NE(error->message().find("pause it for 200 ms or send STAND"), std::string::npos)
      << error->message();
}

TEST(Errors, LateAndImuLessExitsFromDampSayWhy) {
  sm::Event e;
  e.kind = sm::EventKind::kModeBlocked;
  e.to = sm::Mode::kStand;
  e.reason = sm::Reason::kSentBeforeDamp;
  EXPECT_NE(ErrorFor(e, Config(), "")->message().find("sent before the robot went to DAMP"),
            std::string::npos);
  e.reason = sm::Reason::kImuNotReady;
  EXPECT_NE(ErrorFor(e, Config(), "")->message().find("the IMU has not reported yet"),
            std::string::npos);
}

TEST(Errors, PolicyFaultSaysWhichFaultAndThatTheRobotStands) {
  sm::Event e;
  e.kind = sm::EventKind::kPolicyFault;
  const auto text = [&](sm::PolicyFault fault, std::uint32_t detail,
                        std::string_view failure = {}) {
    e.policy_fault = fault;
    e.detail = detail;
    const auto error = ErrorFor(e, Config(), "", failure);
    EXPECT_EQ(error->code(), "POLICY_FAULT");
    EXPECT_EQ(static_cast<int>(error->subsystem()), edge::SUBSYSTEM_POLICY);
    return error->message();
  };
  const auto has = [](const std::string& message, const std::string& what) {
    EXPECT_NE(message.find(what), std::string::npos) << message;
  };
  has(text(sm::PolicyFault::kStale, 55), "its targets are 55 ms old");
  has(text(sm::PolicyFault::kNoTargets, 1000), "no targets within 1000 ms of MOVE/POLICY");
  has(text(sm::PolicyFault::kNonFinite, 3), "non-finite action (NaN or infinity) for L_Knee");
  has(text(sm::PolicyFault::kNonFinite, sm::kNonFiniteState, "the recurrent state 'h_out' is NaN"),
      "its recurrent state went non-finite (NaN or infinity): the recurrent state 'h_out' is NaN");
  has(text(sm::PolicyFault::kFailed, 0, "bad_alloc"), "inference thread failed: bad_alloc");
  has(text(sm::PolicyFault::kStale, 55), "walking stopped, STAND, ramping from the measured pose");
}

TEST(Errors, ModeChangesAndClearedAlertsAreNotErrors) {
  sm::Event e;
  e.kind = sm::EventKind::kModeChanged;
  EXPECT_FALSE(ErrorFor(e, Config(), ""));
  e.kind = sm::EventKind::kAlertCleared;
  EXPECT_FALSE(ErrorFor(e, Config(), ""));
  EXPECT_EQ(Describe(sm::Event{}, Config()), "mode DAMP -> DAMP (command)");
}

}  // namespace
}  // namespace robot_edge::daemon
