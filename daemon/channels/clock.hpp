// The daemon's two clocks, read by both threads. Any thread; never blocks.
#pragma once

#include <cstdint>

namespace robot_edge::daemon {

// Steady (monotonic) clock in µs: the time base of the control loop and the state machine.
std::int64_t SteadyMicros();
// Wall clock in µs since the Unix epoch: what clients and files are stamped with.
std::uint64_t WallMicros();

}  // namespace robot_edge::daemon
