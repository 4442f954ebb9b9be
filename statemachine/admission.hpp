// Whether the state machine takes a command, judged on a view of its state (pure).
//
// StateMachine::Submit decides with its own view, on the control thread. The API thread judges a
// command with the last view the control thread published (ControlSnapshot::admission) before
// control changes hands for it (daemon/api/command_intake.hpp): a command the state machine would
// refuse takes no control. The checks run in the state machine's order: the transition table
// (transitions.hpp), a JointCommand's own checks, then what blocks leaving DAMP, then what blocks
// a jog.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

#include "statemachine/counters.hpp"
#include "statemachine/io.hpp"
#include "statemachine/modes.hpp"
#include "statemachine/transitions.hpp"

namespace robot_edge::sm {

struct AdmissionView {
  Mode mode = Mode::kDamp;
  bool policy_available = false;
  bool critical_alert = false;  // an alert that blocks leaving DAMP is active
  bool motors_replied = false;  // every motor has replied at least once
  bool imu_received = false;
  bool calibration_stale = false;  // a motor's zero was set since the calibration was read
  bool stop_latched = false;
  SenderLabel latch_holder{};  // the controller that held control when the stop latched
  // When DAMP was last entered (boot included; steady clock, µs): commands sent before cannot
  // leave it.
  std::int64_t damp_entered_us = std::numeric_limits<std::int64_t>::min();
  // DAMP interrupted a running stream: that stream's packets stay refused (the state machine
  // clears it for a packet that starts a new stream).
  bool stream_damped = false;
};

struct Admission {
  Transition transition;              // the table's answer
  std::optional<Reason> refused;      // nullopt: taken
  bool blocked_leaving_damp = false;  // refused by what blocks leaving DAMP (MODE_BLOCKED)
};

// `now_us`: the state machine's clock (a JointCommand's end_us is compared with it).
Admission Admit(const AdmissionView& view, const Command& command, std::int64_t now_us);

// A latched stop is released by kReleaseStop, or by a ModeCommand(STAND) from the client in
// control whose holder is the controller that held control when it latched.
bool ReleasesLatch(const AdmissionView& view, const Command& command);

}  // namespace robot_edge::sm
