// The TCP door's limits (access/door_limits.hpp), with time advanced by hand: pending slots in
// all and per address, and the delay after wrong tokens, with its memory bound.
#include "access/door_limits.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace robot_edge::access {
namespace {

using namespace std::chrono_literals;
using Verdict = PendingSlots::Verdict;

TEST(PendingSlots, CapsInAllAndPerAddressAndGivesBack) {
  PendingSlots slots(3, 2);
  const auto a1 = slots.Take("a");
  EXPECT_EQ(a1.verdict, Verdict::kAdmitted);
  const auto a2 = slots.Take("a");
  EXPECT_EQ(a2.verdict, Verdict::kAdmitted);
  EXPECT_NE(a1.id, a2.id);
  EXPECT_EQ(slots.Take("a").verdict, Verdict::kAddressFull);
  const auto b = slots.Take("b");
  EXPECT_EQ(b.verdict, Verdict::kAdmitted);
  EXPECT_EQ(slots.Take("c").verdict, Verdict::kFull);
  EXPECT_EQ(slots.in_use(), 3u);
  slots.Release(a1.id);
  const auto c = slots.Take("c");
  EXPECT_EQ(c.verdict, Verdict::kAdmitted);
  slots.Release(a1.id);  // given back already: nothing given back twice
  slots.Release(12345);  // never taken
  EXPECT_EQ(slots.in_use(), 3u);
  EXPECT_EQ(slots.held_by("a"), 1u);
  slots.Release(a2.id);
  slots.Release(b.id);
  slots.Release(c.id);
  EXPECT_EQ(slots.in_use(), 0u);
  EXPECT_EQ(slots.held_by("a"), 0u);
  EXPECT_EQ(slots.Take("a").verdict, Verdict::kAdmitted);
}

// A full door: a newcomer takes over the oldest slot of the address holding the most, as long
// as that address holds at least two more than the newcomer's would; so a few addresses filling
// the door cannot keep another out, and an address cannot take from one holding as many.
TEST(PendingSlots, AFullDoorGivesANewcomerTheOldestSlotOfTheAddressHoldingTheMost) {
  PendingSlots slots(6, 4);
  EXPECT_FALSE(slots.Victim("x")) << "not full: nothing to take over";
  const auto b1 = slots.Take("b");
  const auto a1 = slots.Take("a");
  const auto a2 = slots.Take("a");
  slots.Take("b");
  slots.Take("a");
  slots.Take("c");
  ASSERT_EQ(slots.Take("x").verdict, Verdict::kFull);
  EXPECT_EQ(slots.Victim("x"), a1.id) << "a holds 3: its oldest";
  EXPECT_EQ(slots.Victim("c"), a1.id) << "c holds 1, a 3: still two more";
  EXPECT_FALSE(slots.Victim("b")) << "b holds 2, a 3: not two more";
  EXPECT_FALSE(slots.Victim("a")) << "never from itself";
  slots.Release(*slots.Victim("x"));
  EXPECT_EQ(slots.Take("x").verdict, Verdict::kAdmitted);
  // a and b now hold 2 each: the oldest of the two addresses' slots goes first.
  EXPECT_EQ(slots.Victim("y"), b1.id);
  slots.Release(b1.id);
  EXPECT_EQ(slots.Take("y").verdict, Verdict::kAdmitted);
  EXPECT_EQ(slots.Victim("z"), a2.id);
}

// Red team of issue 38, R3: a controller on the attacker's address, its handshake under way, was
// the oldest slot and cut off. Of the addresses holding the most, one that sent nothing goes
// first; when all sent something, the oldest.
TEST(PendingSlots, AFullDoorTakesOverASilentSlotBeforeOneUnderWay) {
  PendingSlots slots(4, 4);
  const auto talking = slots.Take("a");  // the oldest: its handshake under way
  const auto silent = slots.Take("a");
  slots.Take("b");
  const auto silent_too = slots.Take("a");
  ASSERT_EQ(slots.Take("x").verdict, Verdict::kFull);
  std::set<PendingSlots::Id> heard{talking.id};
  const auto sent_nothing = [&heard](PendingSlots::Id id) { return !heard.contains(id); };
  EXPECT_EQ(slots.Victim("x"), talking.id) << "without the predicate: the oldest";
  EXPECT_EQ(slots.Victim("x", sent_nothing), silent.id);
  heard = {talking.id, silent.id};
  EXPECT_EQ(slots.Victim("x", sent_nothing), silent_too.id);
  heard = {talking.id, silent.id, silent_too.id};
  EXPECT_EQ(slots.Victim("x", sent_nothing), talking.id) << "all heard: the oldest";
  EXPECT_FALSE(slots.Victim("a", sent_nothing)) << "never from itself";
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
