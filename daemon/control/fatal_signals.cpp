#include "daemon/control/fatal_signals.hpp"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <memory>

#include "config/config.hpp"

namespace robot_edge::daemon {
namespace {

constexpr int kSignals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
constexpr int kRetries = 25;  // 5 ms of a full transmit queue per frame at most

// A handler reaches only global state: written once by Install, before the handlers are set.
std::array<can::RawFrame, 2 * config::kMaxJoints> g_frames;
std::size_t g_count = 0;
std::size_t g_damp_count = 0;  // the first g_damp_count of g_frames: DAMP
std::atomic<int> g_fd{-1};
std::atomic<pid_t> g_control_tid{0};
constexpr int kTickWaitPolls = 100;  // 100 × 100 µs: a tick under way has 10 ms to end

void Say(const char* text) {
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, text, std::strlen(text));
}

// Waits for a tick under way on the control thread to end, unless this is the control thread
// (it crashed in its tick).
void WaitForTheTickToEnd() {
  if (::gettid() == g_control_tid.load()) return;
  for (int i = 0; i < kTickWaitPolls && detail::control_in_tick.load(); ++i) {
    const timespec wait{0, 100'000};
    ::nanosleep(&wait, nullptr);
  }
}

void OnFatalSignal(int signal) {
  if (!detail::fatal_in_progress.exchange(true)) {  // the first fatal signal, any thread
    WaitForTheTickToEnd();
    const int fd = g_fd.load();
    if (fd >= 0) {
      Say("robot-edged: fatal signal: sending DAMP, then exit motor mode, to every motor\n");
      const std::size_t sent = can::SendRaw(fd, g_frames.data(), g_count, kRetries);
      Say(sent == g_count ? "robot-edged: DAMP sent to every motor\n"
                          : "robot-edged: DAMP not sent to every motor (the bus refused some)\n");
    }
  }
  // SA_RESETHAND restored the default action: the signal, blocked while this runs, kills the
  // process when the handler returns (or the faulting instruction faults again).
  ::raise(signal);
}

}  // namespace

namespace detail {
std::atomic<bool> fatal_in_progress{false};
std::atomic<bool> control_in_tick{false};
std::atomic<std::uint32_t> stall_damp_ms{0};
}  // namespace detail

std::size_t SendStallDamp(std::uint32_t stalled_ms) {
  const int fd = g_fd.load();
  if (fd < 0 || detail::fatal_in_progress.load()) return 0;
  detail::stall_damp_ms.store(std::max<std::uint32_t>(stalled_ms, 1));
  WaitForTheTickToEnd();
  return can::SendRaw(fd, g_frames.data(), g_damp_count, kRetries);
}

void InstallFatalSignalDamp(int can_fd, std::span<const can::RawFrame> frames,
                            std::size_t damp_count) {
  g_count = std::min(frames.size(), g_frames.size());
  g_damp_count = std::min(damp_count, g_count);
  std::copy_n(frames.begin(), g_count, g_frames.begin());
  g_fd.store(can_fd);
  struct sigaction action {};
  action.sa_handler = OnFatalSignal;
  action.sa_flags = SA_RESETHAND | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (int s : kSignals) ::sigaction(s, &action, nullptr);
  ProvideAltStack();
}

void UninstallFatalSignalDamp() {
  for (int s : kSignals) ::signal(s, SIG_DFL);
  g_fd.store(-1);
}

void RegisterControlThread() { g_control_tid.store(::gettid()); }

void ProvideAltStack() {
  const std::size_t size = std::max<std::size_t>(64 * 1024, static_cast<std::size_t>(SIGSTKSZ));
  static thread_local std::unique_ptr<char[]> stack;  // lives as long as its thread
  if (stack) return;
  // A thread that has one already keeps it: AddressSanitizer gives every thread its own, and
  // unmaps that one when the thread ends (replacing it made ASan abort at thread exit).
  stack_t current{};
  if (::sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return;
  stack = std::make_unique<char[]>(size);
  stack_t ss{};
  ss.ss_sp = stack.get();
  ss.ss_size = size;
  ::sigaltstack(&ss, nullptr);
}

}  // namespace robot_edge::daemon
