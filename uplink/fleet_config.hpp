// A robot-edge.yaml from the fleet (topic `config`): checked by robot-edged's own parser and
// validator (config/), written only while the robot is in DAMP, the previous file kept beside it
// for rollback. Pure but for the files it writes. robot-edged applies it by restarting when
// asked (config_restart.hpp); RestorePrevious() rolls it back.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace robot_edge::uplink {

struct ConfigProblem {
  std::string key;      // e.g. "control.rate_hz" ("" when the problem names none)
  std::string message;  // the validator's, with its line
};

struct ConfigOutcome {
  bool applied = false;
  std::string reason;  // why not: "not in DAMP", "invalid", "cannot write ...", "" when applied
  std::vector<ConfigProblem> problems;  // when invalid: one per broken rule, by key
  std::string previous;                 // applied: where the file replaced was kept ("" = none)
  bool rolled_back = false;             // the previous file was put back
  std::int64_t restart_ms = -1;         // applied: from the request to robot-edged back on it
  std::uint64_t request_id = 0;         // the apply's id once robot-edged was asked (0 = not asked)
  std::vector<std::string> warnings;    // config::Warnings of the document
  std::vector<std::string> changed;     // protected sections it changes (api.fleet_may_change)
  std::string document_sha256;          // of the document answered (DocumentSha256; "" = not known)
};

// The name a result gives the document it answers: SHA-256 of its bytes, 64 lower-case hex
// digits (what a fleet computes over the payload it published).
std::string DocumentSha256(std::string_view yaml_text);

// robot-edged's checks on `yaml_text`: every problem, by key ("" = valid).
std::vector<ConfigProblem> CheckFleetConfig(const std::string& yaml_text);

// Checks `yaml_text` and, when valid and `in_damp`, writes it to `path` (temporary file, fsync,
// rename), after copying the current file to `path`.previous. Refused without writing: a
// document identical to `path` ("already running": no restart), one that changes a section a
// fleet may not change against `path` (config/fleet_guard.hpp; the same rule robot-edged
// enforces), or any document when `path` exists but cannot be read as a configuration.
ConfigOutcome ApplyFleetConfig(const std::string& yaml_text, const std::string& path, bool in_damp);

// Puts `path`.previous back as `path` (rename, then fsync of the directory); without one, removes
// `path`. False when that fails.
bool RestorePrevious(const std::string& path);

// The outcome as `status` JSON: {"type":"config_result","applied":…,"reason":…,
// "errors":[{"key":…,"message":…}],"previous":…,"rolled_back":…,"warnings":[…],"changed":[…]
// [,"restart_ms":N][,"request_id":N]}.
std::string ConfigOutcomeJson(const ConfigOutcome& outcome);

}  // namespace robot_edge::uplink
