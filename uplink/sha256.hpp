// SHA-256 of a file's bytes, and the two ways a fleet reads it (OpenSSL's EVP; no state).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace robot_edge::uplink {

using Sha256 = std::array<std::uint8_t, 32>;

Sha256 Sha256Of(std::string_view bytes);
// The first `bytes` bytes of the open file `fd` (read with pread from offset 0); nullopt when
// the file is shorter or a read fails.
std::optional<Sha256> Sha256OfFile(int fd, std::uint64_t bytes);

std::string Hex(const Sha256& digest);     // 64 lower-case hex digits (reports, announcements)
std::string Base64(const Sha256& digest);  // 44 characters (x-amz-checksum-sha256)

}  // namespace robot_edge::uplink
