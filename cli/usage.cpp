#include "cli/usage.hpp"

#include <charconv>
#include <cmath>

namespace robot_edge::cli {

namespace {

// The whole of `text` as a T, or false.
template <typename T>
bool Whole(const std::string& text, T* value) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  return !text.empty() && ec == std::errc() && ptr == end;
}

}  // namespace

double ParseNumber(const std::string& option, const std::string& text, const std::string& unit) {
  double value = 0;
  if (!Whole(text, &value) || !std::isfinite(value)) {
    throw UsageError(option + ": '" + text + "' is not a number" +
                     (unit.empty() ? std::string() : " of " + unit));
  }
  return value;
}

std::uint64_t ParseWhole(const std::string& option, const std::string& text, std::uint64_t min,
                         std::uint64_t max) {
  std::uint64_t value = 0;
  if (!Whole(text, &value) || value < min || value > max) {
    throw UsageError(option + ": '" + text + "' is not a whole number " + std::to_string(min) +
                     ".." + std::to_string(max));
  }
  return value;
}

std::uint64_t ParseCount(const std::string& option, const std::string& text) {
  std::uint64_t value = 0;
  if (!Whole(text, &value)) {
    throw UsageError(option + ": '" + text + "' is not a whole number >= 0");
  }
  return value;
}

}  // namespace robot_edge::cli
