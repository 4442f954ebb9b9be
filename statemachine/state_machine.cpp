#include "statemachine/state_machine.hpp"

#include <algorithm>
#include <cmath>

#include "statemachine/stand_ramp.hpp"
#include "statemachine/transitions.hpp"

namespace robot_edge::sm {

StateMachine::StateMachine(const MachineOptions& options, const JointTable& joints, Policy* policy)
    : joints_(joints),
      policy_(policy),
      on_policy_fault_(options.on_policy_fault),
      period_us_(options.period_us),
      trajectory_timeout_us_(static_cast<std::int64_t>(options.trajectory_timeout_ms) * 1000),
      stand_ramp_s_(options.stand_ramp_s),
      alerts_(options.alerts, joints),
      events_(kEventCapacity),
      stand_start_rad_(joints.size()),
      trajectory_(joints.size(), options.max_segments),
      joint_stream_(joints.size()),
      shaper_(joints),
      shape_trajectory_(options.shape_trajectory),
      latch_enabled_(options.latch_external_damp),
      targets_(joints.size()) {
  for (const JointParams& joint : joints_) last_position_rad_.push_back(joint.stand_rad);
}

void StateMachine::BeginTick() {
  if (events_reported_) {
    events_.Clear();
    events_reported_ = false;
  }
}

SubmitResult StateMachine::Submit(std::int64_t now_us, const Command& command) {
  BeginTick();
  const bool streamed = IsStreamPacket(command.kind);
  bool continues_stream = false;
  if (streamed) {
    continues_stream =
        last_packet_us_ >= 0 && command.received_us - last_packet_us_ < trajectory_timeout_us_;
    last_packet_us_ = command.received_us;
  }
  AdmissionView view = admission_view();
  // A packet that starts a new stream is not the DAMPed stream's.
  if (streamed && !continues_stream) view.stream_damped = false;
  const Admission a = Admit(view, command, now_us);
  const bool judged_leaving_damp = a.blocked_leaving_damp || (!a.refused && mode_ == Mode::kDamp &&
                                                              a.transition.next != Mode::kDamp);
  if (judged_leaving_damp && streamed && !continues_stream) {  // a new stream starts over
    stream_damped_ = false;
    stream_block_reason_ = Reason::kCount;
  }
  if (a.blocked_leaving_damp) ReportBlocked(now_us, *a.refused, a.transition.next, streamed);
  if (a.refused) {
    counters_.Count(*a.refused);
    return {false, *a.refused, mode_};
  }
  Apply(now_us, command, a.transition.next);
  if (latch_.latched && ReleasesLatch(view, command)) latch_ = StopLatch{};
  if (command.latches && a.transition.next == Mode::kDamp) LatchStop(command);
  if (command.source == CommandSource::kClient) last_command_sequence_ = command.sequence;
  return {true, Reason::kCount, mode_};
}

AdmissionView StateMachine::admission_view() const {
  AdmissionView v;
  v.mode = mode_;
  v.policy_available = policy_ != nullptr;
  v.critical_alert = alerts_.FirstCritical() != nullptr;
  v.motors_replied = alerts_.all_motors_replied();
  v.imu_received = alerts_.imu_received();
  v.calibration_stale = calibration_stale_;
  v.stop_latched = latch_.latched;
  v.latch_holder = latch_.holder;
  v.damp_entered_us = damp_entered_us_;
  v.stream_damped = stream_damped_;
  return v;
}

void StateMachine::ReportBlocked(std::int64_t now_us, Reason reason, Mode requested,
                                 bool streamed) {
  Event e;
  e.kind = EventKind::kModeBlocked;
  e.time_us = now_us;
  e.reason = reason;
  e.from = Mode::kDamp;
  e.to = requested;
  if (const Alert* blocking = alerts_.FirstCritical(); blocking != nullptr) e.alert = *blocking;
  if (reason == Reason::kStopLatched) e.stopped_by = latch_.stopped_by;
  // A blocked stream reports once per stream and reason, not at 50 Hz.
  if (!streamed || e.reason != stream_block_reason_) events_.Push(e);
  if (streamed) stream_block_reason_ = e.reason;
}

void StateMachine::LatchStop(const Command& command) {
  if (!latch_enabled_) return;
  if (latch_.latched) return;  // the first stop is the one to release: later DAMPs keep it
  latch_.latched = true;
  latch_.stopped_by = command.sender;
  latch_.holder = command.holder;
}

void StateMachine::RestoreStopLatch(const StopLatch& latch) {
  if (!latch.latched) return;
  latch_ = latch;
  latch_.stopped_by.back() = '\0';
  latch_.holder.back() = '\0';
}

bool StateMachine::StreamRunning(std::int64_t now_us) const {
  return last_packet_us_ >= 0 && now_us - last_packet_us_ < trajectory_timeout_us_;
}

void StateMachine::Apply(std::int64_t now_us, const Command& command, Mode next) {
  if (command.kind != CommandKind::kJog) jog_.Stop();  // a DAMP (any command) ends a jog
  switch (command.kind) {
    case CommandKind::kMode: break;
    case CommandKind::kVelocity: velocity_ = command.velocity; break;
    case CommandKind::kTrajectory:
      trajectory_.CopyFrom(*command.trajectory);
      trajectory_start_us_ = now_us;
      last_stream_us_ = command.received_us;
      break;
    case CommandKind::kJointStream:
      // Applied no earlier than it arrived (the tick's time is read before its commands).
      joint_stream_.Set(std::max(now_us, command.received_us), *command.joint_stream);
      last_stream_us_ = command.received_us;
      break;
    case CommandKind::kJog:
      // In DAMP the last target of a joint is its measured position.
      jog_.Set(now_us, command.jog, targets_[command.jog.joint].position_rad,
               joints_[command.jog.joint]);
      break;
    case CommandKind::kStopWalking: velocity_ = Velocity{}; break;
    case CommandKind::kZeroSet: calibration_stale_ = true; break;
    case CommandKind::kReleaseStop: break;  // the latch is cleared by Submit()
  }
  if (next != mode_) EnterMode(now_us, next, Cause::kCommand);
}

void StateMachine::EnterMode(std::int64_t now_us, Mode next, Cause cause) {
  Event e;
  e.kind = EventKind::kModeChanged;
  e.time_us = now_us;
  e.from = mode_;
  e.to = next;
  e.cause = cause;
  events_.Push(e);
  jog_.Stop();
  if (next != Mode::kMovePolicy) velocity_ = Velocity{};  // velocity persists only in POLICY
  if (next == Mode::kStand) stand_start_pending_ = true;
  if (next == Mode::kMovePolicy) {
    if (policy_ != nullptr) policy_->Reset(now_us);
    policy_entered_us_ = now_us;
    policy_targets_us_ = -1;
  }
  if (next != Mode::kMoveTrajectory) trajectory_.Clear();
  if (next == Mode::kDamp) damp_entered_us_ = now_us;
  if (Shaped(next)) shaper_.Reset(now_us, targets_);  // DAMP: the measured pose
  stream_damped_ = next == Mode::kDamp && StreamRunning(now_us);
  stream_block_reason_ = Reason::kCount;
  mode_ = next;
}

const Outputs& StateMachine::Step(std::int64_t now_us, const Inputs& in) {
  BeginTick();
  alerts_.Update(now_us, in, &events_);
  CheckSafety(now_us);
  CheckVelocityLimit(now_us, in);
  ComputeTargets(now_us, in);
  Sanitize();
  events_reported_ = true;

  outputs_.mode = mode_;
  outputs_.targets = targets_;
  outputs_.error_flags = alerts_.error_flags();
  outputs_.alerts = alerts_.active();
  outputs_.events = events_.events();
  outputs_.velocity = velocity_;
  outputs_.last_command_sequence = last_command_sequence_;
  outputs_.user_command_key = joint_stream_.key();
  outputs_.user_command_key_applied_us = joint_stream_.applied_us();
  return outputs_;
}

void StateMachine::CheckSafety(std::int64_t now_us) {
  if (mode_ != Mode::kDamp && alerts_.FirstCritical() != nullptr) {
    EnterMode(now_us, Mode::kDamp, Cause::kAlert);
  }
  if (IsStreamed(mode_) && now_us - last_stream_us_ >= trajectory_timeout_us_) {
    Event e;
    e.kind = EventKind::kTrajectoryTimeout;
    e.time_us = now_us;
    e.from = mode_;
    e.silence_ms = static_cast<std::uint32_t>((now_us - last_stream_us_) / 1000);
    events_.Push(e);
    EnterMode(now_us, Mode::kDamp, Cause::kTrajectoryTimeout);
  }
}

// The joint stream's velocity_safety_limit: any measured joint faster than it DAMPs at once.
void StateMachine::CheckVelocityLimit(std::int64_t now_us, const Inputs& in) {
  if (!IsStreamed(mode_)) return;
  Event e;
  e.kind = EventKind::kVelocityLimit;
  e.time_us = now_us;
  const int over = OverJointVelocity(in.joints);
  if (over >= 0) {
    e.joint = static_cast<std::uint32_t>(over);
    e.limit_rad_s = joints_[e.joint].velocity_trip_rad_s;
    e.joint_limit = true;
  } else if (mode_ == Mode::kMoveJointStream) {
    const int j = joint_stream_.OverVelocityLimit(in.joints);
    if (j < 0) return;
    e.joint = static_cast<std::uint32_t>(j);
    e.limit_rad_s = joint_stream_.command().velocity_limit_rad_s;
  } else {
    return;
  }
  e.velocity_rad_s = in.joints[e.joint].velocity_rad_s;
  events_.Push(e);
  EnterMode(now_us, Mode::kDamp, Cause::kVelocityLimit);
}

int StateMachine::OverJointVelocity(std::span<const JointMeasurement> joints) const {
  for (std::size_t j = 0; j < joints.size() && j < joints_.size(); ++j) {
    const float trip = joints_[j].velocity_trip_rad_s;
    if (trip > 0 && std::fabs(joints[j].velocity_rad_s) > trip) return static_cast<int>(j);
  }
  return -1;
}

void StateMachine::LimitTorqueReach(const Inputs& in) {
  for (std::size_t j = 0; j < targets_.size() && j < in.joints.size(); ++j) {
    JointTarget& t = targets_[j];
    const float reach_nm = joints_[j].reach_nm;
    if (reach_nm <= 0 || !(t.kp > 0) || !std::isfinite(t.position_rad)) continue;
    const float q = in.joints[j].position_rad;
    if (!std::isfinite(q)) continue;
    const float left = reach_nm - std::min(std::fabs(t.torque_nm), reach_nm);
    const float reach = left / t.kp;
    t.position_rad = std::clamp(t.position_rad, q - reach, q + reach);
  }
}

void StateMachine::ComputeTargets(std::int64_t now_us, const Inputs& in) {
  switch (mode_) {
    case Mode::kDamp: DampTargets(now_us, in); break;
    case Mode::kStand: StandTargets(now_us, in); break;
    case Mode::kMoveTrajectory: TrajectoryTargets(now_us); break;
    case Mode::kMoveJointStream: joint_stream_.Targets(now_us, targets_); break;
    case Mode::kMovePolicy: PolicyTargets(now_us, in); break;
  }
  if (Shaped(mode_)) shaper_.Apply(now_us, targets_);
  if (mode_ == Mode::kMoveJointStream) LimitTorqueReach(in);
}

void StateMachine::DampTargets(std::int64_t now_us, const Inputs& in) {
  for (std::size_t j = 0; j < targets_.size(); ++j) {
    const float measured = j < in.joints.size() ? in.joints[j].position_rad : 0.0f;
    targets_[j] = {measured, 0.0f, 0.0f, joints_[j].damp_kd, 0.0f};
  }
  if (alerts_.FirstCritical() != nullptr) jog_.Stop();
  if (jog_.active()) {
    const std::uint32_t j = jog_.joint();
    jog_.Step(now_us, trajectory_timeout_us_, joints_[j], &targets_[j]);
  }
}

void StateMachine::StandTargets(std::int64_t now_us, const Inputs& in) {
  if (stand_start_pending_) {
    for (std::size_t j = 0; j < targets_.size(); ++j) {
      const float measured =
          j < in.joints.size() ? in.joints[j].position_rad : joints_[j].stand_rad;
      stand_start_rad_[j] = std::clamp(measured, joints_[j].min_rad, joints_[j].max_rad);
    }
    stand_start_us_ = now_us;
    stand_start_pending_ = false;
  }
  const RampPoint r =
      StandRamp(static_cast<double>(now_us - stand_start_us_) * 1e-6, stand_ramp_s_);
  for (std::size_t j = 0; j < targets_.size(); ++j) {
    const float span = joints_[j].stand_rad - stand_start_rad_[j];
    targets_[j] = {stand_start_rad_[j] + r.fraction * span, r.rate_per_s * span, joints_[j].kp,
                   joints_[j].kd, 0.0f};
  }
}

void StateMachine::TrajectoryTargets(std::int64_t now_us) {
  if (trajectory_.segments() == 0) return;  // cannot happen in this mode; keep last targets
  const auto elapsed = static_cast<std::size_t>(
      std::max<std::int64_t>(0, now_us - trajectory_start_us_) / period_us_);
  const std::size_t s = std::min(elapsed, trajectory_.segments() - 1);
  const auto pos = trajectory_.positions(s), kp = trajectory_.kp(s), kd = trajectory_.kd(s);
  for (std::size_t j = 0; j < targets_.size(); ++j)
    targets_[j] = {pos[j], 0.0f, kp[j], kd[j], 0.0f};
}

// Until the policy's first targets the stand pose holds (MOVE/POLICY is entered from STAND).
// Any fault of the policy — non-finite output, stale targets (a stalled inference thread), a
// failed thread, or no targets at all within kPolicyFirstTargetsUs — ends MOVE/POLICY at once:
// the walking velocity is cleared and the robot goes to STAND, which ramps from the measured
// pose (not a jump), or to DAMP (policy.on_fault), and says why.
void StateMachine::PolicyTargets(std::int64_t now_us, const Inputs& in) {
  PolicyResult r;
  if (policy_ != nullptr) r = policy_->Targets(now_us, velocity_, in, targets_);
  if (r.status == PolicyStatus::kTargets) {
    policy_targets_us_ = now_us;
    return;
  }
  if (r.status == PolicyStatus::kWaiting && now_us - policy_entered_us_ >= kPolicyFirstTargetsUs) {
    r = {PolicyStatus::kFault, PolicyFault::kNoTargets,
         static_cast<std::uint32_t>((now_us - policy_entered_us_) / 1000)};
  }
  if (r.status == PolicyStatus::kFault) {
    PolicyFaulted(now_us, in, r);
    return;
  }
  for (std::size_t j = 0; j < targets_.size(); ++j) HoldStandPose(j);
}

void StateMachine::PolicyFaulted(std::int64_t now_us, const Inputs& in, const PolicyResult& r) {
  Event e;
  e.kind = EventKind::kPolicyFault;
  e.time_us = now_us;
  e.policy_fault = r.fault;
  e.detail = r.detail;
  events_.Push(e);
  const bool damp = on_policy_fault_ == PolicyFaultAction::kDamp;
  EnterMode(now_us, damp ? Mode::kDamp : Mode::kStand, Cause::kPolicyFault);
  if (damp) {
    DampTargets(now_us, in);
  } else {
    StandTargets(now_us, in);
  }
}

void StateMachine::HoldStandPose(std::size_t j) {
  targets_[j] = {joints_[j].stand_rad, 0.0f, joints_[j].kp, joints_[j].kd, 0.0f};
}

// Every target that leaves the state machine is finite and within the joint's and the motor's
// ranges. A non-finite position holds the joint's last target (never a jump to a default pose).
void StateMachine::Sanitize() {
  for (std::size_t j = 0; j < targets_.size(); ++j) {
    JointTarget& t = targets_[j];
    const JointParams& l = joints_[j];
    if (!std::isfinite(t.position_rad)) t.position_rad = last_position_rad_[j];
    if (!std::isfinite(t.kp)) t.kp = l.kp;
    if (!std::isfinite(t.kd)) t.kd = l.kd;
    if (!std::isfinite(t.velocity_rad_s)) t.velocity_rad_s = 0.0f;
    if (!std::isfinite(t.torque_nm)) t.torque_nm = 0.0f;
    t.position_rad = std::clamp(t.position_rad, l.min_rad, l.max_rad);
    t.kp = std::clamp(t.kp, 0.0f, l.kp_cap);
    t.kd = std::clamp(t.kd, 0.0f, l.kd_cap);
    t.velocity_rad_s = std::clamp(t.velocity_rad_s, -l.v_cap_rad_s, l.v_cap_rad_s);
    t.torque_nm = std::clamp(t.torque_nm, -l.t_cap_nm, l.t_cap_nm);
    last_position_rad_[j] = t.position_rad;
  }
}

}  // namespace robot_edge::sm
