// What the control thread tells the API thread: state machine events (alerts, mode changes,
// timeouts) and the outcome of each command. Plain values, queued without allocation.
#pragma once

#include <cstdint>

#include "statemachine/io.hpp"

namespace robot_edge::daemon {

struct ControlEvent {
  enum class Kind : std::uint8_t { kStateMachine, kCommandResult };

  Kind kind = Kind::kStateMachine;
  sm::Event event;              // kStateMachine
  std::uint64_t client_id = 0;  // kCommandResult: who sent it
  std::uint32_t sequence = 0;   // kCommandResult: CloudCommand.sequence
  sm::SubmitResult result;      // kCommandResult
};

}  // namespace robot_edge::daemon
