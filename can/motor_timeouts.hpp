// Start-up: each motor whose family takes it over CAN (damiao, robstride: motor_protocol.hpp) is
// told its model's can_timeout_ms, its firmware's own CAN-loss timeout, and the value is read
// back. Then a robot-edged that stops sending (killed, hung, a cut cable) leaves those motors limp
// after that long, whatever the daemon's own stops did. AK motors' timeout is set with the
// vendor's tool and only declared in the config; a model with can_timeout_ms 0 is left as its
// firmware has it (the config check warns about it).
//
// Threads: the caller's, at start-up, before the control thread owns the transport. Blocks up to
// `wait_us`, then discards whatever else arrived, so that no late reply reaches the scheduler.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "can/transport.hpp"
#include "can/wiring.hpp"

namespace robot_edge::can {

struct CanTimeoutResult {
  std::size_t joint = 0;
  std::uint32_t wanted_ms = 0;
  bool answered = false;      // a reply carried the motor's value
  std::uint32_t read_ms = 0;  // the last value the motor reported
  bool confirmed() const { return answered && read_ms == wanted_ms; }
};

// Writes, reads back and waits for the answers (see above). One result per motor told.
std::vector<CanTimeoutResult> SetMotorCanTimeouts(const Wiring& wiring, Transport& transport,
                                                  std::int64_t wait_us);

// "L_Knee (damiao id 4 on left_leg): CAN-loss timeout 100 ms confirmed" or what went wrong.
std::string Describe(const Wiring& wiring, const CanTimeoutResult& result);

}  // namespace robot_edge::can
