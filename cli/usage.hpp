// The error a bad command line throws, and the value parsers every program's options share.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace robot_edge::cli {

// A command-line mistake; main() prints it and exits with the program's usage status (2).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A finite number. Throws "OPTION: 'TEXT' is not a number[ of UNIT]" ("" = no unit).
double ParseNumber(const std::string& option, const std::string& text, const std::string& unit);

// A whole number min..max. Throws "OPTION: 'TEXT' is not a whole number MIN..MAX".
std::uint64_t ParseWhole(const std::string& option, const std::string& text, std::uint64_t min,
                         std::uint64_t max);

// A whole number >= 0. Throws "OPTION: 'TEXT' is not a whole number >= 0".
std::uint64_t ParseCount(const std::string& option, const std::string& text);

}  // namespace robot_edge::cli
