// The uplink's gate of fleet commands (uplink/command_gate.hpp): the retain flag, the age on the
// uplink's wall clock both ways, timestamps that cannot be judged, and DAMP never refused. Time
// is a parameter: every case gives "now" and the stamp by hand.
#include "uplink/command_gate.hpp"

#include <gtest/gtest.h>

namespace robot_edge::uplink {
namespace {

constexpr std::int64_t kNow = 1'800'000'000'000'000;  // µs since the Unix epoch (2027)
constexpr std::int64_t kBound = 1'000'000;            // max_command_age_ms 1000
constexpr std::int64_t kHour = 3'600'000'000;

std::uint64_t At(std::int64_t unix_us) { return static_cast<std::uint64_t>(unix_us); }

CommandVerdict Stand(std::uint64_t stamp, bool retained = false) {
  return JudgeCommand(retained, /*is_damp=*/false, stamp, kNow, kBound);
}

TEST(CommandGate, AFreshCommandPassesWithItsAge) {
  const CommandVerdict v = Stand(At(kNow - 40'000));
  EXPECT_TRUE(v.forward());
  EXPECT_EQ(v.age_us, 40'000);
  EXPECT_EQ(RefusalReason(v, kBound), "");
}

TEST(CommandGate, TheBoundItselfPassesOneMicrosecondMoreDoesNot) {
  EXPECT_TRUE(Stand(At(kNow - kBound)).forward());
  EXPECT_EQ(Stand(At(kNow - kBound - 1)).refusal, Refusal::kTooOld);
  EXPECT_TRUE(Stand(At(kNow + kBound)).forward());
  EXPECT_EQ(Stand(At(kNow + kBound + 1)).refusal, Refusal::kAhead);
}

// The audit's STAND: left on the broker, stamped an hour before.
TEST(CommandGate, AnHourOldCommandIsRefusedWithItsAge) {
  const CommandVerdict v = Stand(At(kNow - kHour));
  EXPECT_EQ(v.refusal, Refusal::kTooOld);
  EXPECT_EQ(v.age_us, kHour);
  const std::string reason = RefusalReason(v, kBound);
  EXPECT_NE(reason.find("too old: 3600000 ms"), std::string::npos) << reason;
  EXPECT_NE(reason.find("max_command_age_ms 1000"), std::string::npos) << reason;
}

// Queued in the broker while the uplink was down for 20 s: as old as the outage.
TEST(CommandGate, ACommandQueuedDuringAnOutageIsRefused) {
  EXPECT_EQ(Stand(At(kNow - 20'000'000)).refusal, Refusal::kTooOld);
}

TEST(CommandGate, ACommandStampedFarAheadIsRefused) {
  const CommandVerdict v = Stand(At(kNow + 5'000'000));
  EXPECT_EQ(v.refusal, Refusal::kAhead);
  EXPECT_EQ(v.age_us, -5'000'000);
  EXPECT_NE(RefusalReason(v, kBound).find("5000 ms ahead"), std::string::npos)
      << RefusalReason(v, kBound);
}

TEST(CommandGate, TimestampsThatCannotBeJudgedAreRefusedWithoutOverflow) {
  EXPECT_EQ(Stand(0).refusal, Refusal::kNoTimestamp);
  EXPECT_EQ(Stand(kMaxCommandTimestampUs).refusal, Refusal::kNoTimestamp);
  EXPECT_EQ(Stand(~std::uint64_t{0}).refusal, Refusal::kNoTimestamp);
  EXPECT_EQ(Stand(std::uint64_t{1} << 63).age_us, 0);
  EXPECT_EQ(Stand(kMaxCommandTimestampUs - 1).refusal, Refusal::kAhead);
}

TEST(CommandGate, ARetainedCommandIsRefusedEvenWhenFresh) {
  const CommandVerdict v = Stand(At(kNow), /*retained=*/true);
  EXPECT_EQ(v.refusal, Refusal::kRetained);
  EXPECT_NE(RefusalReason(v, kBound).find("retained message ignored"), std::string::npos);
}

// A stop is never lost: not to its age, its stamp or the retain flag.
TEST(CommandGate, ADampIsNeverRefused) {
  for (const std::uint64_t stamp : {At(kNow - kHour), At(kNow + kHour), std::uint64_t{0}}) {
    for (const bool retained : {false, true}) {
      EXPECT_TRUE(JudgeCommand(retained, /*is_damp=*/true, stamp, kNow, kBound).forward())
          << stamp << " retained " << retained;
    }
  }
  EXPECT_EQ(JudgeCommand(false, true, At(kNow - kHour), kNow, kBound).age_us, kHour);
}

TEST(CommandGate, TheBoundIsTheCallers) {
  EXPECT_TRUE(JudgeCommand(false, false, At(kNow - 30'000'000), kNow, 60'000'000).forward());
  EXPECT_EQ(JudgeCommand(false, false, At(kNow - 150'000), kNow, 100'000).refusal,
            Refusal::kTooOld);
}

}  // namespace
}  // namespace robot_edge::uplink
