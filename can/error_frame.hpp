// What a SocketCAN error frame (can_id & CAN_ERR_FLAG) says, as a pure function.
#pragma once

#include <linux/can.h>

#include "can/transport.hpp"

namespace robot_edge::can {

struct ErrorFrameInfo {
  bool bus_off = false;                // CAN_ERR_BUSOFF: the controller left the bus
  bool restarted = false;              // CAN_ERR_RESTARTED: the controller is back after bus-off
  bool controller_problem = false;     // CAN_ERR_CRTL: warning / passive / overflow (data[1])
  bool protocol_or_bus_error = false;  // CAN_ERR_PROT, CAN_ERR_BUSERROR, CAN_ERR_ACK, ...
};

// Meaningful only for frames with CAN_ERR_FLAG set.
ErrorFrameInfo ClassifyErrorFrame(const can_frame& frame);

// Counts an error frame in `counters` and tracks bus-off (what every Bus does with them).
void CountErrorFrame(const can_frame& frame, BusCounters* counters);

inline bool IsErrorFrame(const can_frame& frame) { return (frame.can_id & CAN_ERR_FLAG) != 0; }

}  // namespace robot_edge::can
