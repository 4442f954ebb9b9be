// What the flight recorder writes, from what the control and API threads hand it: a tick's state
// as JointState, a command and its verdict as CommandRecord, a client's description through the
// hand-off ring, the alerts that write the black box.
#include "daemon/api/record_messages.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace robot_edge::daemon {
namespace {

constexpr std::int64_t kReplyTimeoutUs = 50'000;

TEST(RecordMessages, ATicksStateIsAJointStateInJointSpace) {
  StateSample s(3);
  s.tick_us = 5'000'000;
  s.tick = 2500;
  s.mode = sm::Mode::kMoveTrajectory;
  s.error_flags = 0x10;
  s.last_command_sequence = 77;
  s.joints[1] = {0.5f, -1.0f, 2.5f, 41.0f, 2, 4'990'000, 0, 0, 0};
  s.commands[1] = {0.6f, 0.1f, 60.0f, 2.0f, 0.3f};
  s.imu.quat_wxyz = {1, 0, 0, 0};
  s.imu.gyro_rad_s = {0.1f, 0.2f, 0.3f};
  s.period_us = 2010;
  s.wake_latency_us = 15;
  s.work_us = 4;
  edge::JointState out;
  FillJointState(s, Clocks{5'000'000, 1'700'000'000'000'000}, kReplyTimeoutUs, &out);
  EXPECT_EQ(out.timestamp_us(), 1'700'000'000'000'000u);
  EXPECT_EQ(out.robot_time_us(), 5'000'000u);
  EXPECT_EQ(out.tick(), 2500u);
  EXPECT_EQ(out.fw_mode(), edge::FW_MODE_MOVE);
  EXPECT_EQ(out.control_mode(), edge::CONTROL_MODE_MOVE_TRAJECTORY);
  EXPECT_EQ(out.error_flags(), 0x10u);
  ASSERT_EQ(out.q_size(), 3);
  EXPECT_FLOAT_EQ(out.q(1), 0.5f);
  EXPECT_FLOAT_EQ(out.dq(1), -1.0f);
  EXPECT_FLOAT_EQ(out.tau(1), 2.5f);
  EXPECT_FLOAT_EQ(out.temperature_c(1), 41.0f);
  EXPECT_EQ(out.motor_fault(1), 2u);
  EXPECT_FLOAT_EQ(out.q_des(1), 0.6f);
  EXPECT_FLOAT_EQ(out.dq_des(1), 0.1f);
  EXPECT_FLOAT_EQ(out.kp(1), 60.0f);
  EXPECT_FLOAT_EQ(out.kd(1), 2.0f);
  EXPECT_FLOAT_EQ(out.tau_ff(1), 0.3f);
  EXPECT_FLOAT_EQ(out.imu_gyro(2), 0.3f);
  EXPECT_FLOAT_EQ(out.timing().period_us(), 2010.0f);
  EXPECT_FLOAT_EQ(out.timing().wake_latency_us(), 15.0f);
  EXPECT_EQ(out.last_command_sequence(), 77u);
  ASSERT_EQ(out.motor_status_size(), 3);
  EXPECT_EQ(out.motor_status(0), edge::MOTOR_STATUS_NO_REPLY);
  EXPECT_EQ(out.motor_status(1), edge::MOTOR_STATUS_FAULT) << "replied 10 ms ago, error 2";
  EXPECT_EQ(out.imu_accel_size(), 0) << "no accelerometer frame: none, rather than zeros";
  ASSERT_EQ(out.imu_ypr_size(), 3);
  EXPECT_FLOAT_EQ(out.imu_ypr(1), 0.0f);
  FillJointState(s, Clocks{5'000'000, 1'700'000'000'000'000}, kReplyTimeoutUs, &out);
  EXPECT_EQ(out.q_size(), 3) << "filled again, not appended";
}

TEST(RecordMessages, TheImuGivesAccelerationAndYawPitchRoll) {
  StateSample s(1);
  const float h = 0.25f;  // yaw 0.5 rad
  s.imu.quat_wxyz = {std::cos(h), 0, 0, std::sin(h)};
  s.imu.accel_m_s2 = {0.1f, -0.2f, 9.8f};
  s.imu.has_accel = true;
  edge::JointState out;
  FillJointState(s, Clocks{}, kReplyTimeoutUs, &out);
  ASSERT_EQ(out.imu_accel_size(), 3);
  EXPECT_FLOAT_EQ(out.imu_accel(1), -0.2f);
  EXPECT_FLOAT_EQ(out.imu_accel(2), 9.8f);
  ASSERT_EQ(out.imu_ypr_size(), 3);
  EXPECT_NEAR(out.imu_ypr(0), 0.5f, 1e-6);
  EXPECT_NEAR(out.imu_ypr(2), 0.0f, 1e-6);
}

// FW_LINK_TIMEOUT's rule: silent once the last reply is older than the timeout while commands
// went unanswered; a fault only counts from a motor that still answers.
TEST(RecordMessages, AMotorsStatusFollowsItsReplies) {
  const std::int64_t now = 1'000'000;
  sm::JointMeasurement m;
  EXPECT_EQ(MotorStatusOf(m, now, kReplyTimeoutUs), edge::MOTOR_STATUS_NO_REPLY);
  m.last_reply_us = now - 2'000;
  EXPECT_EQ(MotorStatusOf(m, now, kReplyTimeoutUs), edge::MOTOR_STATUS_OK);
  m.error_code = 3;
  EXPECT_EQ(MotorStatusOf(m, now, kReplyTimeoutUs), edge::MOTOR_STATUS_FAULT);
  m.last_reply_us = now - kReplyTimeoutUs - 1;
  m.unanswered = 2;
  EXPECT_EQ(MotorStatusOf(m, now, kReplyTimeoutUs), edge::MOTOR_STATUS_FAULT)
      << "two unanswered commands: the daemon may have been held up, not the motor";
  m.unanswered = 3;
  EXPECT_EQ(MotorStatusOf(m, now, kReplyTimeoutUs), edge::MOTOR_STATUS_SILENT);
  m.last_reply_us = now - kReplyTimeoutUs;
  EXPECT_EQ(MotorStatusOf(m, now, kReplyTimeoutUs), edge::MOTOR_STATUS_FAULT) << "not yet";
}

TEST(RecordMessages, ACommandAndItsVerdictAreOneRecordEachWithTheirClient) {
  edge::CloudCommand command;
  command.set_sequence(12);
  command.mutable_mode()->set_mode(edge::MODE_STAND);
  const std::string bytes = command.SerializeAsString();
  CommandNote note;
  note.client_id = 4;
  note.time_us = 123;
  note.sequence = 12;
  const ClientInfo client{"unix pid 9 uid 1000", "cloud"};
  edge::CommandRecord r;
  FillCommandRecord(note, {reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()},
                    client, &r);
  EXPECT_EQ(r.client_id(), 4u);
  EXPECT_EQ(r.peer(), "unix pid 9 uid 1000");
  EXPECT_EQ(r.controller(), "cloud");
  EXPECT_EQ(r.command().mode().mode(), edge::MODE_STAND);
  EXPECT_FALSE(r.decided()) << "queued: the control thread decides";
  note.decided = 1;
  note.accepted = 0;
  note.reason = static_cast<std::uint8_t>(sm::Reason::kMotorsNotReady);
  FillCommandRecord(note, {}, client, &r);
  EXPECT_FALSE(r.has_command());
  EXPECT_TRUE(r.decided());
  EXPECT_FALSE(r.accepted());
  EXPECT_EQ(r.reason(), "motors_not_ready");
  EXPECT_EQ(r.sequence(), 12u);
}

TEST(RecordMessages, AClientsDescriptionCrossesTheRingAndAMalformedOneIsRefused) {
  const std::string payload = ClientPayload(7, "tcp 10.0.0.5:4000", "ble");
  std::uint64_t id = 0;
  ClientInfo info;
  ASSERT_TRUE(ParseClientPayload(
      {reinterpret_cast<const std::uint8_t*>(payload.data()), payload.size()}, &id, &info));
  EXPECT_EQ(id, 7u);
  EXPECT_EQ(info.peer, "tcp 10.0.0.5:4000");
  EXPECT_EQ(info.controller, "ble");
  std::string bad = payload;
  bad[8] = '\x7f';  // a peer length beyond the payload
  EXPECT_FALSE(ParseClientPayload({reinterpret_cast<const std::uint8_t*>(bad.data()), bad.size()},
                                  &id, &info));
  EXPECT_FALSE(ParseClientPayload({}, &id, &info));
}

TEST(RecordMessages, CriticalAlertsAndPolicyFaultsWriteTheBlackBoxOtherErrorsDoNot) {
  for (const char* code :
       {"FALL_DETECTED", "MOTOR_OVERTEMP", "FW_LINK_TIMEOUT", "CAN_BUS_OFF", "MOTOR_FAULT",
        "IMU_TIMEOUT", "JOINT_OUT_OF_RANGE", "POLICY_FAULT", "CONTROL_LOOP_SLOW"}) {
    EXPECT_TRUE(TriggersBlackBox(code)) << code;
  }
  for (const char* code : {"TRAJECTORY_TIMEOUT", "MODE_BLOCKED", "COMMAND_STALE", ""}) {
    EXPECT_FALSE(TriggersBlackBox(code)) << code;
  }
}

TEST(RecordMessages, EveryChannelHasItsTopicAndSchema) {
  for (std::size_t i = 0; i < kRecordChannelCount; ++i) {
    const RecordChannelSpec& spec = SpecOf(static_cast<RecordChannel>(i));
    EXPECT_EQ(std::string("/") + spec.name, spec.topic);
    ASSERT_NE(spec.descriptor, nullptr);
  }
  EXPECT_EQ(SpecOf(RecordChannel::kJointState).descriptor->full_name(), "edge.JointState");
}

}  // namespace
}  // namespace robot_edge::daemon
