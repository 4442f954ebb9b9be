#include "daemon/channels/loop_timing.hpp"

#include <algorithm>
#include <cstdlib>

namespace robot_edge::daemon {

void LoopTiming::OnTickStart(std::int64_t start_us, std::int64_t deadline_us) {
  ++ticks_;
  if (window_start_us_ < 0) window_start_us_ = start_us;
  last_latency_us_ = start_us - deadline_us;
  if (previous_start_us_ >= 0) {
    const std::int64_t period = start_us - previous_start_us_;
    last_period_us_ = period;
    current_.max_period_us = std::max(current_.max_period_us, period);
    current_.max_jitter_us = std::max(current_.max_jitter_us, std::abs(period - period_us_));
  }
  current_.max_latency_us = std::max(current_.max_latency_us, start_us - deadline_us);
  previous_start_us_ = start_us;
  ++current_.ticks;
  const std::int64_t elapsed = start_us - window_start_us_;
  if (elapsed >= window_us_) {
    current_.rate_hz = static_cast<double>(current_.ticks - 1) * 1e6 / static_cast<double>(elapsed);
    last_ = current_;
    current_ = LoopWindow{};
    current_.ticks = 1;
    window_start_us_ = start_us;
  }
}

std::int64_t LoopTiming::OnTickEnd(std::int64_t start_us, std::int64_t end_us,
                                   std::int64_t deadline_us) {
  last_work_us_ = end_us - start_us;
  current_.max_work_us = std::max(current_.max_work_us, last_work_us_);
  const std::int64_t next = deadline_us + period_us_;
  const std::int64_t behind = end_us - next;
  if (behind <= kMaxCatchUpPeriods * period_us_) return next;
  const std::int64_t skipped = behind / period_us_;
  overruns_ += static_cast<std::uint64_t>(skipped);
  return next + skipped * period_us_;
}

}  // namespace robot_edge::daemon
