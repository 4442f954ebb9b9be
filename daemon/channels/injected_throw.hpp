// Test-only fault injection: makes one of robot-edged's threads throw, so that the fault matrix
// can check what an exception escaping that thread does to the robot (tests/common/
// fault_matrix.hpp, the *Throws faults). The model is PX4's `failure` command behind its
// SYS_FAILURE_EN parameter: built into the product, off unless asked for twice.
//   - Compiled in only with the CMake option ROBOT_EDGE_FAULT_INJECTION (on by default in test
//     builds, off in Release builds; the Debian package refuses it). Without it ThrowIfCued() is
//     an empty inline function and ArmInjectedThrow() does nothing.
//   - Armed only when robot-edged starts with ROBOT_EDGE_INJECT_THROW=<cue file> in its
//     environment (logged as a warning).
// The test cues a thread by writing its name ("control", "api", "recorder") into the cue file; a
// watcher thread polls for it every 5 ms and flags that thread, whose next ThrowIfCued() throws
// std::runtime_error. Once: the flag is taken by the throw.
//
// Threads: ArmInjectedThrow() once, from the main thread, before the other threads start;
// ThrowIfCued() from the thread it names (one relaxed atomic load when compiled in).
#pragma once

#include <atomic>

namespace robot_edge::daemon {

enum class InjectedThread : int { kNone = 0, kControl, kApi, kRecorder };

namespace detail {
extern std::atomic<int> cued_thread;
[[noreturn]] void ThrowInjected(InjectedThread thread);
}  // namespace detail

// Reads the environment; returns the cue file when armed ("" when not, or when compiled out).
const char* ArmInjectedThrow();

inline void ThrowIfCued([[maybe_unused]] InjectedThread thread) {
#ifdef ROBOT_EDGE_FAULT_INJECTION
  if (detail::cued_thread.load(std::memory_order_relaxed) == static_cast<int>(thread)) {
    detail::ThrowInjected(thread);
  }
#endif
}

}  // namespace robot_edge::daemon
