// dds/mapping.hpp: rt/lowcmd -> JointCommand, JointState -> rt/lowstate, the log throttle.
#include "dds/mapping.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace robot_edge::dds {
namespace {

constexpr std::size_t kJoints = 25;
constexpr std::int64_t kNowUs = 7'000'000;  // robot time

// A LowCmd_ and the motors its sequence points to; motor i: q = 0.1 i, dq = 0.01 i,
// tau = -0.5 + 0.1 i, kp = 40 + i, kd = 1 + 0.1 i.
struct LowCmd {
  explicit LowCmd(std::size_t motors) : motor(motors) {
    for (std::size_t i = 0; i < motors; ++i) {
      const auto f = static_cast<float>(i);
      motor[i] = {0, 0.1f * f, 0.01f * f, -0.5f + 0.1f * f, 40.0f + f, 1.0f + 0.1f * f, 0, 0};
    }
  }
  const pnd_adam_msg_dds__LowCmd_& msg() {
    cmd.motor_cmd._buffer = motor.data();
    cmd.motor_cmd._length = static_cast<std::uint32_t>(motor.size());
    cmd.motor_cmd._maximum = cmd.motor_cmd._length;
    return cmd;
  }
  std::vector<pnd_adam_msg_dds__MotorCmd_> motor;
  pnd_adam_msg_dds__LowCmd_ cmd{};
};

MappedCommand Map(LowCmd& cmd, CommandSettings settings = {}) {
  return ToJointCommand(cmd.msg(), kJoints, kNowUs, 42, settings);
}

TEST(LowCmdToJointCommand, EveryMotorsValuesAndGainsGoToItsJoint) {
  LowCmd cmd(kJoints);
  const MappedCommand m = Map(cmd, {30'000, 6.0f});
  ASSERT_EQ(m.refusal, Refusal::kNone) << m.reason;
  const edge::JointCommand& c = m.command;
  ASSERT_EQ(c.position_size(), 25);
  ASSERT_EQ(c.velocity_size(), 25);
  ASSERT_EQ(c.torque_size(), 25);
  ASSERT_EQ(c.kp_size(), 25);
  ASSERT_EQ(c.kd_size(), 25);
  for (int i = 0; i < 25; ++i) {
    const auto& motor = cmd.motor[static_cast<std::size_t>(i)];
    EXPECT_EQ(c.position(i), motor.q) << i;
    EXPECT_EQ(c.velocity(i), motor.dq) << i;
    EXPECT_EQ(c.torque(i), motor.tau) << i;
    EXPECT_EQ(c.kp(i), motor.kp) << i;
    EXPECT_EQ(c.kd(i), motor.kd) << i;
  }
  EXPECT_EQ(c.end_time_us(), kNowUs + 30'000);
  EXPECT_EQ(c.user_command_key(), 42u);
  EXPECT_FLOAT_EQ(c.velocity_safety_limit(), 6.0f);
  EXPECT_EQ(c.reference_time_us(), 0);  // not extrapolated
  EXPECT_EQ(c.sequence(), 0u) << "stamped by the sender";
  EXPECT_EQ(c.timestamp_us(), 0u);
  EXPECT_FALSE(m.uses_ki);
}

TEST(LowCmdToJointCommand, DefaultLifetimeIs50msAndNoVelocityLimit) {
  LowCmd cmd(kJoints);
  const MappedCommand m = Map(cmd);
  ASSERT_EQ(m.refusal, Refusal::kNone) << m.reason;
  EXPECT_EQ(m.command.end_time_us(), kNowUs + 50'000);
  EXPECT_EQ(m.command.velocity_safety_limit(), 0.0f);
}

// mode_pr and every motor's mode change nothing: robot-edge has one joint mode.
TEST(LowCmdToJointCommand, ModesAreIgnored) {
  LowCmd plain(kJoints), moded(kJoints);
  moded.cmd.mode_pr = 1;
  moded.cmd.reserve = 99;
  for (auto& m : moded.motor) {
    m.mode = 1;
    m.reserve = 7;
  }
  EXPECT_EQ(Map(plain).command.SerializeAsString(), Map(moded).command.SerializeAsString());
}

// ki is ignored, and said to be: the command is sent without it.
TEST(LowCmdToJointCommand, KiIsIgnoredAndReported) {
  LowCmd cmd(kJoints);
  cmd.motor[7].ki = 0.5f;
  const MappedCommand m = Map(cmd);
  EXPECT_EQ(m.refusal, Refusal::kNone) << m.reason;
  EXPECT_TRUE(m.uses_ki);
  EXPECT_EQ(m.command.position_size(), 25);
}

// An Adam Lite's 23 motors, an SP's 29, a Pro's 31 on a 25-joint robot: refused whole.
TEST(LowCmdToJointCommand, AnotherMotorCountIsRefusedWhole) {
  for (std::size_t motors : {kAdamLiteMotors, kAdamSpMotors, kAdamProMotors, std::size_t{0}}) {
    LowCmd cmd(motors);
    const MappedCommand m = Map(cmd);
    EXPECT_EQ(m.refusal, Refusal::kMotorCount) << motors;
    EXPECT_EQ(m.reason, "motor_cmd has " + std::to_string(motors) + " motors; this robot has 25");
    EXPECT_EQ(m.command.position_size(), 0) << "nothing partly mapped";
  }
}

// What robot-edged's validator would drop is not sent: the whole command, naming the value.
TEST(LowCmdToJointCommand, NonFiniteValuesAreRefusedWhole) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    void (*spoil)(pnd_adam_msg_dds__MotorCmd_&, float);
    float value;
    const char* named;
  };
  const Case cases[] = {
      {[](auto& m, float v) { m.q = v; }, nan, "position[3]"},
      {[](auto& m, float v) { m.dq = v; }, inf, "velocity[3]"},
      {[](auto& m, float v) { m.tau = v; }, -inf, "torque[3]"},
      {[](auto& m, float v) { m.kp = v; }, nan, "kp[3]"},
      {[](auto& m, float v) { m.kd = v; }, inf, "kd[3]"},
  };
  for (const Case& c : cases) {
    LowCmd cmd(kJoints);
    c.spoil(cmd.motor[3], c.value);
    const MappedCommand m = Map(cmd);
    EXPECT_EQ(m.refusal, Refusal::kInvalid) << c.named;
    EXPECT_NE(m.reason.find(c.named), std::string::npos) << m.reason;
    EXPECT_EQ(m.command.position_size(), 0) << c.named;
  }
}

// The API's gain ranges (kp 0..500 N·m/rad, kd 0..5 N·m·s/rad): Adam's own hip gains (kp 700,
// kd 30) are outside them.
TEST(LowCmdToJointCommand, GainsOutsideTheApisRangeAreRefusedWhole) {
  LowCmd high_kp(kJoints), high_kd(kJoints), negative(kJoints);
  high_kp.motor[1].kp = 700.0f;
  high_kd.motor[1].kd = 30.0f;
  negative.motor[0].kp = -1.0f;
  for (LowCmd* cmd : {&high_kp, &high_kd, &negative}) {
    const MappedCommand m = Map(*cmd);
    EXPECT_EQ(m.refusal, Refusal::kInvalid);
    EXPECT_NE(m.reason.find("is outside"), std::string::npos) << m.reason;
  }
}

TEST(LowCmdToJointCommand, ANonFiniteVelocityLimitIsRefused) {
  LowCmd cmd(kJoints);
  const MappedCommand m = Map(cmd, {50'000, std::numeric_limits<float>::quiet_NaN()});
  EXPECT_EQ(m.refusal, Refusal::kInvalid);
}

// A JointState of `joints` joints: joint i at q = 0.1 i, dq = dq0 + i, tau = -i, fault 0 but
// joint 4's (0x21), status OK but joint 2's (FAULT); an IMU without accelerometer.
edge::JointState State(std::size_t joints, std::uint64_t tick, std::uint64_t robot_time_us,
                       float dq0) {
  edge::JointState s;
  s.set_tick(tick);
  s.set_robot_time_us(robot_time_us);
  for (std::size_t i = 0; i < joints; ++i) {
    const auto f = static_cast<float>(i);
    s.add_q(0.1f * f);
    s.add_dq(dq0 + f);
    s.add_tau(-f);
    s.add_motor_fault(i == 4 ? 0x21 : 0);
    s.add_motor_status(i == 2 ? edge::MOTOR_STATUS_FAULT : edge::MOTOR_STATUS_OK);
  }
  for (float v : {0.9f, 0.1f, 0.2f, 0.3f}) s.add_imu_quat(v);
  for (float v : {0.01f, 0.02f, 0.03f}) s.add_imu_gyro(v);
  for (float v : {0.5f, -0.2f, 0.1f}) s.add_imu_ypr(v);
  return s;
}

TEST(JointStateToLowState, MotorsImuAndTick) {
  LowStateSample sample(kJoints);
  LowStateMapper mapper;
  mapper.Map(State(kJoints, 1234, 10'000'000, 0.0f), &sample);
  const pnd_adam_msg_dds__LowState_& m = sample.msg();
  EXPECT_EQ(m.mode_pr, 0);
  EXPECT_EQ(m.tick, 1234u);
  ASSERT_EQ(m.motor_state._length, 25u);
  for (std::uint32_t i = 0; i < 25; ++i) {
    const pnd_adam_msg_dds__MotorState_& s = m.motor_state._buffer[i];
    EXPECT_FLOAT_EQ(s.q, 0.1f * static_cast<float>(i)) << i;
    EXPECT_FLOAT_EQ(s.dq, static_cast<float>(i)) << i;
    EXPECT_EQ(s.ddq, 0.0f) << "no previous state: " << i;
    EXPECT_FLOAT_EQ(s.tau_est, -static_cast<float>(i)) << i;
    EXPECT_EQ(s.state, i == 4 ? 0x21u : 0u) << i;
    EXPECT_EQ(s.mode, i == 2 ? 3 : 1) << "MotorStatus: " << i;
    EXPECT_EQ(s.reserve, 0u);
  }
  const float quat[] = {0.9f, 0.1f, 0.2f, 0.3f}, gyro[] = {0.01f, 0.02f, 0.03f},
              ypr[] = {0.5f, -0.2f, 0.1f};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(m.imu_state.quaternion[i], quat[i]) << "[w,x,y,z] " << i;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(m.imu_state.gyroscope[i], gyro[i]);
    EXPECT_EQ(m.imu_state.ypr[i], ypr[i]) << "[yaw,pitch,roll] " << i;
    EXPECT_EQ(m.imu_state.accelerometer[i], 0.0f) << "no accelerometer: zeros";
  }
  EXPECT_EQ(m.imu_state.temperature, 0);
}

TEST(JointStateToLowState, AccelerometerWhenThereIsOne) {
  LowStateSample sample(kJoints);
  LowStateMapper mapper;
  edge::JointState state = State(kJoints, 1, 1'000, 0.0f);
  for (float v : {0.1f, -0.2f, 9.81f}) state.add_imu_accel(v);
  mapper.Map(state, &sample);
  EXPECT_EQ(sample.msg().imu_state.accelerometer[0], 0.1f);
  EXPECT_EQ(sample.msg().imu_state.accelerometer[1], -0.2f);
  EXPECT_EQ(sample.msg().imu_state.accelerometer[2], 9.81f);
}

// ddq: the difference of dq over the robot time between two states.
TEST(JointStateToLowState, DdqIsTheDifferenceOfDqOverRobotTime) {
  LowStateSample sample(kJoints);
  LowStateMapper mapper;
  mapper.Map(State(kJoints, 10, 1'000'000, 0.0f), &sample);
  mapper.Map(State(kJoints, 12, 1'004'000, 0.2f), &sample);  // +0.2 rad/s in 4 ms
  for (std::uint32_t i = 0; i < 25; ++i) {
    EXPECT_NEAR(sample.msg().motor_state._buffer[i].ddq, 50.0f, 1e-3f) << i;
  }
  // The same robot time again (a repeated state): no division by zero, 0.
  mapper.Map(State(kJoints, 12, 1'004'000, 0.4f), &sample);
  EXPECT_EQ(sample.msg().motor_state._buffer[0].ddq, 0.0f);
}

TEST(JointStateToLowState, TickWrapsAt32Bits) {
  LowStateSample sample(kJoints);
  LowStateMapper mapper;
  mapper.Map(State(kJoints, (std::uint64_t{1} << 32) + 5, 1'000, 0.0f), &sample);
  EXPECT_EQ(sample.msg().tick, 5u);
}

TEST(JointStateToLowState, TheBatteryBecomesBatteryData) {
  LowStateSample sample(kJoints);
  LowStateMapper mapper;
  edge::JointState state = State(kJoints, 1, 1'000, 0.0f);
  edge::BatteryState* b = state.mutable_battery();
  b->set_reading_time_us(7'250'000);
  b->set_voltage_v(47.5f);
  b->set_current_a(3.0f);
  b->set_power_w(142.5f);
  b->set_wh_accumulated(1.25f);
  b->set_temperature_c(NAN);  // unknown to the source
  b->set_status(edge::BATTERY_STATUS_CHARGING);
  mapper.Map(state, &sample);
  const pnd_adam_msg_dds__BatteryData_& d = sample.msg().battery_data;
  EXPECT_EQ(d.timestamp_ms, 7250);
  EXPECT_FLOAT_EQ(d.voltage, 47.5f);
  EXPECT_FLOAT_EQ(d.current, 3.0f);
  EXPECT_FLOAT_EQ(d.power, 142.5f);
  EXPECT_FLOAT_EQ(d.wh_accumulated, 1.25f);
  EXPECT_STREQ(d.status, "charging");
  b->set_voltage_v(NAN);
  b->set_status(edge::BATTERY_STATUS_DISCHARGING);
  mapper.Map(state, &sample);
  EXPECT_EQ(sample.msg().battery_data.voltage, 0.0f) << "unknown: 0, a number for the client";
  EXPECT_STREQ(sample.msg().battery_data.status, "discharging");
}

// What robot-edge has no source for: zeros, the battery's status "unknown".
TEST(JointStateToLowState, NoRemoteNoBattery) {
  LowStateSample sample(kJoints);
  LowStateMapper mapper;
  mapper.Map(State(kJoints, 1, 1'000, 0.0f), &sample);
  const pnd_adam_msg_dds__LowState_& m = sample.msg();
  for (float v : m.wireless_remote) EXPECT_EQ(v, 0.0f);
  EXPECT_STREQ(m.battery_data.status, "unknown");
  EXPECT_EQ(m.battery_data.timestamp_ms, 0);
  EXPECT_EQ(m.battery_data.voltage, 0.0f);
  EXPECT_EQ(m.reserve, 0u);
}

// A state with fewer joints than the sample (or an empty one, e.g. before the first IMU frame):
// zeros, never a read past its end.
TEST(JointStateToLowState, MissingValuesAreZeros) {
  LowStateSample sample(kJoints);
  LowStateMapper mapper;
  mapper.Map(State(3, 1, 1'000, 1.0f), &sample);
  EXPECT_EQ(sample.msg().motor_state._length, 25u);
  EXPECT_FLOAT_EQ(sample.msg().motor_state._buffer[2].q, 0.2f);
  EXPECT_EQ(sample.msg().motor_state._buffer[3].q, 0.0f);
  EXPECT_EQ(sample.msg().motor_state._buffer[24].mode, 0) << "MOTOR_STATUS_NO_REPLY";
  mapper.Map(edge::JointState{}, &sample);
  EXPECT_EQ(sample.msg().imu_state.quaternion[0], 0.0f);
}

TEST(Throttle, OncePerIntervalCountingTheOthers) {
  Throttle throttle(1'000'000);
  std::uint64_t held_back = 99;
  EXPECT_TRUE(throttle.Allow(5'000'000, &held_back));
  EXPECT_EQ(held_back, 0u);
  EXPECT_FALSE(throttle.Allow(5'100'000, &held_back));
  EXPECT_FALSE(throttle.Allow(5'999'999, &held_back));
  EXPECT_TRUE(throttle.Allow(6'000'000, &held_back));
  EXPECT_EQ(held_back, 2u);
  EXPECT_TRUE(throttle.Allow(9'000'000, &held_back));
  EXPECT_EQ(held_back, 0u);
}

}  // namespace
}  // namespace robot_edge::dds
