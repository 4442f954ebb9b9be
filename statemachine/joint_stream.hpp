// MOVE/JOINT_STREAM: per-joint PD + feed-forward commands streamed by a client (edge_api.proto
// JointCommand; the models: seed 002's joint control stream, seed 004's rt/lowcmd). Pure, time
// passed in, no allocation after construction.
//
// Each joint's target is seed 002's PDFF: τ = kp·(q_des − q) + kd·(q̇_des − q̇) + τ_ff, which the
// motors compute from (position, velocity, kp, kd, torque). Times are µs of the daemon's
// monotonic clock ("robot time"; a client learns its offset by TimeSync).
//
//   position  q_des(t) = position + velocity · clamp(t − reference_time, 0, extrapolation);
//             never extrapolated backwards, not at all without a reference time.
//   end_time  after it the command stops executing: every joint holds where the command left it
//             (q_des at end_time, q̇_des 0, τ_ff 0, the command's kp / kd), until the next command
//             or the state machine's trajectory watchdog, which DAMPs once no command came for
//             control.trajectory_timeout_ms.
//   gains     required on the first command of a stream; a later command without gains keeps
//             the previous ones.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "statemachine/io.hpp"

namespace robot_edge::sm {

// One validated command (daemon/api/command_validator.hpp builds it), preallocated for `joints`.
struct JointStreamCommand {
  explicit JointStreamCommand(std::size_t joints)
      : position_rad(joints), velocity_rad_s(joints), torque_nm(joints), kp(joints), kd(joints) {}

  // Copies every field; both have the same joint count. No allocation.
  void CopyFrom(const JointStreamCommand& other);

  std::vector<float> position_rad;    // finite, one per joint (firmware order)
  std::vector<float> velocity_rad_s;  // finite (0 when the command gave none)
  std::vector<float> torque_nm;       // finite feed-forward (0 when the command gave none)
  std::vector<float> kp;              // N·m/rad, clamped to the API range; valid when has_gains
  std::vector<float> kd;              // N·m·s/rad
  bool has_gains = false;
  std::int64_t end_us = 0;            // robot time; > 0
  std::int64_t reference_us = 0;      // robot time; 0 = no extrapolation
  std::int64_t extrapolation_us = 0;  // >= 0
  std::uint32_t key = 0;              // user_command_key, echoed in telemetry
  float velocity_limit_rad_s = 0;     // velocity_safety_limit; 0 = none
};

class JointStream {
 public:
  explicit JointStream(std::size_t joints) : command_(joints) {}

  // Takes `command` at `now_us`. A command without gains keeps the previous ones (the state
  // machine refuses one that begins a stream).
  void Set(std::int64_t now_us, const JointStreamCommand& command);

  // The targets of the tick at `now_us` (one per joint).
  void Targets(std::int64_t now_us, std::span<JointTarget> out) const;

  // True once `now_us` passed the command's end_time.
  bool Expired(std::int64_t now_us) const { return now_us > command_.end_us; }
  // The first joint whose measured |velocity| exceeds the command's velocity_safety_limit, or -1.
  int OverVelocityLimit(std::span<const JointMeasurement> joints) const;

  const JointStreamCommand& command() const { return command_; }
  std::uint32_t key() const { return command_.key; }
  std::int64_t applied_us() const { return applied_us_; }

 private:
  float Position(std::size_t joint, std::int64_t t_us) const;

  JointStreamCommand command_;
  std::int64_t applied_us_ = -1;  // when the current command was taken; -1 = never
};

}  // namespace robot_edge::sm
