#include "statemachine/admission.hpp"

#include "statemachine/joint_stream.hpp"

namespace robot_edge::sm {
namespace {

// Why a JointCommand cannot be applied beyond the transition table, or nullopt.
std::optional<Reason> RefusedJointCommand(const AdmissionView& view, const Command& command,
                                          std::int64_t now_us) {
  const JointStreamCommand& c = *command.joint_stream;
  if (view.mode != Mode::kMoveJointStream && !c.has_gains) return Reason::kJointStreamNoGains;
  if (c.end_us < now_us) return Reason::kJointStreamExpired;
  return std::nullopt;
}

// What blocks leaving DAMP (and a jog), in order; nullopt: nothing.
std::optional<Reason> WhyBlocked(const AdmissionView& view, const Command& command) {
  if (view.critical_alert) return Reason::kBlockedByAlert;
  if (!view.motors_replied) return Reason::kMotorsNotReady;
  if (!view.imu_received) return Reason::kImuNotReady;
  if (view.calibration_stale) return Reason::kCalibrationStale;
  if (view.stop_latched && !ReleasesLatch(view, command)) return Reason::kStopLatched;
  if (command.sent_us < view.damp_entered_us) return Reason::kSentBeforeDamp;
  if (IsStreamPacket(command.kind) && view.stream_damped) return Reason::kTrajectoryStreamDamped;
  return std::nullopt;
}

}  // namespace

bool ReleasesLatch(const AdmissionView& view, const Command& command) {
  if (command.kind == CommandKind::kReleaseStop) return true;
  return command.kind == CommandKind::kMode && command.mode == ModeRequest::kStand &&
         command.from_controller && view.latch_holder[0] != '\0' &&
         command.holder == view.latch_holder;
}

Admission Admit(const AdmissionView& view, const Command& command, std::int64_t now_us) {
  Admission a;
  a.transition = Decide(view.mode, command.kind, command.mode, view.policy_available);
  if (!a.transition.allowed) {
    a.refused = a.transition.refused;
    return a;
  }
  if (command.kind == CommandKind::kJointStream) {
    a.refused = RefusedJointCommand(view, command, now_us);
    if (a.refused) return a;
  }
  if (view.mode == Mode::kDamp && a.transition.next != Mode::kDamp) {
    a.refused = WhyBlocked(view, command);
    a.blocked_leaving_damp = a.refused.has_value();
  } else if (command.kind == CommandKind::kJog) {
    a.refused = WhyBlocked(view, command);
  }
  return a;
}

}  // namespace robot_edge::sm
