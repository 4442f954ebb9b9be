// A fleet configuration robot-edged was asked to restart on, kept on disk until its result is
// reported: <spool.dir>/apply-pending. An uplink restarted meanwhile (killed, crashed, the host
// rebooted) reads it at start and goes on waiting for robot-edged (config_restart.hpp): it
// reports `applied` when a Welcome carries `digest`, else rolls back at `deadline_unix_us`.
//
// Written before robot-edged is asked (temporary file, fsync, rename, fsync of the directory),
// removed once the result is in the spool. Text, one "key value" a line. Pure but for the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace robot_edge::uplink {

struct PendingApply {
  std::uint64_t request_id = 0;       // the apply's id (reported in config_result)
  std::string digest;                 // the new file's config::TextDigest
  std::string config;                 // robot_edged.config: the file written
  std::string previous;               // where the replaced file was kept ("" = there was none)
  std::string previous_digest;        // its config::TextDigest as kept ("" when previous is "")
  std::int64_t asked_unix_us = 0;     // wall clock, when robot-edged was asked
  std::int64_t deadline_unix_us = 0;  // wall clock: not back on `digest` by then, rolled back
};

std::string PendingApplyText(const PendingApply& apply);
// nullopt when a key is missing or malformed (`error` says which).
std::optional<PendingApply> ParsePendingApply(const std::string& text, std::string* error);

// "" when `apply` names the files an uplink with robot_edged.config `config` writes (`config`
// itself, and `config`.previous or none); else why not. A record naming any other file is
// discarded, nothing touched: the uplink rolls back only what it wrote itself.
std::string CheckPendingApplyPaths(const PendingApply& apply, const std::string& config);

// The bytes of the file at `path`; nullopt when it cannot be read (absent).
std::optional<std::string> FileText(const std::string& path);
// config::TextDigest of the file at `path`; nullopt when it cannot be read (absent).
std::optional<std::string> FileDigest(const std::string& path);

// The record's path in `spool_dir`.
std::string PendingApplyPath(const std::string& spool_dir);
// Atomic and durable; false on an I/O error.
bool SavePendingApply(const std::string& path, const PendingApply& apply);
// nullopt and "" in `error` when there is no file; nullopt and why when it is unreadable.
std::optional<PendingApply> LoadPendingApply(const std::string& path, std::string* error);
// Removes the record (durably); true when it is gone.
bool RemovePendingApply(const std::string& path);

}  // namespace robot_edge::uplink
