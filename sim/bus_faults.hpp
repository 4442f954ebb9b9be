// Bus-level fault injection: error frames the simulator writes onto a bus, and taking an
// interface's link down and up.
#pragma once

#include <linux/can.h>

#include <string>

namespace robot_edge::sim {

// An error frame: can_id = CAN_ERR_FLAG | error_class (e.g. CAN_ERR_BUSOFF, CAN_ERR_RESTARTED),
// len = CAN_ERR_DLC, data all zero. Pure. Written to a vcan it reaches every reader that
// enabled error frames (CAN_RAW_ERR_FILTER), as a real controller's would.
can_frame MakeErrorFrame(canid_t error_class);

// Sets (up) or clears (down) IFF_UP on `interface` with ioctl(SIOCSIFFLAGS). Returns "" on
// success, else a readable reason (CAP_NET_ADMIN is needed). Two system calls; for the control
// path only.
std::string SetLinkUp(const std::string& interface, bool up);

}  // namespace robot_edge::sim
