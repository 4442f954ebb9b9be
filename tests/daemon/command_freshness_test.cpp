// Command freshness, with both clocks driven by hand: the client's (timestamp_us) runs at an
// offset from ours, plus a network delay per packet.
#include "daemon/api/command_freshness.hpp"

#include <gtest/gtest.h>

namespace robot_edge::daemon {
namespace {

constexpr std::int64_t kMs = 1000;
constexpr std::int64_t kS = 1'000'000;
constexpr std::int64_t kMaxAge = 100 * kMs;
// The client's wall clock reads our steady clock + this, and so does ours (Wall()).
constexpr std::uint64_t kClientClock = 1'800'000'000'000'000ull;
// The tests of the relative rules let the wall clocks disagree by up to an hour.
constexpr std::int64_t kLooseOffset = 3600 * 1'000'000LL;

std::int64_t Wall(std::int64_t received_us) {
  return static_cast<std::int64_t>(kClientClock) + received_us;
}

struct Client {
  CommandFreshness freshness{kMaxAge, kLooseOffset};
  std::uint32_t sequence = 0;
  std::int64_t clock_step_us = 0;  // the client's clock stepped by this

  // A command the client sends at `sent_us` (our clock) that arrives `delay_us` later.
  CommandFreshness::Verdict Send(std::int64_t sent_us, std::int64_t delay_us, bool damp = false) {
    const auto stamp = static_cast<std::uint64_t>(static_cast<std::int64_t>(kClientClock) +
                                                  sent_us + clock_step_us);
    return freshness.Judge(sent_us + delay_us, Wall(sent_us + delay_us), stamp, ++sequence, damp);
  }
};

TEST(CommandFreshness, PacketsAsLateAsTheQuickestOnesAreFresh) {
  Client c;
  for (std::int64_t t = 0; t < 2 * kS; t += 20 * kMs) {
    const auto v = c.Send(t, 3 * kMs + (t / kMs) % 7 * kMs);  // 3..9 ms of delay: jitter
    ASSERT_FALSE(v.drop) << t;
    EXPECT_LE(v.age_us, 6 * kMs);
  }
}

TEST(CommandFreshness, TheSendTimeIsEstimatedOnOurClock) {
  Client c;
  c.Send(0, 2 * kMs);  // the quickest delivery: 2 ms
  const auto v = c.Send(100 * kMs, 40 * kMs);
  // Sent at 100 ms, late by at most the quickest delay; the floor may have risen by the drift
  // allowance (1000 ppm of the 138 ms between the two).
  EXPECT_NEAR(v.sent_us, 102 * kMs, 140);
  EXPECT_NEAR(v.age_us, 38 * kMs, 140);
}

// Packets buffered during a 3 s WiFi drop and delivered in a burst: every one is stale, by
// about the time it waited, however long the drop.
TEST(CommandFreshness, ABurstAfterANetworkStallIsStale) {
  for (std::int64_t stall : {300 * kMs, 3 * kS, 30 * kS}) {
    Client c;
    for (std::int64_t t = 0; t < kS; t += 20 * kMs) ASSERT_FALSE(c.Send(t, 2 * kMs).drop);
    const std::int64_t delivered = kS + stall;
    int stale = 0;
    for (std::int64_t t = kS; t + 150 * kMs < delivered; t += 20 * kMs) {
      const auto v = c.Send(t, delivered - t);
      EXPECT_EQ(v.drop, sm::Reason::kCommandStale) << "stall " << stall << " sent at " << t;
      EXPECT_FALSE(v.resync_step_us) << "a burst is not a clock step";
      ++stale;
    }
    EXPECT_GT(stale, 0);
    EXPECT_FALSE(c.Send(delivered, 2 * kMs).drop) << "the stream resumes";
  }
}

TEST(CommandFreshness, AgeAtTheLimitIsFreshAndBeyondIsStale) {
  Client c;
  c.Send(0, 0);
  EXPECT_FALSE(c.Send(kS, kMaxAge).drop);
  EXPECT_EQ(c.Send(2 * kS, kMaxAge + 10 * kMs).drop, sm::Reason::kCommandStale);
}

TEST(CommandFreshness, DampIsNeverDroppedButItsSequenceCounts) {
  Client c;
  c.Send(0, 0);
  EXPECT_FALSE(c.Send(kS, 5 * kS, /*damp=*/true).drop) << "5 s late, still applied";
  CommandFreshness f(kMaxAge, kLooseOffset);
  EXPECT_FALSE(f.Judge(0, Wall(0), 0, 7, true).drop) << "no timestamp: still applied";
  EXPECT_FALSE(f.Judge(0, Wall(0), kClientClock, 8, false).drop);
  EXPECT_FALSE(f.Judge(1, Wall(1), kClientClock, 3, true).drop) << "out of order: still applied";
  EXPECT_EQ(f.Judge(2, Wall(2), kClientClock + 2, 8, false).drop,
            sm::Reason::kSequenceNotIncreasing);
}

TEST(CommandFreshness, ReplaysDuplicatesAndReorderedPacketsAreDropped) {
  CommandFreshness f(kMaxAge, kLooseOffset);
  const auto at = [](std::int64_t t) { return kClientClock + static_cast<std::uint64_t>(t); };
  EXPECT_FALSE(f.Judge(0, Wall(0), at(0), 10, false).drop) << "the first may have any sequence";
  EXPECT_EQ(f.Judge(20 * kMs, Wall(20 * kMs), at(20 * kMs), 10, false).drop,
            sm::Reason::kSequenceNotIncreasing);
  EXPECT_FALSE(f.Judge(40 * kMs, Wall(40 * kMs), at(40 * kMs), 12, false).drop);
  EXPECT_EQ(f.Judge(41 * kMs, Wall(41 * kMs), at(30 * kMs), 11, false).drop,
            sm::Reason::kSequenceNotIncreasing)
      << "overtaken by 12";
  EXPECT_EQ(f.Judge(60 * kMs, Wall(60 * kMs), at(60 * kMs), 5, false).drop,
            sm::Reason::kSequenceNotIncreasing);
  EXPECT_FALSE(f.Judge(80 * kMs, Wall(80 * kMs), at(80 * kMs), 13, false).drop);
}

TEST(CommandFreshness, TheSequenceMayWrapAround) {
  CommandFreshness f(kMaxAge, kLooseOffset);
  EXPECT_FALSE(f.Judge(0, Wall(0), kClientClock, 0xFFFFFFFEu, false).drop);
  EXPECT_FALSE(f.Judge(1, Wall(1), kClientClock + 1, 0xFFFFFFFFu, false).drop);
  EXPECT_FALSE(f.Judge(2, Wall(2), kClientClock + 2, 0, false).drop);
  EXPECT_FALSE(f.Judge(3, Wall(3), kClientClock + 3, 1, false).drop);
  EXPECT_EQ(f.Judge(4, Wall(4), kClientClock + 4, 0xFFFFFFF0u, false).drop,
            sm::Reason::kSequenceNotIncreasing);
}

TEST(CommandFreshness, ACommandWithoutTimestampIsDropped) {
  CommandFreshness f(kMaxAge, kLooseOffset);
  EXPECT_EQ(f.Judge(0, Wall(0), 0, 1, false).drop, sm::Reason::kNoTimestamp);
  EXPECT_FALSE(f.Judge(1, Wall(1), kClientClock, 1, false).drop) << "its sequence was not taken";
}

// The client's clock steps back 5 s (NTP): everything looks 5 s late. After 1 s of consistently
// late commands the floor moves and the client is served again, without reconnecting.
// Found by fuzz_api_session: a timestamp beyond int64 range overflowed the offset arithmetic.
TEST(CommandFreshness, AnAbsurdTimestampIsDroppedAsUnjudgeableAndLeavesTheClientWorking) {
  Client c;
  ASSERT_FALSE(c.Send(0, 2 * kMs).drop);
  for (const std::uint64_t absurd :
       {~std::uint64_t{0}, std::uint64_t{1} << 63, CommandFreshness::kMaxTimestampUs + 1}) {
    const auto v =
        c.freshness.Judge(10 * kMs, Wall(10 * kMs), absurd, ++c.sequence, /*is_damp=*/false);
    EXPECT_EQ(v.drop, sm::Reason::kNoTimestamp) << absurd;
    EXPECT_FALSE(
        c.freshness.Judge(11 * kMs, Wall(11 * kMs), absurd, ++c.sequence, /*is_damp=*/true).drop)
        << "DAMP is never dropped";
  }
  const auto next = c.Send(20 * kMs, 2 * kMs);
  EXPECT_FALSE(next.drop);
  EXPECT_EQ(next.age_us, 0);
}

TEST(CommandFreshness, AClientClockSteppingBackRecoversAfterOneSecond) {
  Client c;
  for (std::int64_t t = 0; t < kS; t += 20 * kMs) ASSERT_FALSE(c.Send(t, 2 * kMs).drop);
  c.clock_step_us = -5 * kS;
  std::int64_t t = kS;
  for (; t < 3 * kS; t += 20 * kMs) {
    const auto v = c.Send(t, 2 * kMs);
    if (!v.drop) {
      ASSERT_TRUE(v.resync_step_us) << t;
      EXPECT_NEAR(*v.resync_step_us, 5 * kS, 2 * kMs) << "less the drift allowance";
      break;
    }
    EXPECT_EQ(v.drop, sm::Reason::kCommandStale);
  }
  EXPECT_EQ(t, 2 * kS) << "recovered after a second of stale commands";
  for (t += 20 * kMs; t < 3 * kS; t += 20 * kMs) ASSERT_FALSE(c.Send(t, 2 * kMs).drop) << t;
}

// A link that starts delaying everything by 3 s looks like a clock stepping back: commands are
// accepted again after the resync, but their send times stay as judged before it, so none of
// them counts as sent after a DAMP of the last 3 s.
TEST(CommandFreshness, AResyncNeverMakesACommandLookSentLater) {
  Client c;
  for (std::int64_t t = 0; t < kS; t += 20 * kMs) ASSERT_FALSE(c.Send(t, 2 * kMs).drop);
  std::int64_t t = kS;
  for (; t < 4 * kS; t += 20 * kMs) {
    if (!c.Send(t, 3 * kS).drop) break;
  }
  ASSERT_LT(t, 4 * kS) << "resynced";
  const auto v = c.Send(t + 20 * kMs, 3 * kS);
  EXPECT_FALSE(v.drop);
  EXPECT_NEAR(v.sent_us, t + 20 * kMs, 10 * kMs)
      << "its real send time (within the drift allowance), 3 s before it arrived";
}

TEST(CommandFreshness, AClockSteppingForwardIsAcceptedAtOnce) {
  Client c;
  for (std::int64_t t = 0; t < kS; t += 20 * kMs) c.Send(t, 2 * kMs);
  c.clock_step_us = 5 * kS;
  EXPECT_FALSE(c.Send(kS, 2 * kMs).drop);
  c.clock_step_us = 0;  // and back: as a step backwards, stale until it resyncs
  EXPECT_EQ(c.Send(kS + 20 * kMs, 2 * kMs).drop, sm::Reason::kCommandStale);
}

// Two clocks drift apart by up to 1000 ppm: a stream that slowly looks later is not dropped.
TEST(CommandFreshness, ClockDriftIsFollowed) {
  Client c;
  for (std::int64_t t = 0; t < 600 * kS; t += 20 * kMs) {
    c.clock_step_us = -t / 2000;  // 500 ppm slow: 300 ms behind after 10 minutes
    ASSERT_FALSE(c.Send(t, 2 * kMs).drop) << t;
  }
}

// C1 of issue 38: a command stamped an hour ago, retained or queued while the link was down,
// arrives first on a new connection. The floor has nothing to judge it by; robot-edged's own
// wall clock does.
TEST(CommandFreshness, AnOldCommandIsRefusedAsTheFirstOfAConnection) {
  constexpr std::int64_t kOffset = 1000 * kMs;  // api.max_clock_offset_ms 1000
  for (const std::int64_t age : {3600 * kS, 20 * kS, kMaxAge + kOffset + kMs}) {
    CommandFreshness f(kMaxAge, kOffset);
    const std::int64_t now = 50 * kS;
    const auto stamp = static_cast<std::uint64_t>(Wall(now) - age);
    const auto v = f.Judge(now, Wall(now), stamp, 1, /*is_damp=*/false);
    EXPECT_EQ(v.drop, sm::Reason::kCommandClockOffset) << age;
    EXPECT_EQ(v.clock_offset_us, age);
    EXPECT_FALSE(f.Judge(now, Wall(now), stamp, 2, /*is_damp=*/true).drop) << "DAMP never drops";
    // A fresh command right after it is accepted: the old one set nothing that blocks.
    EXPECT_FALSE(
        f.Judge(now + kMs, Wall(now + kMs), static_cast<std::uint64_t>(Wall(now)), 3, false).drop);
  }
}

TEST(CommandFreshness, TheClockOffsetBoundIsMaxAgePlusOffsetBehindAndOffsetAhead) {
  constexpr std::int64_t kOffset = 1000 * kMs;
  const std::int64_t now = 50 * kS;
  const auto judge = [&](std::int64_t stamp_offset) {
    CommandFreshness f(kMaxAge, kOffset);
    return f.Judge(now, Wall(now), static_cast<std::uint64_t>(Wall(now) - stamp_offset), 1, false)
        .drop;
  };
  EXPECT_FALSE(judge(kMaxAge + kOffset)) << "as old as allowed";
  EXPECT_EQ(judge(kMaxAge + kOffset + 1), sm::Reason::kCommandClockOffset);
  EXPECT_FALSE(judge(-kOffset)) << "a client clock ahead by as much as allowed";
  EXPECT_EQ(judge(-kOffset - 1), sm::Reason::kCommandClockOffset)
      << "a clock far ahead would make old commands look new";
}

// A replayed command is old as well: it is named a replay (the DDS bridge's test replays a
// writer's samples seconds later and expects sequence_not_increasing).
TEST(CommandFreshness, AnOldReplayIsNamedAReplayNotAClockOffset) {
  constexpr std::int64_t kOffset = 1000 * kMs;
  CommandFreshness f(kMaxAge, kOffset);
  const std::int64_t now = 50 * kS;
  const auto stamp = static_cast<std::uint64_t>(Wall(now));
  ASSERT_FALSE(f.Judge(now, Wall(now), stamp, 7, false).drop);
  const std::int64_t later = now + 5 * kS;
  EXPECT_EQ(f.Judge(later, Wall(later), stamp, 7, false).drop, sm::Reason::kSequenceNotIncreasing);
  EXPECT_EQ(f.Judge(later, Wall(later), stamp, 8, false).drop, sm::Reason::kCommandClockOffset)
      << "a new sequence with an old stamp is still refused by the wall clock";
}

}  // namespace
}  // namespace robot_edge::daemon
