#include "live/ws_frame.hpp"

namespace robot_edge::live {

std::string WsFrameHeader(std::uint8_t opcode, bool fin, std::uint64_t payload_length) {
  std::string header;
  header.push_back(static_cast<char>((fin ? 0x80 : 0x00) | (opcode & 0x0F)));
  int length_bytes = 0;
  if (payload_length < 126) {
    header.push_back(static_cast<char>(payload_length));
  } else if (payload_length <= 0xFFFF) {
    header.push_back(126);
    length_bytes = 2;
  } else {
    header.push_back(127);
    length_bytes = 8;
  }
  for (int i = length_bytes - 1; i >= 0; --i) {
    header.push_back(static_cast<char>(payload_length >> (8 * i) & 0xFF));
  }
  return header;
}

}  // namespace robot_edge::live
