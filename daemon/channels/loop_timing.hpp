// Statistics of the control loop's ticks over windows of about one second (pure: the times are
// passed in).
//
// The loop keeps to its grid of deadlines: a tick that wakes late runs at once, and the next one
// keeps its own deadline (it may follow at once: catch-up). Only when the loop falls more than
// kMaxCatchUpPeriods behind does it give up the missed ticks and restart the grid from now;
// those ticks are counted as overruns.
#pragma once

#include <cstdint>

namespace robot_edge::daemon {

struct LoopWindow {
  double rate_hz = 0;               // ticks per second over the window
  std::int64_t max_period_us = 0;   // longest time between two tick starts
  std::int64_t max_jitter_us = 0;   // largest |period - nominal|
  std::int64_t max_latency_us = 0;  // latest wake-up after a deadline
  std::int64_t max_work_us = 0;     // longest tick (work only, without the sleep)
  std::int64_t ticks = 0;
};

class LoopTiming {
 public:
  static constexpr std::int64_t kMaxCatchUpPeriods = 5;

  explicit LoopTiming(std::int64_t period_us, std::int64_t window_us = 1'000'000)
      : period_us_(period_us), window_us_(window_us) {}

  // At the start of a tick due at `deadline_us`.
  void OnTickStart(std::int64_t start_us, std::int64_t deadline_us);
  // After the tick's work. Returns the deadline of the next tick: the next one on the grid, or a
  // fresh grid from `end_us` when the loop fell too far behind (the skipped ticks are overruns).
  std::int64_t OnTickEnd(std::int64_t start_us, std::int64_t end_us, std::int64_t deadline_us);

  std::uint64_t ticks() const { return ticks_; }
  // The latest tick's period (since the start before it, 0 for the first) and wake-up latency,
  // and the latest finished tick's work (µs).
  std::int64_t last_period_us() const { return last_period_us_; }
  std::int64_t last_latency_us() const { return last_latency_us_; }
  std::int64_t last_work_us() const { return last_work_us_; }
  std::uint64_t overruns() const { return overruns_; }
  const LoopWindow& last_window() const { return last_; }  // the last complete window

 private:
  std::int64_t period_us_;
  std::int64_t window_us_;
  std::int64_t previous_start_us_ = -1;
  std::int64_t window_start_us_ = -1;
  LoopWindow current_;
  LoopWindow last_;
  std::uint64_t ticks_ = 0;
  std::uint64_t overruns_ = 0;
  std::int64_t last_period_us_ = 0;
  std::int64_t last_latency_us_ = 0;
  std::int64_t last_work_us_ = 0;
};

}  // namespace robot_edge::daemon
