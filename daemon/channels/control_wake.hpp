// Wakes the control thread before its next tick, for what cannot wait for it: an emergency stop.
// The control thread sleeps on a futex with the tick's absolute deadline (FUTEX_WAIT_BITSET on
// CLOCK_MONOTONIC: the same absolute wake-up as clock_nanosleep), so a Wake() ends the sleep at
// once and the deadline is kept for the tick itself.
//
// Threads: SleepUntil() is the control thread's; Wake() any thread's (it never blocks).
#pragma once

#include <atomic>
#include <cstdint>

namespace robot_edge::daemon {

class ControlWake {
 public:
  // Sleeps until `deadline_us` (CLOCK_MONOTONIC, µs) or a Wake(); true when woken (a Wake()
  // that came before the call counts).
  bool SleepUntil(std::int64_t deadline_us);
  void Wake();

 private:
  std::atomic<std::uint32_t> pending_{0};
};

}  // namespace robot_edge::daemon
