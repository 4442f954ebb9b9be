#include "daemon/api/command_freshness.hpp"

#include <algorithm>

namespace robot_edge::daemon {

bool CommandFreshness::SequenceAdvances(std::uint32_t sequence) const {
  const auto diff = static_cast<std::int32_t>(sequence - last_sequence_);
  return !have_sequence_ || diff > 0;
}

void CommandFreshness::UpdateFloor(std::int64_t received_us, std::int64_t offset_us) {
  if (!have_floor_) {
    have_floor_ = true;
    floor_us_ = sent_floor_us_ = offset_us;
  } else {
    const std::int64_t elapsed_us = std::max<std::int64_t>(0, received_us - last_received_us_);
    const std::int64_t drift_us = elapsed_us * kDriftPpm / 1'000'000;
    floor_us_ = std::min(offset_us, floor_us_ + drift_us);
    sent_floor_us_ = std::min(offset_us, sent_floor_us_ + drift_us);
  }
  last_received_us_ = received_us;
}

bool CommandFreshness::TrackStaleRun(std::int64_t received_us, std::int64_t offset_us) {
  const bool spread = stale_count_ > 0 && (std::max(stale_max_us_, offset_us) -
                                           std::min(stale_min_us_, offset_us)) > max_age_us_;
  if (stale_count_ == 0 || spread) {  // a new run (a burst's spread starts one over)
    stale_count_ = 0;
    stale_since_us_ = received_us;
    stale_min_us_ = stale_max_us_ = offset_us;
  }
  ++stale_count_;
  stale_min_us_ = std::min(stale_min_us_, offset_us);
  stale_max_us_ = std::max(stale_max_us_, offset_us);
  if (stale_count_ < kResyncCommands || received_us - stale_since_us_ < kResyncUs) return false;
  floor_us_ = stale_min_us_;
  stale_count_ = 0;
  return true;
}

CommandFreshness::Verdict CommandFreshness::Judge(std::int64_t received_us, std::int64_t wall_us,
                                                  std::uint64_t timestamp_us,
                                                  std::uint32_t sequence, bool is_damp) {
  Verdict v;
  v.sent_us = received_us;
  if (timestamp_us > kMaxTimestampUs) timestamp_us = 0;  // unjudgeable, as if it had none
  if (timestamp_us != 0) {
    v.clock_offset_us = wall_us - static_cast<std::int64_t>(timestamp_us);
    const std::int64_t offset_us = received_us - static_cast<std::int64_t>(timestamp_us);
    UpdateFloor(received_us, offset_us);
    v.age_us = offset_us - floor_us_;
    if (v.age_us > max_age_us_) {
      const std::int64_t before_us = floor_us_;
      if (TrackStaleRun(received_us, offset_us)) {
        v.resync_step_us = floor_us_ - before_us;
        v.age_us = offset_us - floor_us_;
      }
    } else {
      stale_count_ = 0;
    }
    v.sent_us = static_cast<std::int64_t>(timestamp_us) + sent_floor_us_;
  }
  if (!is_damp) {
    if (timestamp_us == 0) {
      v.drop = sm::Reason::kNoTimestamp;
    } else if (!SequenceAdvances(sequence)) {
      v.drop = sm::Reason::kSequenceNotIncreasing;
    } else if (ClockDisagrees(v.clock_offset_us)) {
      v.drop = sm::Reason::kCommandClockOffset;
    } else if (v.age_us > max_age_us_) {
      v.drop = sm::Reason::kCommandStale;
    }
  }
  if (!v.drop && SequenceAdvances(sequence)) {
    have_sequence_ = true;
    last_sequence_ = sequence;
  }
  return v;
}

}  // namespace robot_edge::daemon
