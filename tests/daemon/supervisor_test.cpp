// The watchdog's judge: fed only while both the control loop and the API thread are alive; a
// stall is reported once when it begins and once when it ends; an API stall stops walking.
#include "daemon/supervisor.hpp"

#include <gtest/gtest.h>

namespace robot_edge::daemon {
namespace {

constexpr std::int64_t kMs = 1000;

TEST(Liveness, FedWhileBothThreadsAreAlive) {
  Liveness l;
  const auto v = l.Check(1000 * kMs, 999 * kMs, 950 * kMs);
  EXPECT_TRUE(v.feed_watchdog);
  EXPECT_FALSE(v.stop_walking);
  EXPECT_TRUE(v.reports.empty());
}

TEST(Liveness, NotFedBeforeTheFirstTickAndNothingReported) {
  Liveness l;
  const auto v = l.Check(1000 * kMs, -1, 999 * kMs);
  EXPECT_FALSE(v.feed_watchdog);
  EXPECT_TRUE(v.reports.empty());
}

TEST(Liveness, AStalledControlLoopIsReportedOnceAndNotFed) {
  Liveness l;
  auto v = l.Check(1000 * kMs, 700 * kMs, 999 * kMs);
  EXPECT_FALSE(v.feed_watchdog);
  ASSERT_EQ(v.reports.size(), 1u);
  EXPECT_EQ(v.reports[0], "control loop stalled for 300 ms: not feeding the systemd watchdog");
  EXPECT_FALSE(v.stop_walking) << "the loop itself is stuck: nothing it could apply";
  v = l.Check(1100 * kMs, 700 * kMs, 1099 * kMs);
  EXPECT_TRUE(v.reports.empty()) << "once";
  v = l.Check(1200 * kMs, 1199 * kMs, 1199 * kMs);
  EXPECT_TRUE(v.feed_watchdog);
  ASSERT_EQ(v.reports.size(), 1u);
  EXPECT_EQ(v.reports[0], "control loop ticking again");
}

TEST(Liveness, AnApiStallStopsWalkingIsReportedAndStarvesTheWatchdog) {
  Liveness l;
  EXPECT_TRUE(l.Check(1000 * kMs, 999 * kMs, 600 * kMs).feed_watchdog) << "400 ms: not yet";
  auto v = l.Check(1100 * kMs, 1099 * kMs, 600 * kMs);
  EXPECT_FALSE(v.feed_watchdog);
  EXPECT_TRUE(v.stop_walking);
  ASSERT_EQ(v.reports.size(), 1u);
  EXPECT_NE(v.reports[0].find("API thread stalled for 500 ms: walking stopped"), std::string::npos)
      << v.reports[0];
  v = l.Check(1500 * kMs, 1499 * kMs, 600 * kMs);
  EXPECT_FALSE(v.stop_walking) << "once per stall";
  EXPECT_TRUE(v.reports.empty());
  v = l.Check(1600 * kMs, 1599 * kMs, 1590 * kMs);
  EXPECT_TRUE(v.feed_watchdog);
  ASSERT_EQ(v.reports.size(), 1u);
  EXPECT_EQ(v.reports[0], "API thread responsive again after 990 ms");
}

// ---- The stall DAMP: safety.control_stall_ms 20, checked every 5 ms ----

TEST(StallJudge, DampsOnceWhenTheLastTickIsOlderThanTheBound) {
  StallJudge j(20 * kMs, 5 * kMs);
  EXPECT_EQ(j.Check(1000 * kMs, 999 * kMs), 0u);
  EXPECT_EQ(j.Check(1005 * kMs, 999 * kMs), 0u);
  EXPECT_EQ(j.Check(1010 * kMs, 999 * kMs), 0u);
  EXPECT_EQ(j.Check(1015 * kMs, 999 * kMs), 0u) << "16 ms: not yet";
  EXPECT_EQ(j.Check(1020 * kMs, 999 * kMs), 21u) << "21 ms: DAMP";
  EXPECT_EQ(j.Check(1025 * kMs, 999 * kMs), 0u) << "once per stall";
  EXPECT_EQ(j.Check(1030 * kMs, 1029 * kMs), 0u) << "ticking again";
  EXPECT_EQ(j.Check(1035 * kMs, 1029 * kMs), 0u);
  EXPECT_EQ(j.Check(1040 * kMs, 1029 * kMs), 0u);
  EXPECT_EQ(j.Check(1045 * kMs, 1029 * kMs), 0u);
  EXPECT_EQ(j.Check(1050 * kMs, 1029 * kMs), 21u) << "a second stall";
}

TEST(StallJudge, NeverRightAfterTheWholeProcessWasHeldUp) {
  StallJudge j(20 * kMs, 5 * kMs);
  EXPECT_EQ(j.Check(1000 * kMs, 999 * kMs), 0u);
  EXPECT_EQ(j.Check(1100 * kMs, 999 * kMs), 0u) << "the judge itself 100 ms late";
  EXPECT_EQ(j.Check(1101 * kMs, 1100 * kMs), 0u) << "the control thread ticked first";
  EXPECT_EQ(j.Check(1200 * kMs, 1100 * kMs), 0u) << "late again";
  EXPECT_EQ(j.Check(1205 * kMs, 1100 * kMs), 105u) << "on time, and still no tick: DAMP";
}

TEST(StallJudge, OffAtZeroAndBeforeTheFirstTick) {
  StallJudge off(0, 50 * kMs);
  EXPECT_EQ(off.Check(1000 * kMs, 0), 0u);
  EXPECT_EQ(off.Check(1050 * kMs, 0), 0u);
  StallJudge j(20 * kMs, 5 * kMs);
  EXPECT_EQ(j.Check(1000 * kMs, -1), 0u);
  EXPECT_EQ(j.Check(1005 * kMs, -1), 0u);
}

}  // namespace
}  // namespace robot_edge::daemon
