// LogLimiter: at most one log line per period for a thing a peer can make happen at will (a
// failed TLS handshake, a connection refused at the door), so that a scanner cannot fill the
// journal; the line that is written says how many were not. Shared by the live view's server and
// robot-edged's API listener. Pure (the caller passes the time); one thread.
#pragma once

#include <chrono>
#include <cstdint>

namespace robot_edge::access {

class LogLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  explicit LogLimiter(Clock::duration period) : period_(period) {}

  // True when a line may be written at `now` (the first one, or `period` after the last one
  // written); then *suppressed is how many were refused since that last one, and the count
  // starts again. False: the caller writes nothing; counted.
  bool Allow(Clock::time_point now, std::uint64_t* suppressed);

 private:
  Clock::duration period_;
  Clock::time_point last_{};
  bool written_ = false;
  std::uint64_t suppressed_ = 0;
};

}  // namespace robot_edge::access
