// One simulated motor's firmware, of any family (can/motor_protocol.hpp): the far end of a CAN
// command frame. It decides
// what torque law the motor applies (TorqueLaw) and answers with what its shaft measured; the
// Plant turns the law into motion. Pure logic: no clock, socket or logger; time is µs on any
// monotonic clock.
//
// Contract (what a real AK / mini-cheetah firmware does, and what this model does):
//   Rest mode (initial, and after disable): command frames are ignored (no reply); the motor
//     applies no torque. Enable / disable / set zero / clear fault are honoured in every mode and
//     answered with the current state.
//   Enable (ak/damiao FC, robstride type 3): motor mode on; the previous command is forgotten, so
//     the motor stays limp until the first command frame.
//   Disable (FD, robstride stop): motor mode off, command forgotten.
//   Set zero (FE, robstride type 6): the current position reads 0 from then on (commands are in
//     the same frame).
//   Clear fault (damiao FB, robstride stop with clear): the injected error code is cleared.
//   Mounting: the motor sits on its joint as `mounting` says (q_joint = d·r·q_motor + offset,
//     config/joint_table.hpp); its frames are in motor space, the plant in joint space. By
//     default the config's own transform; the simulator can change it (a robot whose config is
//     wrong: scrambled offsets, a reversed motor) to test calibration.
//   Command frame in motor mode: answered at once with the current state; it becomes the active
//     command `latency_us` after it arrived (the actuator's delay; 0 = at once).
//   Applied torque = clamp(kp·(p_des − p) + kd·(v_des − v) + t_ff, ±t_max) while in motor mode and
//     the last command arrived at most can_timeout_us ago; otherwise 0 (limp: the firmware's own
//     CAN timeout, can_timeout_us = 0 disables it). A limp motor stays in motor mode: the next
//     command frame drives it again. The physics backend also low-passes the torque at
//     torque_bandwidth_hz (0 = no lag).
//   CAN-loss timeout: an ak motor's is the model's can_timeout_ms (set in its firmware with the
//     vendor's tool). Damiao and Robstride motors leave the factory with theirs off (0) and take
//     it over CAN (damiao register 9, robstride parameter 0x7028): a write sets it, a read
//     answers it (a damiao write is answered with the value, a robstride write with feedback).
//   Silenced (fault injection: a cut cable): frames are neither processed nor answered, so the
//     motor goes limp after its timeout. Physics and temperature keep running.
//   Error code (fault injection, a can::MotorError): reported in the family's fault field; it
//     does not change the motor's behaviour.
//   Temperature: dT/dt = heating·τ² − (T − ambient)/time_constant, unless pinned by fault
//     injection (released, it evolves again from the pinned value). Reported rounded, clamped to
//     0..255 °C (AK layout only).
//
// The reply reports the shaft's position (in the FE-zeroed frame), velocity and torque after the
// last physics step (OnStep), the temperature and the error code.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "can/joint_transform.hpp"
#include "can/motor_protocol.hpp"
#include "config/config.hpp"
#include "config/joint_table.hpp"
#include "sim/plant.hpp"

namespace robot_edge::sim {

// Everything a motor needs to know about itself, from the config.
struct SimMotorParams {
  std::uint32_t can_id = 1;         // joints[i].can_id
  std::uint32_t master_id = 0;      // its bus's master_id: where replies go
  can::MotorProtocol protocol;      // from the motor model: family, ranges, reply layout
  config::JointTransform mounting;  // how it turns its joint (see above)
  double ambient_c = 30.0;          // °C
  double thermal_time_constant_s = 120.0;
  double heating_c_per_nm2_s = 0.01;      // °C/s per (N·m)²
  std::int64_t can_timeout_us = 100'000;  // limp after this long without a command; 0 = never
  std::int64_t latency_us = 0;            // command arrival -> in effect
  double torque_bandwidth_hz = 0;         // physics backend: torque low-pass; 0 = none
};

// The parameters of the motor of joint `joint` of `config`.
// (sim.fitted replaces the config's motor model: a robot whose config names the wrong one.)
SimMotorParams MotorParamsFor(const config::Config& config, std::size_t joint);
// A motor of model `motor` with id `can_id` on bus `bus`, mounted as its own joint.
SimMotorParams MotorParamsFor(const config::Config& config, std::size_t bus,
                              const config::MotorModel& motor, std::uint32_t can_id);

// A reply frame: its id (with CAN_EFF_FLAG for 29-bit families) and `len` bytes of `data`.
struct SimReply {
  canid_t can_id = 0;
  can::Payload data{};
  std::uint8_t len = 0;
};

// What the motor is doing now (for `get`, the status line and tests).
struct SimMotorState {
  double position_rad = 0;        // as reported (motor space, minus the set-zero offset)
  double joint_position_rad = 0;  // true joint position
  double velocity_rad_s = 0;      // joint side
  double torque_nm = 0;           // joint side, applied during the last physics step
  double temperature_c = 0;
  bool motor_mode = false;
  bool active = false;    // in motor mode with a fresh command (not limp)
  double kp = 0, kd = 0;  // the command in effect's gains (N·m/rad, N·m·s/rad); 0 without one
  bool silenced = false;
  bool temperature_pinned = false;
  std::uint8_t error_code = 0;
  std::uint64_t commands = 0;  // command frames accepted in motor mode
  std::uint64_t replies = 0;
  std::int64_t can_timeout_us = 0;  // the firmware's CAN-loss timeout now; 0 = off
};

class SimMotor {
 public:
  // Commands that may be in flight inside the actuator at once (latency); older ones are dropped.
  static constexpr std::size_t kMaxPending = 16;

  // Starts at rest: not in motor mode, ambient temperature, shaft at 0.
  explicit SimMotor(const SimMotorParams& params);

  // A frame addressed to this motor arrived at `now_us`; the physics must have been advanced to
  // `now_us` first. Returns the reply, or nothing when the motor stays silent (rest mode,
  // silenced, not a frame it understands).
  std::optional<SimReply> OnFrame(const can_frame& frame, std::int64_t now_us);

  // The torque law for the physics step that starts at `now_us`.
  TorqueLaw LawAt(std::int64_t now_us);
  // The step of `dt_s` that began at `start_us` ended with the shaft in `shaft`.
  void OnStep(const ShaftState& shaft, std::int64_t start_us, double dt_s);

  // Fault injection.
  void PinTemperature(double celsius);
  void ReleaseTemperature();
  void SetSilenced(bool silenced) { silenced_ = silenced; }
  void SetErrorCode(std::uint8_t code) { error_code_ = code; }
  // The motor is remounted (fault injection: a config that does not match the robot).
  void SetMounting(const config::JointTransform& mounting) { params_.mounting = mounting; }

  SimMotorState state() const;
  const SimMotorParams& params() const { return params_; }
  // In motor mode with a command at most can_timeout_us old at `now_us`.
  bool IsActive(std::int64_t now_us) const;

 private:
  struct Pending {
    can::MitCommand command;
    std::int64_t effective_us;
  };

  SimReply MakeReply();
  SimReply Answer(const can_frame& frame);  // `frame` as the reply; counted
  std::optional<SimReply> OnCanTimeoutRequest(const can::CanTimeoutRequest& request);
  can::ShaftReading MotorShaft() const;  // the shaft in motor space, before the zero offset

  SimMotorParams params_;
  std::int64_t last_step_us_ = 0;  // start of the last physics step

  ShaftState shaft_;  // after the last physics step, joint space
  double temperature_c_;
  double zero_offset_rad_ = 0;  // motor space: reported position = motor position − zero offset

  // Firmware state.
  bool motor_mode_ = false;
  bool has_command_ = false;  // command_ is in effect
  can::MitCommand command_{};
  std::array<Pending, kMaxPending> pending_{};  // arrived, not yet in effect (oldest first)
  std::size_t pending_count_ = 0;
  std::int64_t last_command_us_ = 0;  // arrival of the newest command
  bool silenced_ = false;
  bool pinned_ = false;
  std::uint8_t error_code_ = 0;
  std::uint64_t commands_ = 0;
  std::uint64_t replies_ = 0;
};

}  // namespace robot_edge::sim
