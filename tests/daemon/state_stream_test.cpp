// Which control ticks a state stream at a given rate sends (daemon/api/state_stream.hpp).
#include "daemon/api/state_stream.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace robot_edge::daemon {
namespace {

std::vector<std::uint64_t> DueTicks(std::uint32_t rate, std::uint32_t control,
                                    std::uint64_t ticks) {
  RateDivider d(rate, control);
  std::vector<std::uint64_t> due;
  for (std::uint64_t t = 1; t <= ticks; ++t) {
    if (d.Due(t)) due.push_back(t);
  }
  return due;
}

TEST(RateDivider, TheControlRateIsEveryTick) {
  EXPECT_EQ(DueTicks(500, 500, 6), (std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6}));
}

TEST(RateDivider, AnUnevenRateAlternatesWholeTickGapsWithAnExactAverage) {
  const auto due = DueTicks(200, 500, 11);
  EXPECT_EQ(due, (std::vector<std::uint64_t>{1, 4, 6, 9, 11}));  // gaps 3, 2, 3, 2
  EXPECT_EQ(DueTicks(200, 500, 5000).size(), 2000u);
  EXPECT_EQ(DueTicks(333, 500, 5000).size(), 3330u);
  EXPECT_EQ(DueTicks(1, 500, 1000).size(), 2u);
}

TEST(RateDivider, LostTicksCountAsPassedWithoutABurstAfterwards) {
  RateDivider d(100, 500);
  EXPECT_TRUE(d.Due(1));
  EXPECT_TRUE(d.Due(1001)) << "two seconds of ticks the queue lost";
  EXPECT_FALSE(d.Due(1002)) << "no burst to catch up";
  EXPECT_FALSE(d.Due(1005));
  EXPECT_TRUE(d.Due(1006));
}

}  // namespace
}  // namespace robot_edge::daemon
