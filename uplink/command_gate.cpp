#include "uplink/command_gate.hpp"

namespace robot_edge::uplink {

CommandVerdict JudgeCommand(bool retained, bool is_damp, std::uint64_t timestamp_us,
                            std::int64_t now_unix_us, std::int64_t max_age_us) {
  CommandVerdict v;
  const bool judged = timestamp_us != 0 && timestamp_us < kMaxCommandTimestampUs;
  if (judged) v.age_us = now_unix_us - static_cast<std::int64_t>(timestamp_us);
  if (is_damp) return v;  // never refused
  if (retained) {
    v.refusal = Refusal::kRetained;
  } else if (!judged) {
    v.refusal = Refusal::kNoTimestamp;
  } else if (v.age_us > max_age_us) {
    v.refusal = Refusal::kTooOld;
  } else if (v.age_us < -max_age_us) {
    v.refusal = Refusal::kAhead;
  }
  return v;
}

std::string RefusalReason(const CommandVerdict& v, std::int64_t max_age_us) {
  const std::string limit = " (max_command_age_ms " + std::to_string(max_age_us / 1000) + ")";
  switch (v.refusal) {
    case Refusal::kNone: return "";
    case Refusal::kRetained: return kRetainedReason;
    case Refusal::kNoTimestamp:
      return "command without a usable timestamp_us (0, or 2^62 µs and above): its age cannot "
             "be judged";
    case Refusal::kTooOld:
      return "command too old: " + std::to_string(v.age_us / 1000) +
             " ms behind the uplink's clock" + limit +
             "; queued while the robot was away, or replayed";
    case Refusal::kAhead:
      return "command stamped " + std::to_string(-v.age_us / 1000) +
             " ms ahead of the uplink's clock" + limit +
             "; the sender's clock or the robot's is wrong";
  }
  return "";
}

}  // namespace robot_edge::uplink
