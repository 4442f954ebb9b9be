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
// A control thread that stalls without crashing gets the same frames' DAMP half from the
// supervisor (SendStallDamp()), with the same handshake; the control thread, when it runs again,
// takes the stall (TakeControlStall()) and holds DAMP itself.
//
// Threads: Install / Uninstall once, from the main thread; ProvideAltStack() on every thread that
// may crash (a stack overflow can run the handler only on an alternate stack);
// Begin/EndControlTick(), TakeControlStall() and StallDampSent() on the control thread only;
// SendStallDamp() on the supervisor's thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>

#include "can/emergency.hpp"

namespace robot_edge::daemon {

// `can_fd` stays open until UninstallFatalSignalDamp(); the frames are copied (at most
// 2 × config::kMaxJoints): the first `damp_count` are the DAMP frames, the rest exit motor mode.
void InstallFatalSignalDamp(int can_fd, std::span<const can::RawFrame> frames,
                            std::size_t damp_count);
// Back to the default actions (before the CAN socket closes).
void UninstallFatalSignalDamp();
void ProvideAltStack();

// The control thread, once, before its first tick (the handler does not wait for a tick of the
// thread it runs on: that tick crashed).
void RegisterControlThread();

// The supervisor's DAMP for a control thread whose last tick is `stalled_ms` old: it waits for a
// tick under way to end (at most 10 ms), then sends every motor's DAMP frame (kp 0, damp_kd; no
// exit from motor mode: the control thread may come back and hold DAMP). Returns the frames sent;
// 0 without an installed socket.
std::size_t SendStallDamp(std::uint32_t stalled_ms);

namespace detail {
// The handshake with the handler, sequentially consistent: a tick that begins sees the
// handler's flag, or the handler sees the tick.
extern std::atomic<bool> fatal_in_progress;
extern std::atomic<bool> control_in_tick;
// Set (to the stall in ms) by SendStallDamp() before it waits and sends; taken by the control
// thread. 0 = none.
extern std::atomic<std::uint32_t> stall_damp_ms;
}  // namespace detail

// The control thread, at the start of a tick: the stall the supervisor DAMPed since the last one
// (ms, then cleared), or 0.
inline std::uint32_t TakeControlStall() {
  return detail::stall_damp_ms.load() == 0 ? 0 : detail::stall_damp_ms.exchange(0);
}
// The control thread, just before it sends: the supervisor DAMPed while this tick was under way
// (its targets are stale: the next tick takes the stall and sends DAMP).
inline bool StallDampSent() { return detail::stall_damp_ms.load() != 0; }

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
