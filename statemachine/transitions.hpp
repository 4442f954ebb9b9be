// Seed 000's "Allowed Transitions" table, and nothing else: which command may do what in which
// mode. Alerts that block leaving DAMP are applied by the state machine on top of this.
#pragma once

#include <optional>

#include "statemachine/counters.hpp"
#include "statemachine/io.hpp"
#include "statemachine/modes.hpp"

namespace robot_edge::sm {

struct Transition {
  bool allowed = false;
  Mode next = Mode::kDamp;          // when allowed
  Reason refused = Reason::kCount;  // when not allowed
};

//  From      To               Command
//  Any       DAMP             ModeCommand(DAMP)      always: emergency stop
//  DAMP      STAND            ModeCommand(STAND)
//  STAND     MOVE/POLICY      VelocityCommand        needs a policy
//  STAND     MOVE/TRAJECTORY  TrajectoryRequest
//  DAMP      MOVE/TRAJECTORY  TrajectoryRequest
//  MOVE      STAND            ModeCommand(STAND)
// plus staying put: STAND on STAND, a new velocity in MOVE/POLICY, a new trajectory in
// MOVE/TRAJECTORY. kStopWalking never changes the mode. robot-edge's extension adds
//  DAMP      MOVE/JOINT_STREAM  JointCommand
//  STAND     MOVE/JOINT_STREAM  JointCommand
// and a new JointCommand in MOVE/JOINT_STREAM; the other MOVEs refuse it, and it refuses them.
Transition Decide(Mode from, CommandKind kind, ModeRequest request, bool policy_available);

}  // namespace robot_edge::sm
