// Token comparison that takes the same time wherever the first difference is.
#pragma once

#include <algorithm>
#include <string_view>

namespace robot_edge::daemon {

inline bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  const std::size_t n = std::max(a.size(), b.size());
  unsigned diff = a.size() != b.size() ? 1u : 0u;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned>(x ^ y);
  }
  return diff == 0;
}

}  // namespace robot_edge::daemon
