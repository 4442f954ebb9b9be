#include "daemon/channels/injected_throw.hpp"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

namespace robot_edge::daemon {
namespace detail {

std::atomic<int> cued_thread{static_cast<int>(InjectedThread::kNone)};

void ThrowInjected(InjectedThread thread) {
  int expected = static_cast<int>(thread);
  cued_thread.compare_exchange_strong(expected, static_cast<int>(InjectedThread::kNone));
  throw std::runtime_error("exception injected by a test (ROBOT_EDGE_INJECT_THROW)");
}

}  // namespace detail

#ifdef ROBOT_EDGE_FAULT_INJECTION
namespace {

InjectedThread ThreadNamed(const std::string& name) {
  if (name == "control") return InjectedThread::kControl;
  if (name == "api") return InjectedThread::kApi;
  if (name == "recorder") return InjectedThread::kRecorder;
  return InjectedThread::kNone;
}

// Polls `cue` until a known thread's name appears in it; detached (it dies with the process).
void WatchCue(std::string cue) {
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::ifstream in(cue);
    std::string name;
    if (in >> name && ThreadNamed(name) != InjectedThread::kNone) {
      detail::cued_thread.store(static_cast<int>(ThreadNamed(name)));
      return;
    }
  }
}

}  // namespace
#endif

const char* ArmInjectedThrow() {
#ifdef ROBOT_EDGE_FAULT_INJECTION
  const char* cue = std::getenv("ROBOT_EDGE_INJECT_THROW");
  if (cue == nullptr || *cue == '\0') return "";
  std::thread(WatchCue, std::string(cue)).detach();
  return cue;
#else
  return "";
#endif
}

}  // namespace robot_edge::daemon
