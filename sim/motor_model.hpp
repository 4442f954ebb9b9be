// One simulated MIT-protocol motor's firmware: the far end of a CAN command frame. It decides
// what torque law the motor applies (TorqueLaw) and answers with what its shaft measured; the
// Plant turns the law into motion. Pure logic: no clock, socket or logger; time is µs on any
// monotonic clock.
//
// Contract (what a real AK / mini-cheetah firmware does, and what this model does):
//   Rest mode (initial, and after FD): command frames are ignored (no reply); the motor applies no
//     torque. FC / FD / FE are honoured in every mode and answered with the current state.
//   FC (enter motor mode): motor mode on; the previous command is forgotten, so the motor stays
//     limp until the first command frame.
//   FD (exit motor mode): motor mode off, command forgotten.
//   FE (set zero): the current position reads 0 from then on (commands are in the same frame).
//   Command frame in motor mode: answered at once with the current state; it becomes the active
//     command `latency_us` after it arrived (the actuator's delay; 0 = at once).
//   Applied torque = clamp(kp·(p_des − p) + kd·(v_des − v) + t_ff, ±t_max) while in motor mode and
//     the last command arrived at most can_timeout_us ago; otherwise 0 (limp: the firmware's own
//     CAN timeout, can_timeout_us = 0 disables it). A limp motor stays in motor mode: the next
//     command frame drives it again. The physics backend also low-passes the torque at
//     torque_bandwidth_hz (0 = no lag).
//   Silenced (fault injection: a cut cable): frames are neither processed nor answered, so the
//     motor goes limp after its timeout. Physics and temperature keep running.
//   Error code (fault injection): reported in byte 7 of the AK reply; it does not change the
//     motor's behaviour.
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

#include "can/mit_codec.hpp"
#include "config/config.hpp"
#include "sim/plant.hpp"

namespace robot_edge::sim {

// Everything a motor needs to know about itself, from the config.
struct SimMotorParams {
  std::uint32_t can_id = 1;  // joints[i].can_id; byte 0 of every reply is its low byte
  can::MitRanges ranges;     // from the motor model
  can::ReplyLayout layout = can::ReplyLayout::kAk8Byte;
  double ambient_c = 30.0;  // °C
  double thermal_time_constant_s = 120.0;
  double heating_c_per_nm2_s = 0.01;      // °C/s per (N·m)²
  std::int64_t can_timeout_us = 100'000;  // limp after this long without a command; 0 = never
  std::int64_t latency_us = 0;            // command arrival -> in effect
  double torque_bandwidth_hz = 0;         // physics backend: torque low-pass; 0 = none
};

// The parameters of the motor of joint `joint` of `config`.
SimMotorParams MotorParamsFor(const config::Config& config, std::size_t joint);

// A reply frame's payload: `len` bytes of `data` (8 for AK, 6 for classic).
struct SimReply {
  can::Payload data{};
  std::uint8_t len = 0;
};

// What the motor is doing now (for `get`, the status line and tests).
struct SimMotorState {
  double position_rad = 0;        // as reported: shaft position minus the FE zero offset
  double joint_position_rad = 0;  // true shaft position
  double velocity_rad_s = 0;
  double torque_nm = 0;  // applied during the last physics step
  double temperature_c = 0;
  bool motor_mode = false;
  bool active = false;  // in motor mode with a fresh command (not limp)
  bool silenced = false;
  bool temperature_pinned = false;
  std::uint8_t error_code = 0;
  std::uint64_t commands = 0;  // command frames accepted in motor mode
  std::uint64_t replies = 0;
};

class SimMotor {
 public:
  // Commands that may be in flight inside the actuator at once (latency); older ones are dropped.
  static constexpr std::size_t kMaxPending = 16;

  // Starts at rest: not in motor mode, ambient temperature, shaft at 0.
  explicit SimMotor(const SimMotorParams& params);

  // A frame addressed to this motor arrived at `now_us` (its data bytes, any length); the physics
  // must have been advanced to `now_us` first. Returns the reply payload, or nothing when the
  // motor stays silent (rest mode, silenced, not a frame it understands).
  std::optional<SimReply> OnFrame(std::span<const std::uint8_t> data, std::int64_t now_us);

  // The torque law for the physics step that starts at `now_us`.
  TorqueLaw LawAt(std::int64_t now_us);
  // The step of `dt_s` that began at `start_us` ended with the shaft in `shaft`.
  void OnStep(const ShaftState& shaft, std::int64_t start_us, double dt_s);

  // Fault injection.
  void PinTemperature(double celsius);
  void ReleaseTemperature();
  void SetSilenced(bool silenced) { silenced_ = silenced; }
  void SetErrorCode(std::uint8_t code) { error_code_ = code; }

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

  SimMotorParams params_;
  std::int64_t last_step_us_ = 0;  // start of the last physics step

  ShaftState shaft_;  // after the last physics step, true frame
  double temperature_c_;
  double zero_offset_rad_ = 0;  // reported position = shaft position − zero offset

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
