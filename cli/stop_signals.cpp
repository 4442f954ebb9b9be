#include "cli/stop_signals.hpp"

#include <pthread.h>

#include <ctime>

namespace robot_edge::cli {

StopSignals::StopSignals() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
  waiter_ = std::thread([this] {
    const timespec poll{0, 100'000'000};
    while (!stop_.load()) {
      if (sigtimedwait(&signals_, nullptr, &poll) > 0) stop_ = true;
    }
  });
}

StopSignals::~StopSignals() {
  stop_ = true;
  waiter_.join();
}

}  // namespace robot_edge::cli
