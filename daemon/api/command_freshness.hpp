// Whether a client's command is fresh enough to move the robot, judged without trusting the
// client's clock to agree with ours (pure: times are passed in). One per client connection.
//
// The rule, for every command but DAMP (which is never dropped, and whose sequence counts);
// the first reason that holds is the one given:
//   no_timestamp             CloudCommand.timestamp_us is 0, or above kMaxTimestampUs (2^62 µs,
//                            146 000 years: a hostile or broken client): its age cannot be
//                            judged. The bound keeps every difference below in int64 range.
//   sequence_not_increasing  its sequence is not above the last one accepted from this
//                            connection, in serial-number arithmetic (RFC 1982: a is above b
//                            when 0 < a − b < 2^31, so the counter may wrap): a replay, a
//                            duplicate or a reordered packet. The first command of a connection
//                            may have any sequence. (Named before the clock: a replayed
//                            command is old too, and "replayed" is the more precise reason.)
//   command_clock_offset     its timestamp_us, read against robot-edged's own wall clock, is
//                            older than max_age + max_clock_offset, or ahead by more than
//                            max_clock_offset. This holds on any connection and for its first
//                            command too, which the floor below cannot judge (a command queued
//                            or retained for an hour, replayed on a new connection, is refused
//                            here). It asks the client's clock and the robot's to agree within
//                            max_clock_offset (NTP / chrony keep them within milliseconds).
//   command_stale            it arrived more than max_age later than the quickest delivery seen
//                            from this client:
//       offset o = received_us − timestamp_us  (our clock minus the client's, plus the delay)
//       floor  F = min(o, F + kDriftPpm × time since the previous command)
//       age      = o − F                       (0 for the quickest delivery)
//     The floor follows the quickest delivery, and rises only as fast as two clocks drift apart
//     (≤ 1000 ppm). So packets buffered during a network stall and delivered in a burst are
//     stale by about the stall's length, however long the stall.
//   Clock steps: a client clock stepping forward makes offsets smaller, accepted at once. One
//   stepping backward makes every command look late by the step: once every command has been
//   stale for kResyncUs and at least kResyncCommands, with offsets that agree within max_age (one
//   step, not a burst buffered over time), the floor moves to them and the client recovers
//   without reconnecting — after ~1 s of dropped commands (a trajectory stream DAMPs meanwhile,
//   the safe side). The resync is reported.
//
// sent_us = timestamp_us + S estimates when the client sent the command, on our clock (late by
// at most the quickest delivery's delay): the state machine refuses to leave DAMP for a command
// sent before DAMP was entered. S is F without the resyncs: a resync cannot tell a clock step
// from a link that delays everything by as much, so it never makes a command look sent later
// (a re-anchor never by itself takes the robot out of DAMP). After a real step back of s, a
// command is taken as sent up to s earlier than it was, until the client reconnects.
//
// Threads: the API thread's (one per connection, inside CommandIntake).
#pragma once

#include <cstdint>
#include <optional>

#include "statemachine/counters.hpp"

namespace robot_edge::daemon {

class CommandFreshness {
 public:
  static constexpr std::int64_t kDriftPpm = 1000;
  static constexpr std::int64_t kResyncUs = 1'000'000;
  static constexpr std::uint32_t kResyncCommands = 5;
  static constexpr std::uint64_t kMaxTimestampUs = std::uint64_t{1} << 62;

  struct Verdict {
    // kNoTimestamp, kCommandClockOffset, kSequenceNotIncreasing or kCommandStale
    std::optional<sm::Reason> drop;
    std::int64_t sent_us = 0;          // estimated send time (µs, the receive clock)
    std::int64_t age_us = 0;           // later than the quickest delivery by this much
    std::int64_t clock_offset_us = 0;  // robot-edged's wall clock − timestamp_us (0: none)
    std::optional<std::int64_t> resync_step_us;  // the floor just moved by this (a clock step)
  };

  CommandFreshness(std::int64_t max_age_us, std::int64_t max_clock_offset_us)
      : max_age_us_(max_age_us), max_clock_offset_us_(max_clock_offset_us) {}

  // `received_us`: our steady clock; `wall_us`: our wall clock (µs since the Unix epoch) at the
  // same moment; `timestamp_us`: CloudCommand.timestamp_us (the client's clock); `is_damp`: a
  // ModeCommand(DAMP), never dropped.
  Verdict Judge(std::int64_t received_us, std::int64_t wall_us, std::uint64_t timestamp_us,
                std::uint32_t sequence, bool is_damp);

 private:
  bool SequenceAdvances(std::uint32_t sequence) const;
  void UpdateFloor(std::int64_t received_us, std::int64_t offset_us);
  // A stale command: extends the run of stale ones; true when it resynchronised the floor.
  bool TrackStaleRun(std::int64_t received_us, std::int64_t offset_us);

  bool ClockDisagrees(std::int64_t clock_offset_us) const {
    return clock_offset_us > max_age_us_ + max_clock_offset_us_ ||
           clock_offset_us < -max_clock_offset_us_;
  }

  std::int64_t max_age_us_;
  std::int64_t max_clock_offset_us_;
  bool have_sequence_ = false;
  std::uint32_t last_sequence_ = 0;
  bool have_floor_ = false;
  std::int64_t floor_us_ = 0;
  std::int64_t sent_floor_us_ = 0;  // S: the floor as if no resync had happened
  std::int64_t last_received_us_ = 0;
  // The current run of consecutive stale commands.
  std::uint32_t stale_count_ = 0;
  std::int64_t stale_since_us_ = 0;
  std::int64_t stale_min_us_ = 0, stale_max_us_ = 0;  // their offsets
};

}  // namespace robot_edge::daemon
