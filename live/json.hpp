// Writing JSON text: the few pieces the live view's messages are made of. Pure, no I/O.
#pragma once

#include <string>
#include <string_view>

namespace robot_edge::live {

// Appends `text` as a JSON string literal (quotes included): ", \ and control characters
// escaped, other bytes (UTF-8) copied as they are.
void AppendJsonString(std::string* out, std::string_view text);

// Appends `value` as a JSON number, the shortest text that reads back to the same double;
// NaN and infinities (which JSON cannot hold) as null.
void AppendJsonNumber(std::string* out, double value);

// `text` as a JSON string literal.
std::string JsonString(std::string_view text);

}  // namespace robot_edge::live
