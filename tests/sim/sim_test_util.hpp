// Helpers of the simulator's unit tests: a small two-bus config, frames and reply decoding.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "can/mit_codec.hpp"
#include "config/config.hpp"
#include "sim/kinematic_plant.hpp"
#include "sim/motor_model.hpp"
#include "sim/sim_robot.hpp"

namespace robot_edge::sim::test {

// Two buses: "leg" (vcan0, master 0) with Knee (ak, id 1) and Hip (ak, id 2); "arm" (vcan1,
// master 0x7F) with Elbow (classic, id 1) and the IMU.
inline config::Config SmallConfig() {
  static const char* const kYaml = R"(
motors:
  ak: {p_max: 12.5, v_max: 50.0, t_max: 18.0, kp_max: 500.0, kd_max: 5.0, reply: ak, can_timeout_ms: 100}
  classic: {p_max: 12.5, v_max: 50.0, t_max: 18.0, kp_max: 500.0, kd_max: 5.0, reply: classic, can_timeout_ms: 100}
buses:
  - {name: leg, interface: vcan0, master_id: 0}
  - {name: arm, interface: vcan1, master_id: 0x7F}
joints:
  - {name: Knee, bus: leg, can_id: 1, motor: ak, min: -1.0, max: 2.0, kp: 50, kd: 1, stand: 0}
  - {name: Hip, bus: leg, can_id: 2, motor: ak, min: -1.0, max: 1.0, kp: 50, kd: 1, stand: 0, inertia: 0.5, friction: 3}
  - {name: Elbow, bus: arm, can_id: 1, motor: classic, min: -1.0, max: 1.0, kp: 50, kd: 1, stand: 0}
imu: {bus: arm, quat_id: 0x101, gyro_id: 0x102}
sim: {ambient_c: 25, thermal_time_constant_s: 60, heating_c_per_nm2_s: 0.02, imu_rate_hz: 200, joint_inertia: 0.02, joint_friction: 0.2}
)";
  config::Config c = config::ParseConfig(kYaml, "small.yaml");
  const auto problems = config::Validate(c);
  EXPECT_TRUE(problems.empty()) << problems.front();
  return c;
}

inline can::Payload Fc() { return can::EncodeSpecial(can::SpecialCommand::kEnterMotorMode); }
inline can::Payload Fd() { return can::EncodeSpecial(can::SpecialCommand::kExitMotorMode); }
inline can::Payload Fe() { return can::EncodeSpecial(can::SpecialCommand::kSetZero); }

// A motor's firmware parameters and the kinematic joint it drives.
struct MotorAndJoint : SimMotorParams {
  double min_rad = -1.0;
  double max_rad = 1.0;
  double inertia_kgm2 = 0.02;
  double friction_nms = 0.2;
};

// One SimMotor on one KinematicPlant joint, stepped as SimRobot steps a robot (StepPhysics).
class MotorOnJoint {
 public:
  explicit MotorOnJoint(const MotorAndJoint& p)
      : motors_{SimMotor(p)},
        plant_({KinematicJoint{p.min_rad, p.max_rad, p.inertia_kgm2, p.friction_nms}}) {
    Advance(0);
  }
  // Advances to `now_us`, then hands the motor a standard frame with these data bytes.
  std::optional<SimReply> OnFrame(std::span<const std::uint8_t> data, std::int64_t now_us) {
    Advance(now_us);
    can_frame frame{};
    frame.can_id = motors_[0].params().can_id;
    frame.len = static_cast<std::uint8_t>(std::min<std::size_t>(data.size(), CAN_MAX_DLEN));
    std::copy(data.begin(), data.begin() + frame.len, frame.data);
    return motors_[0].OnFrame(frame, now_us);
  }
  // Advances to `now_us`, then hands the motor `frame` as it is.
  std::optional<SimReply> OnCanFrame(const can_frame& frame, std::int64_t now_us) {
    Advance(now_us);
    return motors_[0].OnFrame(frame, now_us);
  }
  void Advance(std::int64_t now_us) { StepPhysics(plant_, motors_, laws_, &time_us_, now_us); }

  SimMotorState state() const { return motors_[0].state(); }
  void PinTemperature(double celsius) { motors_[0].PinTemperature(celsius); }
  void ReleaseTemperature() { motors_[0].ReleaseTemperature(); }
  void SetSilenced(bool on) { motors_[0].SetSilenced(on); }
  void SetErrorCode(std::uint8_t code) { motors_[0].SetErrorCode(code); }

 private:
  std::array<SimMotor, 1> motors_;
  KinematicPlant plant_;
  std::array<TorqueLaw, 1> laws_{};
  std::int64_t time_us_ = 0;
};

inline can::MitReply Decode(const SimReply& reply, const SimMotorParams& params) {
  can::MitReply out;
  EXPECT_TRUE(can::DecodeReply(std::span<const std::uint8_t>(reply.data.data(), reply.len),
                               params.protocol.ranges, params.protocol.layout, &out));
  return out;
}

}  // namespace robot_edge::sim::test
