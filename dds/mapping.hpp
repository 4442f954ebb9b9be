// PNDbotics Adam's low-level messages (idl/pnd_adam.idl, seed 004) to and from robot-edged's
// API (edge_api.proto): pure functions and the state they need, no DDS entity, no socket, no
// clock (times are parameters).
//
// rt/lowcmd (LowCmd_) -> JointCommand, per motor i (firmware order):
//   q -> position[i] (rad), dq -> velocity[i] (rad/s), tau -> torque[i] (N·m),
//   kp -> kp[i] (N·m/rad), kd -> kd[i] (N·m·s/rad): every command carries its gains.
//   end_time_us = robot now + the command lifetime: if the Adam client stops publishing, the
//   robot holds the last command's position, then robot-edged's 200 ms watchdog DAMPs.
//   Not supported: LowCmd_.mode_pr and MotorCmd_.mode (ignored: robot-edge has one joint
//   mode, position-velocity-torque with gains), MotorCmd_.ki (ignored; the caller logs once
//   when it is not 0), reserve.
//   Refused as a whole, never partly applied: a motor count other than the robot's joint count,
//   and what client::MakeJointCommand refuses (a non-finite value, a gain outside the API's
//   range kp 0..500, kd 0..5) -- the commands robot-edged's validator would drop.
//
// robot-edged's JointState -> rt/lowstate (LowState_):
//   mode_pr 0, tick = JointState.tick (mod 2^32);
//   imu_state: quaternion = imu_quat [w,x,y,z], gyroscope = imu_gyro, accelerometer =
//   imu_accel, ypr = imu_ypr [yaw,pitch,roll]; zeros where the state has none; temperature 0;
//   motor_state[i]: mode = motor_status (MotorStatus: 0 no reply, 1 ok, 2 silent, 3 fault),
//   q, dq, ddq = (dq - previous dq) / (robot_time - previous robot_time) (0 for the first
//   state), tau_est = tau, state = motor_fault; wireless_remote zeros; battery_data from the
//   state's BatteryState (timestamp_ms robot time; unknown values 0; status "discharging",
//   "charging", "full", "fault" or "unknown"), zeros and "unknown" without one; reserve 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "edge_api.pb.h"
#include "pnd_adam.h"

namespace robot_edge::dds {

// Adam's models by their motor count (seed 004): the length of motor_cmd and motor_state.
inline constexpr std::size_t kAdamLiteMotors = 23;
inline constexpr std::size_t kAdamSpMotors = 29;
inline constexpr std::size_t kAdamProMotors = 31;

struct CommandSettings {
  std::int64_t lifetime_us = 50'000;  // end_time_us = robot now + this
  float velocity_safety_limit = 0;    // rad/s (JointCommand.velocity_safety_limit); 0 = none
};

enum class Refusal {
  kNone,
  kMotorCount,  // motor_cmd's length is not the robot's joint count
  kInvalid,     // a value robot-edged would refuse (MakeJointCommand's check)
};

struct MappedCommand {
  edge::JointCommand command;  // unstamped: sequence and timestamp_us are the sender's
  Refusal refusal = Refusal::kNone;
  std::string reason;    // why refused, e.g. "motor_cmd has 23 motors; this robot has 25"
  bool uses_ki = false;  // some MotorCmd_.ki is not 0 (ignored)
};

// LowCmd_ -> JointCommand (see the top of this file). `joints`: the robot's joint count;
// `robot_now_us`: robot time (client::ClockOffset::ToRobot); `key`: the user_command_key.
MappedCommand ToJointCommand(const pnd_adam_msg_dds__LowCmd_& low_cmd, std::size_t joints,
                             std::int64_t robot_now_us, std::uint32_t key,
                             const CommandSettings& settings);

// A LowState_ sample and what its C struct points to (motor_state's buffer, the battery status
// text). Neither copyable nor movable: msg() points into it.
class LowStateSample {
 public:
  explicit LowStateSample(std::size_t motors);
  LowStateSample(const LowStateSample&) = delete;
  LowStateSample& operator=(const LowStateSample&) = delete;

  const pnd_adam_msg_dds__LowState_& msg() const { return msg_; }
  pnd_adam_msg_dds__LowState_& msg() { return msg_; }
  std::size_t motors() const { return motors_.size(); }
  // battery_data.status (a constant text: never more than its capacity, so never reallocated).
  void set_battery_status(const char* text) {
    battery_status_.assign(text);
    msg_.battery_data.status = battery_status_.data();
  }

 private:
  std::vector<pnd_adam_msg_dds__MotorState_> motors_;
  std::string battery_status_ = "unknown";
  pnd_adam_msg_dds__LowState_ msg_{};
};

// JointState -> LowState_, state after state (ddq is a difference with the previous state).
class LowStateMapper {
 public:
  // Fills `out` from `state`: its first out->motors() joints (zeros for joints the state lacks).
  void Map(const edge::JointState& state, LowStateSample* out);

 private:
  static void MapBattery(const edge::JointState& state, LowStateSample* out);

  std::vector<float> previous_dq_;  // rad/s, of the previous state
  std::uint64_t previous_time_us_ = 0;
};

// Lets a repeated log message through at most once per interval, counting the others.
class Throttle {
 public:
  explicit Throttle(std::int64_t interval_us) : interval_us_(interval_us) {}
  // True when a message at `now_us` may be logged; then `*held_back` is how many were not since
  // the last one that was.
  bool Allow(std::int64_t now_us, std::uint64_t* held_back);

 private:
  std::int64_t interval_us_;
  std::int64_t last_us_ = 0;
  bool logged_ = false;
  std::uint64_t held_back_ = 0;
};

}  // namespace robot_edge::dds
