// DAMP that survives the process. When robot-edged dies of a fatal signal — systemd's watchdog
// kill (SIGABRT), std::terminate (SIGABRT), a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL) — the
// handler writes DAMP then exit-motor-mode to every motor on the already-open CAN socket, with
// async-signal-safe calls only, says so on stderr, and re-raises the signal with its default
// action (the same exit status and core dump as without it). The control thread brackets each
// tick with BeginControlTick() / EndControlTick(): the handler waits for a tick under way to end
// (its frames would otherwise land after the DAMP), and no tick begins once it has started.
// SIGKILL, an OOM kill and a power cut cannot be caught: the unit's ExecStopPost
// (robot-edged --emergency-damp) and the motors' own CAN timeouts cover them.
//
// Threads: Install / Uninstall once, from the main thread; ProvideAltStack() on every thread that
// may crash (a stack overflow can run the handler only on an alternate stack);
// Begin/EndControlTick() on the control thread only.
#pragma once

#include <atomic>
#include <span>

#include "can/emergency.hpp"

namespace robot_edge::daemon {

// `can_fd` stays open until UninstallFatalSignalDamp(); the frames are copied (at most
// 2 × config::kMaxJoints).
void InstallFatalSignalDamp(int can_fd, std::span<const can::RawFrame> frames);
// Back to the default actions (before the CAN socket closes).
void UninstallFatalSignalDamp();
void ProvideAltStack();

// The control thread, once, before its first tick (the handler does not wait for a tick of the
// thread it runs on: that tick crashed).
void RegisterControlThread();

namespace detail {
// The handshake with the handler, sequentially consistent: a tick that begins sees the
// handler's flag, or the handler sees the tick.
extern std::atomic<bool> fatal_in_progress;
extern std::atomic<bool> control_in_tick;
}  // namespace detail

// False when a fatal signal is being handled: the tick must send nothing (and not call
// EndControlTick()). Inline: two atomic operations on the control thread's hot path.
inline bool BeginControlTick() {
  detail::control_in_tick.store(true);
  if (detail::fatal_in_progress.load()) {
    detail::control_in_tick.store(false);
    return false;
  }
  return true;
}
inline void EndControlTick() { detail::control_in_tick.store(false); }

}  // namespace robot_edge::daemon
