// The uplink's JSON output: one way to write a string value. The readers of what it publishes
// (the fleet, docs/fleet.md) parse standard JSON.
#pragma once

#include <string>
#include <string_view>

namespace robot_edge::uplink {

// `text` as the inside of a JSON string: '"' and '\' escaped, control characters as \u00XX
// (bytes >= 0x80 pass as they are: UTF-8 stays UTF-8).
std::string JsonEscaped(std::string_view text);

// `text` as a JSON string value, quotes included.
inline std::string JsonQuoted(std::string_view text) { return '"' + JsonEscaped(text) + '"'; }

}  // namespace robot_edge::uplink
