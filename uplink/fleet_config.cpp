#include "uplink/fleet_config.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/config.hpp"
#include "config/fleet_guard.hpp"
#include "uplink/json.hpp"
#include "uplink/sha256.hpp"

namespace robot_edge::uplink {

namespace {

constexpr const char* kSource = "fleet config";

// "fleet config:12: control.rate_hz: 5 is outside ..." -> {control.rate_hz, the whole line}.
ConfigProblem ToProblem(const std::string& line) {
  const std::size_t first = line.find(": ");
  if (first == std::string::npos) return {"", line};
  const std::size_t second = line.find(": ", first + 2);
  if (second == std::string::npos) return {"", line};
  std::string key = line.substr(first + 2, second - first - 2);
  if (key.find(' ') != std::string::npos) key.clear();  // a sentence, not a key
  return {key, line};
}

std::string JsonStrings(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i ? ",\"" : "\"") + JsonEscaped(items[i]) + "\"";
  }
  return out + "]";
}

bool WriteDurably(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                  ::fsync(fd) == 0;
  return ::close(fd) == 0 && ok;
}

}  // namespace

std::vector<ConfigProblem> CheckFleetConfig(const std::string& yaml_text) {
  std::vector<std::string> lines;
  try {
    const config::Config parsed = config::ParseConfig(yaml_text, kSource);
    lines = config::Validate(parsed);
  } catch (const config::ConfigError& e) {
    lines = e.problems();
  }
  std::vector<ConfigProblem> problems;
  for (const std::string& line : lines) {
    if (!line.empty()) problems.push_back(ToProblem(line));
  }
  return problems;
}

namespace {

// Against the file robot-edged runs (`path`): identical, or what a fleet may not change. False
// with outcome->reason set when the document must not be written.
bool MayReplace(const std::string& yaml_text, const std::string& path, ConfigOutcome* outcome) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return true;  // nothing there yet (first provisioning): nothing to protect
  std::stringstream current;
  current << file.rdbuf();
  if (current.str() == yaml_text) {
    outcome->reason = "already running";
    return false;
  }
  try {
    // Both parsed as the same file, so that relative paths resolve alike.
    const config::Config running = config::ParseConfig(current.str(), path);
    const config::Config next = config::ParseConfig(yaml_text, path);
    outcome->warnings = config::Warnings(next);
    outcome->changed = config::ProtectedDifferences(running, next);
    const std::vector<std::string> refused = config::FleetProtectedChanges(running, next);
    if (refused.empty()) return true;
    outcome->reason = config::FleetRefusal(refused);
    for (const std::string& key : refused) {
      outcome->problems.push_back({key, key + ": a fleet configuration may not change it"});
    }
  } catch (const config::ConfigError& e) {
    outcome->reason = "the running configuration " + path +
                      " cannot be read to compare with: " + std::string(e.what());
  }
  return false;
}

}  // namespace

ConfigOutcome ApplyFleetConfig(const std::string& yaml_text, const std::string& path,
                               bool in_damp) {
  ConfigOutcome outcome;
  outcome.document_sha256 = DocumentSha256(yaml_text);
  outcome.problems = CheckFleetConfig(yaml_text);
  if (!outcome.problems.empty()) {
    outcome.reason = "invalid";
    return outcome;
  }
  if (!MayReplace(yaml_text, path, &outcome)) return outcome;
  if (!in_damp) {
    outcome.reason = "not in DAMP";
    return outcome;
  }
  std::error_code error;
  if (std::filesystem::exists(path, error)) {
    std::filesystem::copy_file(path, path + ".previous",
                               std::filesystem::copy_options::overwrite_existing, error);
    if (error) {
      outcome.reason = "cannot keep " + path + ".previous: " + error.message();
      return outcome;
    }
    outcome.previous = path + ".previous";
  }
  const std::string temporary = path + ".new";
  if (!WriteDurably(temporary, yaml_text) || std::rename(temporary.c_str(), path.c_str()) != 0) {
    outcome.reason = "cannot write " + path;
    return outcome;
  }
  outcome.applied = true;
  return outcome;
}

bool RestorePrevious(const std::string& path) {
  const std::string previous = path + ".previous";
  bool ok = false;
  if (::access(previous.c_str(), F_OK) == 0) {
    ok = std::rename(previous.c_str(), path.c_str()) == 0;
  } else {
    ok = ::unlink(path.c_str()) == 0 || errno == ENOENT;
  }
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ok = ::fsync(fd) == 0 && ok;
    ::close(fd);
  }
  return ok;
}

std::string DocumentSha256(std::string_view yaml_text) { return Hex(Sha256Of(yaml_text)); }

std::string ConfigOutcomeJson(const ConfigOutcome& o) {
  std::string errors;
  for (const ConfigProblem& p : o.problems) {
    errors += std::string(errors.empty() ? "" : ",") + "{\"key\":\"" + JsonEscaped(p.key) +
              "\",\"message\":\"" + JsonEscaped(p.message) + "\"}";
  }
  return "{\"type\":\"config_result\",\"applied\":" + std::string(o.applied ? "true" : "false") +
         ",\"reason\":\"" + JsonEscaped(o.reason) + "\",\"errors\":[" + errors +
         "],\"previous\":\"" + JsonEscaped(o.previous) +
         "\",\"rolled_back\":" + (o.rolled_back ? "true" : "false") +
         ",\"warnings\":" + JsonStrings(o.warnings) + ",\"changed\":" + JsonStrings(o.changed) +
         (o.restart_ms >= 0 ? ",\"restart_ms\":" + std::to_string(o.restart_ms) : "") +
         (o.request_id != 0 ? ",\"request_id\":" + std::to_string(o.request_id) : "") +
         (o.document_sha256.empty() ? "" : ",\"document_sha256\":\"" + o.document_sha256 + "\"") +
         "}";
}

}  // namespace robot_edge::uplink
