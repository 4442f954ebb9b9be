// dds/writer_follower.hpp: one rt/lowcmd writer followed at a time, and the sender's own clock as
// each command's timestamp_us and sequence. Times are passed in: ns since the epoch.
#include "dds/writer_follower.hpp"

#include <gtest/gtest.h>

namespace robot_edge::dds {
namespace {

constexpr std::uint64_t kA = 0xa1, kB = 0xb2, kC = 0xc3;  // publication handles
constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;   // a wall-clock time, ns
constexpr std::int64_t kMs = 1'000'000;                   // ns

// The first writer is followed; its samples carry its clock (µs) and sequences from 1.
TEST(WriterFollower, FollowsTheFirstWriterOnItsOwnClock) {
  WriterFollower f;
  const auto first = f.Offer(kA, kT0, true);
  EXPECT_TRUE(first.follow);
  EXPECT_FALSE(first.switched);
  EXPECT_EQ(first.sequence, 1u);
  EXPECT_EQ(first.timestamp_us, static_cast<std::uint64_t>(kT0 / 1000));
  EXPECT_NE(first.log.find("following writer 00000000000000a1"), std::string::npos) << first.log;
  const auto second = f.Offer(kA, kT0 + 5 * kMs, true);
  EXPECT_TRUE(second.follow);
  EXPECT_EQ(second.sequence, 2u);
  EXPECT_EQ(second.timestamp_us, static_cast<std::uint64_t>((kT0 + 5 * kMs) / 1000));
  EXPECT_EQ(second.log, "");
  EXPECT_EQ(f.followed(), kA);
}

// A second writer is ignored while the first is matched, logged once (not per sample).
TEST(WriterFollower, IgnoresAnotherWriterWhileTheFirstIsMatched) {
  WriterFollower f;
  f.Offer(kA, kT0, true);
  const auto b1 = f.Offer(kB, kT0 + kMs, /*followed_matched=*/true);
  EXPECT_FALSE(b1.follow);
  EXPECT_NE(b1.log.find("ignoring writer 00000000000000b2: following writer 00000000000000a1"),
            std::string::npos)
      << b1.log;
  const auto b2 = f.Offer(kB, kT0 + 2 * kMs, true);
  EXPECT_FALSE(b2.follow);
  EXPECT_EQ(b2.log, "");
  EXPECT_EQ(f.ignored_samples(), 2u);
  // The first goes on undisturbed: its sequence did not move for B's samples.
  EXPECT_EQ(f.Offer(kA, kT0 + 3 * kMs, true).sequence, 2u);
}

// Once the first writer is no longer matched, the next writer heard from is followed, as a new
// client: switched (a new connection), its own clock, sequences from 1 again.
TEST(WriterFollower, FollowsTheNextWriterOnceTheFirstGoesAway) {
  WriterFollower f;
  f.Offer(kA, kT0, true);
  f.Offer(kA, kT0 + kMs, true);
  f.Offer(kB, kT0 + 2 * kMs, true);                // ignored
  const std::int64_t b_clock = kT0 - 3'000 * kMs;  // B's clock is 3 s behind: its own business
  const auto b = f.Offer(kB, b_clock, /*followed_matched=*/false);
  EXPECT_TRUE(b.follow);
  EXPECT_TRUE(b.switched);
  EXPECT_EQ(b.sequence, 1u);
  EXPECT_EQ(b.timestamp_us, static_cast<std::uint64_t>(b_clock / 1000));
  EXPECT_NE(b.log.find("writer 00000000000000a1 went away; following writer 00000000000000b2"),
            std::string::npos)
      << b.log;
  EXPECT_EQ(f.followed(), kB);
  // A comes back (a new handle in DDS would be another writer; the same one is just another).
  EXPECT_FALSE(f.Offer(kA, kT0 + 4 * kMs, true).follow);
  EXPECT_FALSE(f.Offer(kC, kT0 + 4 * kMs, true).follow);
  EXPECT_EQ(f.Offer(kB, b_clock + kMs, true).sequence, 2u);
}

// A sample whose source timestamp does not advance (a replay, a duplicate, one reordered)
// keeps the last sequence: robot-edged refuses it (sequence_not_increasing). Its timestamp is
// still its own, so robot-edged judges its age too.
TEST(WriterFollower, ASampleThatDoesNotAdvanceGetsNoHigherSequence) {
  WriterFollower f;
  f.Offer(kA, kT0, true);
  EXPECT_EQ(f.Offer(kA, kT0 + 10 * kMs, true).sequence, 2u);
  const auto replay = f.Offer(kA, kT0 + 10 * kMs, true);  // the same timestamp again
  EXPECT_TRUE(replay.follow);
  EXPECT_EQ(replay.sequence, 2u);
  const auto old = f.Offer(kA, kT0 - 1'000 * kMs, true);  // a second older: a buffered one
  EXPECT_EQ(old.sequence, 2u);
  EXPECT_EQ(old.timestamp_us, static_cast<std::uint64_t>((kT0 - 1'000 * kMs) / 1000));
  // The next new one goes on from there, whatever came between.
  EXPECT_EQ(f.Offer(kA, kT0 + 11 * kMs, true).sequence, 3u);
}

// No usable source timestamp: timestamp_us 0 (robot-edged: no_timestamp), and the sequence
// does not advance either.
TEST(WriterFollower, NoSourceTimestampIsNoTimestamp) {
  WriterFollower f;
  const auto first = f.Offer(kA, 0, true);
  EXPECT_EQ(first.timestamp_us, 0u);
  EXPECT_EQ(first.sequence, 1u);
  const auto negative = f.Offer(kA, -5, true);
  EXPECT_EQ(negative.timestamp_us, 0u);
  EXPECT_EQ(negative.sequence, 1u);
}

// A crowd of other writers is named at most kMaxNamedIgnored times in the log, then counted.
TEST(WriterFollower, NamesAtMostSoManyIgnoredWriters) {
  WriterFollower f;
  f.Offer(kA, kT0, true);
  std::size_t logged = 0;
  for (std::uint64_t w = 1; w <= WriterFollower::kMaxNamedIgnored + 10; ++w) {
    logged += f.Offer(0x1000 + w, kT0, true).log.empty() ? 0 : 1;
  }
  EXPECT_EQ(logged, WriterFollower::kMaxNamedIgnored);
  EXPECT_EQ(f.ignored_samples(), WriterFollower::kMaxNamedIgnored + 10);
}

}  // namespace
}  // namespace robot_edge::dds
