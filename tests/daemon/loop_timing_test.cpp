#include "daemon/channels/loop_timing.hpp"

#include <gtest/gtest.h>

namespace robot_edge::daemon {
namespace {

TEST(LoopTiming, MeasuresRatePeriodJitterLatencyAndWorkPerWindow) {
  LoopTiming t(2000, 1'000'000);
  std::int64_t deadline = 0;
  for (int i = 0; i <= 500; ++i, deadline += 2000) {
    t.OnTickStart(deadline + 50, deadline);
    t.OnTickEnd(deadline + 50, deadline + 250, deadline);
  }
  EXPECT_NEAR(t.last_window().rate_hz, 500.0, 1.0);
  EXPECT_EQ(t.last_window().max_period_us, 2000);
  EXPECT_EQ(t.last_window().max_jitter_us, 0);
  EXPECT_EQ(t.last_window().max_latency_us, 50);
  // One tick wakes 1.5 ms late and works 400 us, in the next window.
  for (int i = 0; i < 100; ++i, deadline += 2000) t.OnTickStart(deadline + 50, deadline);
  t.OnTickStart(deadline + 1550, deadline);
  t.OnTickEnd(deadline + 1550, deadline + 1950, deadline);
  deadline += 2000;
  for (int i = 0; i <= 400; ++i, deadline += 2000) t.OnTickStart(deadline + 50, deadline);
  EXPECT_EQ(t.last_window().max_period_us, 3500);
  EXPECT_EQ(t.last_window().max_jitter_us, 1500);
  EXPECT_EQ(t.last_window().max_latency_us, 1550);
  EXPECT_EQ(t.last_window().max_work_us, 400);
}

TEST(LoopTiming, LateTicksCatchUpOnTheGrid) {
  LoopTiming t(2000);
  // Woke 3 ms late: the next deadline stays on the grid (it is already due: catch-up).
  EXPECT_EQ(t.OnTickEnd(5000, 5100, 2000), 4000);
  EXPECT_EQ(t.overruns(), 0u);
}

TEST(LoopTiming, FallingTooFarBehindGivesUpTheMissedTicks) {
  LoopTiming t(2000);
  // Ended 20 ms after its deadline: 9 periods behind the next one, more than 5.
  const std::int64_t next = t.OnTickEnd(21000, 22000, 2000);
  EXPECT_EQ(t.overruns(), 9u);
  EXPECT_EQ(next, 22000);
  EXPECT_GE(next, 22000 - 2000) << "the new grid starts around now";
}

}  // namespace
}  // namespace robot_edge::daemon
