// Which rt/lowcmd writer robot-edge-dds follows, and each followed sample's timestamp_us and
// sequence taken from the sender's own clock (pure: no DDS call, no clock, no log; the caller
// passes what DDS says about each sample and logs what it is told to).
//
// One writer at a time:
//   - the first writer a sample comes from is followed;
//   - a sample from another writer is ignored (logged once per writer) while the followed one
//     is still matched by the reader (DDS: dds_get_matched_publications);
//   - once the followed writer is no longer matched (its writer deleted, its participant gone),
//     the next writer a sample comes from is followed instead (`switched`: the caller starts a
//     new connection to robot-edged for it, so that the daemon judges it as a new client).
// The sender's clock, per followed writer:
//   - timestamp_us = the sample's source timestamp (the writer's wall clock, ns since the epoch)
//     / 1000; 0 (robot-edged: no_timestamp) when the source timestamp is not positive;
//   - sequence = 1 for the writer's first sample, then one more for each sample whose source
//     timestamp is later than every earlier one of the writer's; a sample whose source timestamp
//     does not advance keeps the last sequence, so robot-edged refuses it
//     (sequence_not_increasing) like a replayed or reordered packet. Freshness (command_stale)
//     and sent_before_damp are then judged by robot-edged on the sender's timestamps.
//
// Threads: the command thread's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>

namespace robot_edge::dds {

class WriterFollower {
 public:
  // Ignored writers named in the log, at most (then only counted).
  static constexpr std::size_t kMaxNamedIgnored = 64;

  struct Decision {
    bool follow = false;    // true: forward the sample with timestamp_us and sequence
    bool switched = false;  // follow: the first sample of a writer after another one went away
    std::uint64_t timestamp_us = 0;  // µs since the epoch, the sender's clock (follow only)
    std::uint32_t sequence = 0;      // follow only
    std::string log;                 // a line to log ("": nothing)
  };

  // A valid sample from `writer` (DDS publication handle) stamped `source_ns` (ns since the
  // epoch, the writer's clock). `followed_matched`: whether the writer followed so far is still
  // matched; read only when the sample comes from another writer.
  Decision Offer(std::uint64_t writer, std::int64_t source_ns, bool followed_matched);

  std::optional<std::uint64_t> followed() const { return followed_; }
  std::uint64_t ignored_samples() const { return ignored_samples_; }

  // A publication handle as the log shows it (hex).
  static std::string Name(std::uint64_t writer);

 private:
  Decision Follow(std::int64_t source_ns);
  Decision Ignore(std::uint64_t writer);

  std::optional<std::uint64_t> followed_;
  std::int64_t last_source_ns_ = 0;  // the followed writer's latest source timestamp
  std::uint32_t sequence_ = 0;       // the followed writer's last sequence
  std::set<std::uint64_t> named_ignored_;
  std::uint64_t ignored_samples_ = 0;
};

}  // namespace robot_edge::dds
