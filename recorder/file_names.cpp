#include "recorder/file_names.hpp"

#include <chrono>
#include <cstdio>

namespace robot_edge::recorder {
namespace {

using std::chrono::days;
using std::chrono::nanoseconds;
using std::chrono::sys_days;

constexpr std::string_view kExtension = ".mcap";
constexpr std::size_t kStampChars = 15;    // YYYYmmdd-HHMMSS
constexpr std::size_t kStampMsChars = 19;  // YYYYmmdd-HHMMSS.mmm
constexpr std::size_t kMaxReasonChars = 64;
constexpr std::uint64_t kNsPerMs = 1'000'000;
constexpr std::uint64_t kNsPerS = 1'000'000'000;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The digits of text[at, at + n) as a number; nullopt if any is not a digit.
std::optional<unsigned> Digits(std::string_view text, std::size_t at, std::size_t n) {
  unsigned v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (!IsDigit(text[i])) return std::nullopt;
    v = v * 10 + static_cast<unsigned>(text[i] - '0');
  }
  return v;
}

// `name` without "<prefix>_" in front and ".mcap" behind; nullopt when it has not both.
std::optional<std::string_view> Middle(std::string_view prefix, std::string_view name) {
  if (name.size() < prefix.size() + 1 + kExtension.size()) return std::nullopt;
  if (!name.starts_with(prefix) || name[prefix.size()] != '_' || !name.ends_with(kExtension)) {
    return std::nullopt;
  }
  name.remove_prefix(prefix.size() + 1);
  name.remove_suffix(kExtension.size());
  return name;
}

bool IsReasonChar(char c) {
  return IsDigit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '-';
}

}  // namespace

std::string UtcStamp(std::uint64_t time_ns) {
  const sys_days day = std::chrono::floor<days>(
      std::chrono::sys_time<nanoseconds>(nanoseconds(static_cast<std::int64_t>(time_ns))));
  const std::chrono::year_month_day ymd(day);
  const std::uint64_t s = time_ns / kNsPerS % 86400;
  char text[32];
  std::snprintf(text, sizeof(text), "%04d%02u%02u-%02u%02u%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<unsigned>(s / 3600), static_cast<unsigned>(s / 60 % 60),
                static_cast<unsigned>(s % 60));
  return text;
}

std::string UtcStampMs(std::uint64_t time_ns) {
  char ms[8];
  std::snprintf(ms, sizeof(ms), ".%03u", static_cast<unsigned>(time_ns / kNsPerMs % 1000));
  return UtcStamp(time_ns) + ms;
}

std::optional<std::uint64_t> ParseUtcStamp(std::string_view stamp) {
  if (stamp.size() != kStampChars && stamp.size() != kStampMsChars) return std::nullopt;
  if (stamp[8] != '-') return std::nullopt;
  const auto year = Digits(stamp, 0, 4), month = Digits(stamp, 4, 2), day = Digits(stamp, 6, 2);
  const auto h = Digits(stamp, 9, 2), m = Digits(stamp, 11, 2), s = Digits(stamp, 13, 2);
  if (!year || !month || !day || !h || !m || !s || *h > 23 || *m > 59 || *s > 59) {
    return std::nullopt;
  }
  std::uint64_t ms = 0;
  if (stamp.size() == kStampMsChars) {
    const auto digits = Digits(stamp, 16, 3);
    if (stamp[15] != '.' || !digits) return std::nullopt;
    ms = *digits;
  }
  const std::chrono::year_month_day ymd{std::chrono::year(static_cast<int>(*year)),
                                        std::chrono::month(*month), std::chrono::day(*day)};
  if (!ymd.ok() || ymd.year() < std::chrono::year(1970)) return std::nullopt;
  const auto day_count = static_cast<std::uint64_t>(sys_days(ymd).time_since_epoch().count());
  return ((day_count * 86400 + *h * 3600 + *m * 60 + *s) * 1000 + ms) * kNsPerMs;
}

bool IsFileNamePrefix(std::string_view prefix) {
  if (prefix.empty()) return false;
  for (char c : prefix) {
    if (!IsReasonChar(c) && c != '.' && c != '_') return false;
  }
  return true;
}

std::string RecordingFileName(std::string_view prefix, std::uint64_t time_ns, std::uint64_t n) {
  char number[24];
  std::snprintf(number, sizeof(number), "_%06llu", static_cast<unsigned long long>(n));
  return std::string(prefix) + "_" + UtcStamp(time_ns) + number + std::string(kExtension);
}

std::optional<std::uint64_t> ParseRecordingFileName(std::string_view prefix,
                                                    std::string_view name) {
  const std::optional<std::string_view> middle = Middle(prefix, name);
  if (!middle || middle->size() < kStampChars + 2 || (*middle)[kStampChars] != '_') {
    return std::nullopt;
  }
  if (!ParseUtcStamp(middle->substr(0, kStampChars))) return std::nullopt;
  const std::string_view digits = middle->substr(kStampChars + 1);
  if (digits.size() > 19) return std::nullopt;
  std::uint64_t n = 0;
  for (char c : digits) {
    if (!IsDigit(c)) return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return n;
}

std::string SanitizeReason(std::string_view reason) {
  std::string out;
  for (char c : reason) {
    if (out.size() >= kMaxReasonChars) break;
    if (IsReasonChar(c)) {
      out += c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? "unknown" : out;
}

std::string BlackBoxFileName(std::string_view prefix, std::uint64_t trigger_ns,
                             std::string_view reason) {
  return std::string(prefix) + "_" + UtcStampMs(trigger_ns) + "_" + SanitizeReason(reason) +
         std::string(kExtension);
}

std::optional<BlackBoxName> ParseBlackBoxFileName(std::string_view prefix, std::string_view name) {
  const bool partial = name.ends_with(kPartialSuffix);
  if (partial) name.remove_suffix(kPartialSuffix.size());
  const std::optional<std::string_view> middle = Middle(prefix, name);
  if (!middle || middle->size() < kStampMsChars + 2 || (*middle)[kStampMsChars] != '_') {
    return std::nullopt;
  }
  const std::optional<std::uint64_t> time = ParseUtcStamp(middle->substr(0, kStampMsChars));
  const std::string_view reason = middle->substr(kStampMsChars + 1);
  if (!time) return std::nullopt;
  for (char c : reason) {
    if (!IsReasonChar(c) && c != '_') return std::nullopt;
  }
  return BlackBoxName{*time, std::string(reason), partial};
}

}  // namespace robot_edge::recorder
