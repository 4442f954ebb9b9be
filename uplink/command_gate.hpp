// What the uplink lets through from its fleet -> robot topics (`commands`, `config`, `blackbox`)
// before robot-edged sees anything (pure: the clock is a parameter; no I/O, no log).
//
//   retained   a message the broker delivered with the retain flag (the uplink subscribes with
//              "do not send retained" and "retain as published", so this is one the fleet
//              published retained): state left on the broker, not a command of this moment.
//              Refused on every fleet -> robot topic.
//   too old    a CloudCommand whose timestamp_us (µs since the Unix epoch, the sender's wall
//              clock) is more than max_command_age_ms behind the uplink's wall clock: queued in
//              the broker while the robot was away, or replayed.
//   ahead      one stamped more than max_command_age_ms ahead of it (a sender's clock that far
//              ahead would make old commands look new).
//   no timestamp  timestamp_us 0, or at or above 2^62 (its age cannot be judged).
// A DAMP (a ModeCommand other than STAND, as robot-edged counts it) is never refused: a stop
// must not be lost to a clock that disagrees or a wrong retain flag, and robot-edged accepts a
// DAMP from anyone at any age.
#pragma once

#include <cstdint>
#include <string>

namespace robot_edge::uplink {

enum class Refusal { kNone, kRetained, kNoTimestamp, kTooOld, kAhead };

struct CommandVerdict {
  Refusal refusal = Refusal::kNone;
  std::int64_t age_us = 0;  // now − timestamp_us (negative: stamped ahead); 0 without timestamp
  bool forward() const { return refusal == Refusal::kNone; }
};

// Timestamps at or above this are not judged (kNoTimestamp): keeps every difference in int64.
inline constexpr std::uint64_t kMaxCommandTimestampUs = std::uint64_t{1} << 62;

// A CloudCommand received with `retained` (the MQTT flag), stamped `timestamp_us`, at
// `now_unix_us` (the uplink's wall clock); `is_damp` as above; `max_age_us` from
// max_command_age_ms. The retain flag is judged first.
CommandVerdict JudgeCommand(bool retained, bool is_damp, std::uint64_t timestamp_us,
                            std::int64_t now_unix_us, std::int64_t max_age_us);

// Why, for `status`: e.g. "command too old: 3600000 ms behind the uplink's clock (more than
// max_command_age_ms 1000)". "" for kNone.
std::string RefusalReason(const CommandVerdict& verdict, std::int64_t max_age_us);

// The reason given for a retained message on any fleet -> robot topic.
inline constexpr const char* kRetainedReason =
    "retained message ignored: publish commands, configurations and requests without the "
    "retain flag";

}  // namespace robot_edge::uplink
