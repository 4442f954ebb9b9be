// WebSocket frame headers (RFC 6455 section 5.2) of the frames the server builds itself, unmasked
// as a server's must be. Pure, no I/O.
//
// Why the server builds frames: a messageData's 13-byte header differs per subscriber (the
// subscription id is the client's), its payload does not. Each message goes to a subscriber as
// one fragmented WebSocket message: a first frame (binary, FIN clear) with that subscriber's 13
// bytes, then a continuation frame (FIN set) holding the payload, built once and shared by every
// subscriber. Clients see one binary message, reassembled by their WebSocket library.
#pragma once

#include <cstdint>
#include <string>

namespace robot_edge::live {

inline constexpr std::uint8_t kWsContinuation = 0x0;
inline constexpr std::uint8_t kWsText = 0x1;
inline constexpr std::uint8_t kWsBinary = 0x2;

// Header of an unmasked frame: FIN and opcode, then the payload length in 7 bits, 7+16 or 7+64
// (big-endian). Examples: (kWsBinary, false, 13) -> 02 0d; (kWsContinuation, true, 300) ->
// 80 7e 01 2c.
std::string WsFrameHeader(std::uint8_t opcode, bool fin, std::uint64_t payload_length);

}  // namespace robot_edge::live
