#include "daemon/loop_timing.hpp"

#include <gtest/gtest.h>

namespace robot_edge::daemon {
namespace {

TEST(LoopTiming, MeasuresRatePeriodAndJitterPerWindow) {
  LoopTiming t(2000, 1'000'000);
  std::int64_t now = 0;
  for (int i = 0; i <= 500; ++i, now += 2000) t.OnTickStart(now);
  EXPECT_NEAR(t.last_window().rate_hz, 500.0, 1.0);
  EXPECT_EQ(t.last_window().max_period_us, 2000);
  EXPECT_EQ(t.last_window().max_jitter_us, 0);
  // One late tick (3.5 ms) in the next window.
  for (int i = 0; i < 100; ++i, now += 2000) t.OnTickStart(now);
  now += 1500;
  for (int i = 0; i <= 400; ++i, now += 2000) t.OnTickStart(now);
  EXPECT_EQ(t.last_window().max_period_us, 3500);
  EXPECT_EQ(t.last_window().max_jitter_us, 1500);
}

TEST(LoopTiming, CountsOverruns) {
  LoopTiming t(2000);
  EXPECT_FALSE(t.OnTickEnd(1000, 2000));
  EXPECT_FALSE(t.OnTickEnd(2000, 2000));
  EXPECT_TRUE(t.OnTickEnd(2001, 2000));
  EXPECT_EQ(t.overruns(), 1u);
}

}  // namespace
}  // namespace robot_edge::daemon
