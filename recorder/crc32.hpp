// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF): the
// checksum MCAP uses for chunks, the data section and the summary. Pure, no allocation.
#pragma once

#include <cstdint>
#include <span>

namespace robot_edge::recorder {

// CRC of `bytes` continued from `previous`, the CRC of the bytes before them (zlib's crc32()
// convention): Crc32(b, Crc32(a)) == Crc32(a + b), and Crc32({}) == 0.
// Crc32("123456789") == 0xCBF43926.
std::uint32_t Crc32(std::span<const std::uint8_t> bytes, std::uint32_t previous = 0);

}  // namespace robot_edge::recorder
