// One simulated MIT-protocol motor and the joint it drives: the far end of a CAN command frame.
// Pure logic: no clock, socket or logger. Time is passed in as µs on any monotonic clock.
//
// Contract (what a real AK / mini-cheetah firmware does, and what this model does):
//   Rest mode (initial, and after FD): command frames are ignored (no reply); the motor applies no
//     torque. FC / FD / FE are honoured in every mode and answered with the current state.
//   FC (enter motor mode): motor mode on; the previous command is forgotten, so the motor stays
//     limp until the first command frame.
//   FD (exit motor mode): motor mode off, command forgotten.
//   FE (set zero): the current position reads 0 from then on (commands are in the same frame).
//   Command frame in motor mode: becomes the active command; answered with the current state.
//   Applied torque = clamp(kp·(p_des − p) + kd·(v_des − v) + t_ff, ±t_max) while in motor mode and
//     the last command is at most can_timeout_us old; otherwise 0 (limp: the firmware's own CAN
//     timeout, can_timeout_us = 0 disables it). A limp motor stays in motor mode: the next
//     command frame drives it again.
//   Silenced (fault injection: a cut cable): frames are neither processed nor answered, so the
//     motor goes limp after its timeout. Physics and temperature keep running.
//   Error code (fault injection): reported in byte 7 of the AK reply; it does not change the
//     motor's behaviour.
//   Temperature: dT/dt = heating·τ² − (T − ambient)/time_constant, unless pinned by fault
//     injection (released, it evolves again from the pinned value). Reported rounded, clamped to
//     0..255 °C (AK layout only).
//
// Physics (Advance): fixed substeps of at most kSubstepUs. The PD law and the viscous friction
// are integrated implicitly (backward Euler in the velocity, position from the new velocity), so
// the joint is stable for any configured inertia, gain or friction; a saturated torque is applied
// as a constant. J·dv/dt = τ − friction·v. Hard stops at the joint limits ± kHardStopMarginRad:
// the position is held there and the velocity towards the stop zeroed.
//
// The reply reports position (in the FE-zeroed frame), velocity, the torque applied during the
// last substep, temperature and error code.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "can/mit_codec.hpp"
#include "config/config.hpp"

namespace robot_edge::sim {

// Everything a motor needs to know about itself, from the config.
struct SimMotorParams {
  std::uint32_t can_id = 1;  // joints[i].can_id; byte 0 of every reply is its low byte
  can::MitRanges ranges;     // from the motor model
  can::ReplyLayout layout = can::ReplyLayout::kAk8Byte;
  double min_rad = -1.0;  // joint limits (rad); hard stops kHardStopMarginRad beyond them
  double max_rad = 1.0;
  double inertia_kgm2 = 0.02;  // J
  double friction_nms = 0.2;   // viscous friction (N·m·s/rad)
  double ambient_c = 30.0;     // °C
  double thermal_time_constant_s = 120.0;
  double heating_c_per_nm2_s = 0.01;      // °C/s per (N·m)²
  std::int64_t can_timeout_us = 100'000;  // limp after this long without a command; 0 = never
};

// The parameters of joint `joint` of `config` (per-joint inertia/friction, else the sim defaults).
SimMotorParams MotorParamsFor(const config::Config& config, std::size_t joint);

// A reply frame's payload: `len` bytes of `data` (8 for AK, 6 for classic).
struct SimReply {
  can::Payload data{};
  std::uint8_t len = 0;
};

// What the motor is doing now (for `get`, the status line and tests).
struct SimMotorState {
  double position_rad = 0;        // as reported: joint position minus the FE zero offset
  double joint_position_rad = 0;  // true joint position (hard stops apply to this one)
  double velocity_rad_s = 0;
  double torque_nm = 0;  // applied during the last substep
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
  static constexpr std::int64_t kSubstepUs = 500;
  static constexpr double kHardStopMarginRad = 0.05;

  // Starts at rest at `start_us`: position 0 (clamped into the hard stops), velocity 0, ambient
  // temperature, not in motor mode.
  explicit SimMotor(const SimMotorParams& params, std::int64_t start_us = 0);

  // A frame addressed to this motor arrived at `now_us` (its data bytes, any length). Advances
  // the physics to `now_us` first. Returns the reply payload, or nothing when the motor stays
  // silent (rest mode, silenced, not a frame it understands).
  std::optional<SimReply> OnFrame(std::span<const std::uint8_t> data, std::int64_t now_us);

  // Integrates physics and temperature up to `now_us`; earlier times are ignored.
  void Advance(std::int64_t now_us);

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
  void Step(std::int64_t start_us, double dt_s);
  // The command's target position in the true joint frame (rad).
  double Target() const;
  // The active command's torque at joint state (p, v), clamped to ±t_max (N·m).
  double ClampedTorque(double p, double v) const;
  SimReply MakeReply();

  SimMotorParams params_;
  std::int64_t last_us_;

  // Joint state.
  double position_rad_ = 0;  // true joint position
  double velocity_rad_s_ = 0;
  double torque_nm_ = 0;  // applied during the last substep
  double temperature_c_;
  double zero_offset_rad_ = 0;  // reported position = position_rad_ − zero_offset_rad_

  // Firmware state.
  bool motor_mode_ = false;
  bool has_command_ = false;
  can::MitCommand command_{};
  std::int64_t last_command_us_ = 0;
  bool silenced_ = false;
  bool pinned_ = false;
  std::uint8_t error_code_ = 0;
  std::uint64_t commands_ = 0;
  std::uint64_t replies_ = 0;
};

}  // namespace robot_edge::sim
