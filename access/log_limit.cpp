#include "access/log_limit.hpp"

namespace robot_edge::access {

bool LogLimiter::Allow(Clock::time_point now, std::uint64_t* suppressed) {
  if (written_ && now - last_ < period_) {
    ++suppressed_;
    return false;
  }
  written_ = true;
  last_ = now;
  *suppressed = suppressed_;
  suppressed_ = 0;
  return true;
}

}  // namespace robot_edge::access
