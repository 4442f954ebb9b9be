// Statistics of the control loop's tick periods, over windows of about one second (pure: the
// times are passed in).
#pragma once

#include <cstdint>

namespace robot_edge::daemon {

struct LoopWindow {
  double rate_hz = 0;             // ticks per second over the window
  std::int64_t max_period_us = 0; // longest period between two tick starts
  std::int64_t max_jitter_us = 0; // largest |period - nominal|
  std::int64_t ticks = 0;
};

class LoopTiming {
 public:
  LoopTiming(std::int64_t period_us, std::int64_t window_us = 1'000'000)
      : period_us_(period_us), window_us_(window_us) {}

  // At the start of every tick.
  void OnTickStart(std::int64_t now_us);
  // After the tick's work; `next_deadline_us` is when the next tick is due. True if the work
  // ran past it (an overrun).
  bool OnTickEnd(std::int64_t end_us, std::int64_t next_deadline_us);

  std::uint64_t ticks() const { return ticks_; }
  std::uint64_t overruns() const { return overruns_; }
  // The last complete window.
  const LoopWindow& last_window() const { return last_; }

 private:
  std::int64_t period_us_;
  std::int64_t window_us_;
  std::int64_t previous_start_us_ = -1;
  std::int64_t window_start_us_ = -1;
  LoopWindow current_;
  LoopWindow last_;
  std::uint64_t ticks_ = 0;
  std::uint64_t overruns_ = 0;
};

}  // namespace robot_edge::daemon
