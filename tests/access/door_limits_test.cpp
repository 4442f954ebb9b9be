// The TCP door's limits (access/door_limits.hpp), with time advanced by hand: pending slots in
// all and per address, and the delay after wrong tokens, with its memory bound.
#include "access/door_limits.hpp"

#include <gtest/gtest.h>

#include <string>

namespace robot_edge::access {
namespace {

using namespace std::chrono_literals;
using Verdict = PendingSlots::Verdict;

TEST(PendingSlots, CapsInAllAndPerAddressAndGivesBack) {
  PendingSlots slots(3, 2);
  EXPECT_EQ(slots.Take("a"), Verdict::kAdmitted);
  EXPECT_EQ(slots.Take("a"), Verdict::kAdmitted);
  EXPECT_EQ(slots.Take("a"), Verdict::kAddressFull);
  EXPECT_EQ(slots.Take("b"), Verdict::kAdmitted);
  EXPECT_EQ(slots.Take("c"), Verdict::kFull);
  EXPECT_EQ(slots.in_use(), 3u);
  slots.Release("a");
  EXPECT_EQ(slots.Take("c"), Verdict::kAdmitted);
  slots.Release("nobody");  // not held: nothing given back
  EXPECT_EQ(slots.in_use(), 3u);
  slots.Release("a");
  slots.Release("b");
  slots.Release("c");
  EXPECT_EQ(slots.in_use(), 0u);
  EXPECT_EQ(slots.Take("a"), Verdict::kAdmitted);
}

TEST(WrongTokenDelay, FirstIsFreeThenDoublesUpToTheMost) {
  WrongTokenDelay d;
  const WrongTokenDelay::Clock::time_point t0{1h};
  EXPECT_EQ(d.Wrong("x", t0), 0ms);
  EXPECT_FALSE(d.Left("x", t0));
  auto t = t0;
  for (const auto expected :
       {250ms, 500ms, 1000ms, 2000ms, 4000ms, 8000ms, 16000ms, 30000ms, 30000ms, 30000ms}) {
    EXPECT_EQ(d.Wrong("x", t), expected);
    EXPECT_EQ(d.Left("x", t + 1ms), expected - 1ms);
    t += expected;
    EXPECT_FALSE(d.Left("x", t)) << "the wait is over at its end";
  }
  EXPECT_FALSE(d.Left("y", t)) << "only the address that guessed waits";
}

TEST(WrongTokenDelay, ForgottenAfterAQuietSpell) {
  WrongTokenDelay d;
  const WrongTokenDelay::Clock::time_point t0{1h};
  d.Wrong("x", t0);
  d.Wrong("x", t0);
  d.Wrong("x", t0);  // 500 ms
  EXPECT_EQ(d.Wrong("x", t0 + 500ms + WrongTokenDelay::kForget), 0ms) << "counted from 1 again";
}

// A flood from ever new addresses keeps at most kMaxAddresses, dropping the waits that end first.
TEST(WrongTokenDelay, MemoryIsBoundedUnderAFloodOfAddresses) {
  WrongTokenDelay d;
  const WrongTokenDelay::Clock::time_point t0{1h};
  d.Wrong("patient", t0);
  for (int i = 0; i < 9; ++i) d.Wrong("patient", t0);  // 30 s
  for (std::size_t i = 0; i < 10 * WrongTokenDelay::kMaxAddresses; ++i) {
    const std::string address = "10." + std::to_string(i / 65536) + "." +
                                std::to_string(i / 256 % 256) + "." + std::to_string(i % 256);
    d.Wrong(address, t0 + std::chrono::microseconds(i));
    d.Wrong(address, t0 + std::chrono::microseconds(i));  // 250 ms each
    ASSERT_LE(d.remembered(), WrongTokenDelay::kMaxAddresses);
  }
  EXPECT_TRUE(d.Left("patient", t0 + 1s)) << "the longest wait is the last to be dropped";
}

}  // namespace
}  // namespace robot_edge::access
