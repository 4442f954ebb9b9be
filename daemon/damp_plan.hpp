// The DAMP plan: what `robot-edged --emergency-damp` (the unit's ExecStopPost) sends when the
// daemon is gone, written by the daemon at start-up so that no config has to parse afterwards.
// Per interface, its motors' pre-encoded DAMP frames (kp 0, the joint's damp_kd), then their
// exit-motor-mode frames.
//
// The file (text, versioned, checksummed; written atomically, daemon/api/atomic_file.hpp):
//   robot-edge damp-plan 1
//   source robot-edged 0.1.0 pid 812 config /etc/robot-edge/robot-edge.yaml
//   bus can0 2 2                 interface, DAMP frames, exit frames
//   d 00000001 8 7fff7ff000000ccc  can_id (hex, with its CAN_EFF_FLAG), length, data (hex)
//   d 00000002 8 7fff7ff000000ccc
//   x 00000001 8 fffffffffffffffd
//   x 00000002 8 fffffffffffffffd
//   crc32 5d1f03a2               CRC-32 (IEEE, as zlib's) of every byte before this line
// Any deviation — another version, a count that does not match, a bad checksum, a byte after
// the checksum — makes the whole plan unusable: it is never half-trusted.
//
// Threads: any thread but the control thread (it allocates).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "can/emergency.hpp"

namespace robot_edge::daemon {

struct DampPlan {
  std::string source;  // one line: who wrote it, from which config
  std::vector<can::BusDamp> buses;
};

// The plan's file under the runtime directory: `runtime_directory` (systemd's
// $RUNTIME_DIRECTORY, RuntimeDirectory=robot-edge; the first one when it lists several), or
// /run/robot-edge when null or empty.
std::string DampPlanPath(const char* runtime_directory);

std::uint32_t Crc32(std::string_view bytes);

std::string EncodeDampPlan(const DampPlan& plan);
// False, with *error naming the line and what is wrong, when `text` is not a whole valid plan.
bool DecodeDampPlan(std::string_view text, DampPlan* plan, std::string* error);

// Encodes `plan` and replaces `path` with it (mode 0640). "" or why not.
std::string WriteDampPlan(const std::string& path, const DampPlan& plan);

}  // namespace robot_edge::daemon
