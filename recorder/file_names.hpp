// The names of the flight recorder's files: pure functions, no I/O, no clock (times are passed
// in, ns since the Unix epoch, printed in UTC). Names sort by time as plain strings.
//
//   continuous recording  <prefix>_<YYYYmmdd-HHMMSS>_<n>.mcap
//                         robot-edge_20240501-120000_000042.mcap
//   black box dump        <prefix>_<YYYYmmdd-HHMMSS.mmm>_<reason>.mcap
//                         blackbox_20240501-120000.250_MOTOR_OVERTEMP_L_Knee.mcap
//   one not (yet) whole   the same name + ".partial": being written, or its dump failed (or
//                         the process died mid-dump); it holds the complete chunks it reached
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace robot_edge::recorder {

// "20240501-120000" (seconds truncated) and "20240501-120000.250" (milliseconds truncated).
std::string UtcStamp(std::uint64_t time_ns);
std::string UtcStampMs(std::uint64_t time_ns);
// The inverse of both (the ".mmm" part optional); nullopt for anything else, e.g. a 13th month.
std::optional<std::uint64_t> ParseUtcStamp(std::string_view stamp);

// A prefix is non-empty and made of [A-Za-z0-9._-] only: the files stay in their directory.
bool IsFileNamePrefix(std::string_view prefix);

// `n` (printed with at least 6 digits) makes two files of the same second differ; the recorder
// numbers its files in recording order.
std::string RecordingFileName(std::string_view prefix, std::uint64_t time_ns, std::uint64_t n);
// `n` of a name RecordingFileName(prefix, ...) made; nullopt for any other name.
std::optional<std::uint64_t> ParseRecordingFileName(std::string_view prefix, std::string_view name);

// A reason fit for a file name: [A-Za-z0-9-] kept, runs of anything else become one '_',
// '_' trimmed at both ends, at most 64 characters; "unknown" when nothing is left.
// "MOTOR_OVERTEMP L_Knee" -> "MOTOR_OVERTEMP_L_Knee".
std::string SanitizeReason(std::string_view reason);

inline constexpr std::string_view kPartialSuffix = ".partial";

std::string BlackBoxFileName(std::string_view prefix, std::uint64_t trigger_ns,
                             std::string_view reason);
struct BlackBoxName {
  std::uint64_t trigger_time_ns = 0;  // to the millisecond
  std::string reason;                 // as sanitised in the name
  bool partial = false;               // the name ends with kPartialSuffix
};
// A name BlackBoxFileName made, with or without kPartialSuffix; nullopt for any other.
std::optional<BlackBoxName> ParseBlackBoxFileName(std::string_view prefix, std::string_view name);

}  // namespace robot_edge::recorder
