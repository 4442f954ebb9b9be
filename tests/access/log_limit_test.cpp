// LogLimiter: one line per period at most, and the line that is written counts the ones that
// were not (a scanner's failed TLS handshakes must not fill the journal).
#include "access/log_limit.hpp"

#include <gtest/gtest.h>

namespace robot_edge::access {
namespace {

using namespace std::chrono_literals;

TEST(LogLimiter, OneLinePerPeriodCountingTheOthers) {
  LogLimiter limiter(5s);
  const LogLimiter::Clock::time_point t0{100s};
  std::uint64_t suppressed = 99;
  ASSERT_TRUE(limiter.Allow(t0, &suppressed));  // the first one is written
  EXPECT_EQ(suppressed, 0u);
  for (int i = 1; i <= 1000; ++i) {  // a scanner: 1000 failures in 4.995 s
    EXPECT_FALSE(limiter.Allow(t0 + i * 5ms - 1ms, &suppressed)) << i;
  }
  ASSERT_TRUE(limiter.Allow(t0 + 5s, &suppressed));
  EXPECT_EQ(suppressed, 1000u);
  EXPECT_FALSE(limiter.Allow(t0 + 6s, &suppressed));
  ASSERT_TRUE(limiter.Allow(t0 + 60s, &suppressed));  // quiet since: the count started again
  EXPECT_EQ(suppressed, 1u);
}

}  // namespace
}  // namespace robot_edge::access
