// What stops every motor when robot-edged's control loop cannot: DAMP (kp 0, the joint's damp_kd,
// no velocity, no torque) then disable (exit motor mode, FD for ak/damiao) to every configured
// motor, each in its family's format (motor_protocol.hpp), as raw frames with
// their destinations, and a sender made of async-signal-safe calls only (sendto, nanosleep), so
// that a fatal-signal handler may use it as well as `robot-edged --emergency-damp`.
//
// Threads: DampPlanOf(), ResolvePlan() and EmergencyFrames() at start-up (they allocate);
// SendRaw() from anywhere, a signal handler included.
#pragma once

#include <linux/can.h>

#include <cstddef>
#include <string>
#include <vector>

#include "can/wiring.hpp"

namespace robot_edge::can {

// One interface's share of the stop: its motors' DAMP frames, then their disable frames, in
// firmware order. No interface index: it is resolved when the frames are sent (an interface may
// come back with another one).
struct BusDamp {
  std::string interface;  // e.g. can0
  std::vector<can_frame> damp;
  std::vector<can_frame> exit;
};

// Per bus (wiring.buses order), the frames that stop its motors. `wiring` needs its joints' bus
// and motor resolved (not a full Validate()).
std::vector<BusDamp> DampPlanOf(const Wiring& wiring);

// A frame and where it goes: the interface in `address` (for a CAN_RAW socket bound to all).
struct RawFrame {
  sockaddr_can address{};
  can_frame frame{};
  std::size_t bus = 0;  // index into the plan (wiring.buses), for reports
};

// Every bus's DAMP frames, then every bus's disable frames. A bus whose interface does not exist
// is left out and named in *missing (interface names).
std::vector<RawFrame> ResolvePlan(const std::vector<BusDamp>& plan,
                                  std::vector<std::string>* missing);
// ResolvePlan(DampPlanOf(wiring), missing).
std::vector<RawFrame> EmergencyFrames(const Wiring& wiring, std::vector<std::string>* missing);

// Sends one frame; true when the kernel took it, else false with errno set. Async-signal-safe.
using RawSender = bool (*)(void* context, const RawFrame& frame);

// Sends the frames with `send`, every bus first: one pass over all frames, then up to `retries`
// passes 200 µs apart over those a full transmit queue (ENOBUFS / EAGAIN) refused, so that one
// stuck bus never delays the others. Frames of one interface keep their order (a bus that
// refuses a frame gets no later frame in that pass). Any other error gives that frame up.
// Returns how many were sent; `sent`, when not null, gets one flag per frame. Async-signal-safe,
// no allocation.
std::size_t SendRawWith(RawSender send, void* context, const RawFrame* frames, std::size_t count,
                        int retries, bool* sent = nullptr);
// SendRawWith() through sendto(MSG_DONTWAIT) on `fd`, a CAN_RAW socket bound to every interface.
std::size_t SendRaw(int fd, const RawFrame* frames, std::size_t count, int retries,
                    bool* sent = nullptr);

}  // namespace robot_edge::can
