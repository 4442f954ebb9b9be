#include "statemachine/transitions.hpp"

namespace robot_edge::sm {
namespace {

Transition To(Mode next) { return {true, next, Reason::kCount}; }
Transition Refuse(Reason reason) { return {false, Mode::kDamp, reason}; }

Transition DecideMode(ModeRequest request) {
  if (request == ModeRequest::kDamp) return To(Mode::kDamp);
  return To(Mode::kStand);  // from DAMP, from MOVE, or STAND staying STAND
}

Transition DecideVelocity(Mode from, bool policy_available) {
  switch (from) {
    case Mode::kDamp: return Refuse(Reason::kVelocityInDamp);
    case Mode::kStand:
      return policy_available ? To(Mode::kMovePolicy) : Refuse(Reason::kVelocityNoPolicy);
    case Mode::kMovePolicy: return To(Mode::kMovePolicy);
    case Mode::kMoveTrajectory: return Refuse(Reason::kVelocityInTrajectory);
    case Mode::kMoveJointStream: return Refuse(Reason::kVelocityInJointStream);
  }
  return Refuse(Reason::kVelocityInDamp);
}

Transition DecideTrajectory(Mode from) {
  if (from == Mode::kMovePolicy) return Refuse(Reason::kTrajectoryInPolicy);
  if (from == Mode::kMoveJointStream) return Refuse(Reason::kTrajectoryInJointStream);
  return To(Mode::kMoveTrajectory);  // from DAMP, STAND, or streaming on
}

Transition DecideJointStream(Mode from) {
  if (from == Mode::kMovePolicy || from == Mode::kMoveTrajectory) {
    return Refuse(Reason::kJointStreamInMove);
  }
  return To(Mode::kMoveJointStream);  // from DAMP, STAND, or streaming on
}

}  // namespace

Transition Decide(Mode from, CommandKind kind, ModeRequest request, bool policy_available) {
  switch (kind) {
    case CommandKind::kMode: return DecideMode(request);
    case CommandKind::kVelocity: return DecideVelocity(from, policy_available);
    case CommandKind::kTrajectory: return DecideTrajectory(from);
    case CommandKind::kJointStream: return DecideJointStream(from);
    case CommandKind::kStopWalking:
    case CommandKind::kZeroSet:
    case CommandKind::kReleaseStop: return To(from);
    case CommandKind::kJog:
      return from == Mode::kDamp ? To(Mode::kDamp) : Refuse(Reason::kJogNotInDamp);
  }
  return Refuse(Reason::kEmptyCommand);
}

}  // namespace robot_edge::sm
