// Hex helpers for golden-frame tests: Hexify({0x80, 0x00}) == "8000".
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace robot_edge::can::test {

inline std::string Hexify(std::span<const std::uint8_t> bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::uint8_t b : bytes) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 0xF]);
  }
  return out;
}

inline std::string Hexify(std::span<const std::uint8_t> bytes, std::size_t len) {
  return Hexify(bytes.subspan(0, len));
}

}  // namespace robot_edge::can::test
