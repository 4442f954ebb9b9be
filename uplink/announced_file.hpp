// The black boxes the uplink has seen (announced, or there when it first ran), kept across its
// restarts in <spool.dir>/announced: one file name a line. A black box robot-edged wrote while
// the uplink was down is then announced when it comes back (blackbox.hpp, BlackboxDesk::Restore).
// Written whole to a temporary file, fsynced, renamed over the old one.
#pragma once

#include <optional>
#include <set>
#include <string>

namespace robot_edge::uplink {

// The names in `path`; nullopt when there is no such file (the uplink's first run).
std::optional<std::set<std::string>> ReadAnnounced(const std::string& path);
// Replaces `path` with `names` (names holding a newline are left out). False on an I/O error.
bool WriteAnnounced(const std::string& path, const std::set<std::string>& names);

}  // namespace robot_edge::uplink
