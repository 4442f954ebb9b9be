// The clock offset arithmetic of TimeSync (client/time_sync.hpp).
#include "client/time_sync.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace robot_edge::client {
namespace {

TEST(TimeSync, SymmetricDelaysGiveTheExactOffset) {
  // Robot clock = client clock + 1'000'000; 300 µs each way; the robot takes 50 µs.
  const TimeSyncSample s{10'000, 1'010'300, 1'010'350, 10'650};
  const ClockOffset o = Estimate(s);
  EXPECT_EQ(o.offset_us, 1'000'000);
  EXPECT_EQ(o.round_trip_us, 600);
  EXPECT_EQ(o.ToRobot(20'000), 1'020'000);
}

TEST(TimeSync, AsymmetricDelaysErrByHalfTheirDifference) {
  // 100 µs out, 500 µs back, true offset -2000: the estimate is off by (100 - 500) / 2.
  const TimeSyncSample s{50'000, 48'100, 48'100, 50'600};
  const ClockOffset o = Estimate(s);
  EXPECT_EQ(o.round_trip_us, 600);
  EXPECT_EQ(o.offset_us, -2000 - 200);
  EXPECT_LE(std::abs(o.offset_us - (-2000)), o.round_trip_us / 2);
}

TEST(TimeSync, TheShortestRoundTripWins) {
  const std::vector<TimeSyncSample> samples = {
      {0, 5'000 + 4'000, 5'000 + 4'000, 4'100},            // queued 4 ms on the way out
      {10'000, 15'000 + 10'100, 15'000 + 10'100, 10'200},  // 100 µs each way: offset 15'000
      {20'000, 35'000 + 20'000, 35'000 + 20'000, 23'000},  // 3 ms back
  };
  const ClockOffset o = BestEstimate(samples);
  EXPECT_EQ(o.round_trip_us, 200);
  EXPECT_EQ(o.offset_us, 15'000);
}

TEST(TimeSync, LargeClocksDoNotOverflow) {
  const std::int64_t big = 4'000'000'000'000'000'000;  // near INT64_MAX / 2
  const TimeSyncSample s{big, big + 100, big + 100, big + 200};
  EXPECT_EQ(Estimate(s).offset_us, 0);
}

TEST(TimeSync, TheClientClockIsMonotonic) {
  const std::int64_t a = MonotonicMicros();
  const std::int64_t b = MonotonicMicros();
  EXPECT_GT(a, 0);
  EXPECT_GE(b, a);
}

}  // namespace
}  // namespace robot_edge::client
