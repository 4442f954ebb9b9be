// What stops every motor when robot-edged's control loop cannot: DAMP (kp 0, the joint's damp_kd,
// no velocity, no torque) then disable (exit motor mode, FD for ak/damiao) to every configured
// motor, each in its family's format (motor_protocol.hpp), as raw frames with
// their destinations, and a sender made of async-signal-safe calls only (sendto, nanosleep), so
// that a fatal-signal handler may use it as well as `robot-edged --emergency-damp`.
//
// Threads: EmergencyFrames() at start-up (it allocates); SendRaw() from anywhere, a signal
// handler included.
#pragma once

#include <linux/can.h>

#include <cstddef>
#include <string>
#include <vector>

#include "config/config.hpp"

namespace robot_edge::can {

// A frame and where it goes: the interface in `address` (for a CAN_RAW socket bound to all).
struct RawFrame {
  sockaddr_can address{};
  can_frame frame{};
  std::size_t bus = 0;  // index into config.buses, for reports
};

// One DAMP frame per motor, then one disable per motor, in firmware order. A bus whose interface
// does not exist is left out and named in *missing (interface names).
std::vector<RawFrame> EmergencyFrames(const config::Config& config,
                                      std::vector<std::string>* missing);

// Sends each frame with sendto(MSG_DONTWAIT). A full transmit queue (ENOBUFS / EAGAIN) is retried
// up to `retries` times, 200 µs apart; any other error gives that frame up. Returns how many were
// sent; `sent`, when not null, gets one flag per frame. Async-signal-safe.
std::size_t SendRaw(int fd, const RawFrame* frames, std::size_t count, int retries,
                    bool* sent = nullptr);

}  // namespace robot_edge::can
