// SIGINT and SIGTERM as a flag, for the programs that run until told to stop (robot-edge-live,
// robot-edge-uplink). Construct it in main() before any other thread starts: it blocks the two
// signals in the calling thread, so every thread started later inherits the mask, and waits for
// them on a thread of its own (polling its flag every 100 ms, so that it can be joined).
#pragma once

#include <signal.h>

#include <atomic>
#include <thread>

namespace robot_edge::cli {

class StopSignals {
 public:
  StopSignals();
  ~StopSignals();  // stops and joins the waiting thread
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // True from the first SIGINT or SIGTERM on. Threads: any.
  const std::atomic<bool>& stop() const { return stop_; }

 private:
  sigset_t signals_{};
  std::atomic<bool> stop_{false};
  std::thread waiter_;
};

}  // namespace robot_edge::cli
