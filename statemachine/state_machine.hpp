// The DAMP / STAND / MOVE state machine: pure logic with time passed in — no clock, socket,
// thread or logging inside (the model: PX4's failsafe library). Each mode's contract is in
// modes.hpp, the transition table in transitions.hpp, the alerts in alerts.hpp.
//
// Per control tick the owner calls Submit() for each command that arrived, then Step() once:
//   Submit(now, command) -> accepted or dropped with a reason (counted); may change the mode.
//   Step(now, inputs)    -> alerts, the trajectory watchdog, and one target per joint.
//
// Threads: one owner (the control thread). After construction nothing allocates or throws.
#pragma once

#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "statemachine/admission.hpp"
#include "statemachine/alerts.hpp"
#include "statemachine/counters.hpp"
#include "statemachine/events.hpp"
#include "statemachine/io.hpp"
#include "statemachine/jog.hpp"
#include "statemachine/joint_params.hpp"
#include "statemachine/joint_stream.hpp"
#include "statemachine/modes.hpp"
#include "statemachine/options.hpp"
#include "statemachine/policy.hpp"
#include "statemachine/target_shaper.hpp"
#include "statemachine/trajectory.hpp"

namespace robot_edge::sm {

struct Outputs {
  Mode mode = Mode::kDamp;
  std::span<const JointTarget> targets;  // one per joint, firmware order, clamped
  std::uint32_t error_flags = 0;
  std::span<const Alert> alerts;  // active alerts
  // Events since the previous Step(), including those of the Submit() calls in between.
  std::span<const Event> events;
  Velocity velocity;  // walking velocity in MOVE/POLICY, else 0
  std::uint32_t last_command_sequence = 0;
  // MOVE/JOINT_STREAM: the user_command_key of the command these targets come from, and when it
  // was applied (robot time, µs; -1 = no command yet). Kept after the stream ends.
  std::uint32_t user_command_key = 0;
  std::int64_t user_command_key_applied_us = -1;
};

class StateMachine {
 public:
  static constexpr std::size_t kEventCapacity = 256;
  // MOVE/POLICY without a first target for this long counts as a stalled policy.
  static constexpr std::int64_t kPolicyFirstTargetsUs = 1'000'000;

  // `joints`: one per joint, firmware order (copied). `policy` may be null: no policy
  // configured, velocity commands are refused in STAND. Not owned; must outlive the state
  // machine.
  StateMachine(const MachineOptions& options, const JointTable& joints, Policy* policy);

  // Every Submit() and Step() gets the same `now_us` within a control tick, and time never goes
  // backwards.

  SubmitResult Submit(std::int64_t now_us, const Command& command);
  const Outputs& Step(std::int64_t now_us, const Inputs& inputs);

  Mode mode() const { return mode_; }
  // The joint a jog moves now (in DAMP), or -1.
  int jogging_joint() const { return jog_.active() ? static_cast<int>(jog_.joint()) : -1; }
  const Counters& counters() const { return counters_; }
  std::uint64_t events_dropped() const { return events_.dropped(); }

  // The stop latch, for the owner to keep on disk (daemon/stop_latch_file.hpp) so that a stop
  // outlives the process; RestoreStopLatch() puts back a kept one before the first tick (a
  // restored latch holds even with safety.latch_external_damp off: it was latched when on).
  const StopLatch& stop_latch() const { return latch_; }
  void RestoreStopLatch(const StopLatch& latch);
  // What decides whether a command is taken, for the API thread's door (admission.hpp).
  AdmissionView admission_view() const;

 private:
  // A MODE_BLOCKED event for a command refused leaving DAMP: once per stream and reason.
  void ReportBlocked(std::int64_t now_us, Reason reason, Mode requested, bool streamed);
  // The stop latch: a latching DAMP sets it (admission.hpp says what releases it).
  void LatchStop(const Command& command);
  bool StreamRunning(std::int64_t now_us) const;
  void Apply(std::int64_t now_us, const Command& command, Mode next);
  void EnterMode(std::int64_t now_us, Mode next, Cause cause);
  void CheckSafety(std::int64_t now_us);
  void CheckVelocityLimit(std::int64_t now_us, const Inputs& in);
  // The first joint measured faster than its max_velocity, or -1.
  int OverJointVelocity(std::span<const JointMeasurement> joints) const;
  // MOVE/JOINT_STREAM: kp·|q_des − q| + |τ_ff| stays within the joint's reach_nm (max_torque).
  void LimitTorqueReach(const Inputs& in);
  void ComputeTargets(std::int64_t now_us, const Inputs& in);
  void DampTargets(std::int64_t now_us, const Inputs& in);
  void StandTargets(std::int64_t now_us, const Inputs& in);
  void TrajectoryTargets(std::int64_t now_us);
  void PolicyTargets(std::int64_t now_us, const Inputs& in);
  void PolicyFaulted(std::int64_t now_us, const Inputs& in, const PolicyResult& result);
  void HoldStandPose(std::size_t joint);
  void Sanitize();
  void BeginTick();

  JointTable joints_;
  Policy* policy_;
  PolicyFaultAction on_policy_fault_;
  std::int64_t period_us_;
  std::int64_t trajectory_timeout_us_;
  double stand_ramp_s_;
  AlertMonitor alerts_;
  EventBuffer events_;
  Counters counters_;
  bool events_reported_ = false;

  Mode mode_ = Mode::kDamp;
  // When DAMP was last entered (boot included): commands sent before cannot leave it.
  std::int64_t damp_entered_us_ = std::numeric_limits<std::int64_t>::min();
  Velocity velocity_;
  std::uint32_t last_command_sequence_ = 0;
  // STAND ramp.
  bool stand_start_pending_ = false;
  std::int64_t stand_start_us_ = 0;
  std::vector<float> stand_start_rad_;
  // MOVE/POLICY.
  std::int64_t policy_entered_us_ = 0;
  std::int64_t policy_targets_us_ = -1;  // last tick the policy gave targets; -1 = not yet
  // MOVE/TRAJECTORY. Segment s plays from trajectory_start_us_ + s periods (by the clock, so a
  // late tick does not slow the trajectory down); the last one holds.
  Trajectory trajectory_;
  std::int64_t trajectory_start_us_ = 0;
  // MOVE/JOINT_STREAM.
  JointStream joint_stream_;
  // The configured guards on streamed targets (target_limits): MOVE/JOINT_STREAM always,
  // MOVE/TRAJECTORY only with control.shape_trajectory (seed 000 applies its targets as sent).
  TargetShaper shaper_;
  bool shape_trajectory_;
  bool Shaped(Mode mode) const {
    return mode == Mode::kMoveJointStream || (mode == Mode::kMoveTrajectory && shape_trajectory_);
  }
  // Both streamed MOVEs: a TrajectoryRequest or a JointCommand is a packet of the stream.
  std::int64_t last_stream_us_ = 0;   // received_us of the last accepted packet (watchdog)
  std::int64_t last_packet_us_ = -1;  // received_us of the last packet, accepted or not
  // DAMP (a command or an alert) interrupted a running stream: that stream's packets
  // cannot take the robot out of DAMP again (an emergency stop must not last one packet). A
  // pause of the trajectory timeout, or STAND, starts over.
  bool stream_damped_ = false;
  Reason stream_block_reason_ = Reason::kCount;  // last MODE_BLOCKED reported for this stream

  Jog jog_;  // DAMP only: one joint moved gently (bring-up)

  // The stop latch (safety.latch_external_damp): someone other than the client in control sent
  // DAMP; every leave-DAMP (and jog) is refused until that client sends ModeCommand(STAND).
  // A motor's zero was set since the calibration was read: leaving DAMP (and jogging) is refused.
  bool calibration_stale_ = false;
  bool latch_enabled_;
  StopLatch latch_;

  std::vector<JointTarget> targets_;
  // Last targets that reached the motors: a non-finite position holds the joint's last one.
  std::vector<float> last_position_rad_;
  Outputs outputs_;
};

}  // namespace robot_edge::sm
