#include "daemon/loop_timing.hpp"

#include <algorithm>
#include <cstdlib>

namespace robot_edge::daemon {

void LoopTiming::OnTickStart(std::int64_t now_us) {
  ++ticks_;
  if (window_start_us_ < 0) window_start_us_ = now_us;
  if (previous_start_us_ >= 0) {
    const std::int64_t period = now_us - previous_start_us_;
    current_.max_period_us = std::max(current_.max_period_us, period);
    current_.max_jitter_us = std::max(current_.max_jitter_us, std::abs(period - period_us_));
  }
  previous_start_us_ = now_us;
  ++current_.ticks;
  const std::int64_t elapsed = now_us - window_start_us_;
  if (elapsed >= window_us_) {
    current_.rate_hz = static_cast<double>(current_.ticks - 1) * 1e6 / static_cast<double>(elapsed);
    last_ = current_;
    current_ = LoopWindow{};
    current_.ticks = 1;
    window_start_us_ = now_us;
  }
}

bool LoopTiming::OnTickEnd(std::int64_t end_us, std::int64_t next_deadline_us) {
  if (end_us <= next_deadline_us) return false;
  ++overruns_;
  return true;
}

}  // namespace robot_edge::daemon
