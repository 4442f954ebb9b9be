// Base64 (RFC 4648, standard alphabet, padded): how the Foxglove WebSocket protocol carries a
// binary schema (a FileDescriptorSet) inside its JSON. Pure, no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace robot_edge::live {

// "Man" -> "TWFu", "Ma" -> "TWE=", "" -> "".
std::string Base64Encode(std::string_view bytes);

// The inverse; nullopt for text that is not padded standard base64 (tests and tools use it).
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace robot_edge::live
