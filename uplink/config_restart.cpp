#include "uplink/config_restart.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "config/config.hpp"

namespace robot_edge::uplink {

namespace {

bool SyncDirectoryOf(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

Rollback RollBack(const PendingApply& r) {
  const std::optional<std::string> current = FileDigest(r.config);
  if (r.previous.empty()) {  // there was no file before the apply
    if (!current) return {true, r.config + " is already gone (there was none before)"};
    if (*current != r.digest) {
      return {false, r.config + " is not the file written (" + *current + ", not " + r.digest +
                         "): left as is"};
    }
    const bool removed = ::unlink(r.config.c_str()) == 0 && SyncDirectoryOf(r.config);
    return {removed, removed ? "the file written was removed (there was none before)"
                             : "cannot remove " + r.config + ": " + std::strerror(errno)};
  }
  if (current && *current == r.previous_digest) {
    return {true, "the previous file is already in place"};
  }
  if (!current || *current != r.digest) {
    return {false,
            r.config + " is " + (current ? "not the file written" : "missing") + ": left as is"};
  }
  const std::optional<std::string> previous = FileDigest(r.previous);
  if (!previous || *previous != r.previous_digest) {
    return {false, r.previous + " is " + (previous ? "not the file kept" : "missing") +
                       ": nothing put back"};
  }
  if (std::rename(r.previous.c_str(), r.config.c_str()) != 0) {
    return {false, "cannot rename " + r.previous + ": " + std::strerror(errno)};
  }
  SyncDirectoryOf(r.config);  // the rename is done; a failed fsync only risks a power cut
  return {true, "the previous file was put back"};
}

int WorstCaseStarts(std::int64_t apply_timeout_us) {
  return static_cast<int>((apply_timeout_us + 999'999) / 1'000'000) + 2;
}

int StartsCharged(bool applied, std::int64_t waited_us, std::int64_t apply_timeout_us) {
  if (applied) return 1;
  const int seconds =
      static_cast<int>((std::max<std::int64_t>(waited_us, 0) + 999'999) / 1'000'000);
  return std::min(seconds + 2, WorstCaseStarts(apply_timeout_us));
}

std::vector<StartCharge> RecentCharges(std::vector<StartCharge> charges, const StartLimit& limit,
                                       std::int64_t now_unix_us) {
  std::vector<StartCharge> recent;
  for (StartCharge& c : charges) {
    // A charge from the future (the wall clock stepped back) is kept: it is not known to be old.
    if (c.unix_us > now_unix_us - limit.interval_us) recent.push_back(std::move(c));
  }
  return recent;
}

std::string CheckStartBudget(const std::vector<StartCharge>& charges, const StartLimit& limit,
                             int cost, std::int64_t now_unix_us) {
  const std::vector<StartCharge> recent = RecentCharges(charges, limit, now_unix_us);
  int used = 0;
  for (const StartCharge& c : recent) used += c.starts;
  if (used + cost <= limit.burst) return "";
  // It fits once enough of the oldest charges have left the interval.
  std::vector<StartCharge> by_time = recent;
  std::sort(by_time.begin(), by_time.end(),
            [](const StartCharge& a, const StartCharge& b) { return a.unix_us < b.unix_us; });
  std::int64_t fits_at = now_unix_us;
  int left = used;
  for (const StartCharge& c : by_time) {
    if (left + cost <= limit.burst) break;
    left -= c.starts;
    fits_at = c.unix_us + limit.interval_us;
  }
  const std::int64_t wait_s =
      std::max<std::int64_t>((fits_at - now_unix_us + 999'999) / 1'000'000, 1);
  return "robot-edged's start budget is spent: recent applies used " + std::to_string(used) +
         " of its unit's " + std::to_string(limit.burst) + " starts per " +
         std::to_string(limit.interval_us / 1'000'000) + " s, and this apply may cost " +
         std::to_string(cost) + "; try again in " + std::to_string(wait_s) + " s";
}

std::string StartChargesPath(const std::string& spool_dir) { return spool_dir + "/apply-starts"; }

std::vector<StartCharge> LoadStartCharges(const std::string& path) {
  std::vector<StartCharge> charges;
  std::ifstream file(path);
  std::string line;
  while (std::getline(file, line)) {
    std::istringstream in(line);
    StartCharge c;
    if (in >> c.request_id >> c.unix_us >> c.starts && c.starts >= 0) charges.push_back(c);
  }
  return charges;
}

bool SaveStartCharges(const std::string& path, const std::vector<StartCharge>& charges) {
  std::string text;
  for (const StartCharge& c : charges) {
    text += std::to_string(c.request_id) + " " + std::to_string(c.unix_us) + " " +
            std::to_string(c.starts) + "\n";
  }
  const std::string temporary = path + ".new";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
  if (fd < 0) return false;
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                       ::fsync(fd) == 0;
  return ::close(fd) == 0 && written && std::rename(temporary.c_str(), path.c_str()) == 0 &&
         SyncDirectoryOf(path);
}

void ConfigRestart::Begin(ConfigOutcome written, PendingApply record, std::int64_t asked_us) {
  written.applied = false;  // not until robot-edged runs it
  pending_ = Pending{std::move(written), std::move(record), asked_us, asked_us + timeout_us_};
}

void ConfigRestart::Begin(ConfigOutcome written, std::string digest, std::int64_t asked_us) {
  PendingApply record;
  record.digest = std::move(digest);
  record.config = path_;
  record.previous = written.previous;
  if (!record.previous.empty()) record.previous_digest = FileDigest(record.previous).value_or("");
  Begin(std::move(written), std::move(record), asked_us);
}

std::string ConfigRestart::Resume(const PendingApply& record, std::int64_t now_us,
                                  std::int64_t now_unix_us) {
  std::string refused = CheckPendingApplyPaths(record, path_);
  if (!refused.empty()) return refused;
  ConfigOutcome outcome;
  outcome.request_id = record.request_id;
  outcome.previous = record.previous;
  // The document is the file written, while it is still there (before any rollback).
  if (const std::optional<std::string> text = FileText(path_);
      text && config::TextDigest(*text) == record.digest) {
    outcome.document_sha256 = DocumentSha256(*text);
  }
  pending_ = Pending{std::move(outcome), record, now_us - (now_unix_us - record.asked_unix_us),
                     now_us + (record.deadline_unix_us - now_unix_us)};
  return "";
}

std::optional<ConfigOutcome> ConfigRestart::OnWelcome(const std::string& config_digest,
                                                      std::int64_t now_us) {
  if (!pending_ || config_digest != pending_->record.digest) return std::nullopt;
  ConfigOutcome out = std::move(pending_->outcome);
  out.applied = true;
  out.restart_ms = (now_us - pending_->asked_us) / 1000;
  last_starts_ = StartsCharged(true, now_us - pending_->asked_us, 0);
  pending_.reset();
  return out;
}

std::optional<ConfigOutcome> ConfigRestart::Poll(std::int64_t now_us) {
  if (!pending_ || now_us < pending_->deadline_us) return std::nullopt;
  const std::int64_t waited_s = (pending_->deadline_us - pending_->asked_us) / 1'000'000;
  return Roll(now_us, "robot-edged was not back on the new configuration within " +
                          std::to_string(waited_s) + " s");
}

std::optional<ConfigOutcome> ConfigRestart::OnUnitStarts(const UnitStarts& unit,
                                                         std::int64_t now_us) {
  if (!pending_ || !FailedStartSince(unit, pending_->asked_us)) return std::nullopt;
  const std::int64_t after_ms = (unit.main_exit_us - pending_->asked_us) / 1000;
  return Roll(now_us, "robot-edged's start on the new configuration failed " +
                          std::to_string(after_ms) + " ms after the ask (systemd)");
}

ConfigOutcome ConfigRestart::Roll(std::int64_t now_us, const std::string& why) {
  ConfigOutcome out = std::move(pending_->outcome);
  const Rollback rollback = RollBack(pending_->record);
  last_starts_ =
      StartsCharged(false, now_us - pending_->asked_us, pending_->deadline_us - pending_->asked_us);
  pending_.reset();
  out.rolled_back = rollback.rolled_back;
  out.reason = why + ": " + rollback.what;
  return out;
}

std::optional<UnitStarts> ParseUnitStarts(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  UnitStarts u;
  int seen = 0;
  while (std::getline(in, line)) {
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq);
    std::int64_t value = 0;
    std::istringstream number(line.substr(eq + 1));
    if (!(number >> value)) continue;
    if (key == "ExecMainStartTimestampMonotonic") {
      u.main_start_us = value;
      ++seen;
    } else if (key == "ExecMainExitTimestampMonotonic") {
      u.main_exit_us = value;
      ++seen;
    } else if (key == "NRestarts") {
      u.restarts = value;
    }
  }
  if (seen < 2) return std::nullopt;
  return u;
}

bool FailedStartSince(const UnitStarts& unit, std::int64_t asked_us) {
  return unit.main_start_us > asked_us && unit.main_exit_us >= unit.main_start_us;
}

std::optional<UnitStarts> ReadUnitStarts(const std::string& unit) {
  if (unit.empty() || ::access("/run/systemd/system", F_OK) != 0) return std::nullopt;
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return std::nullopt;
  // posix_spawn: safe in this multi-threaded process (the MQTT and upload threads run).
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::string args[] = {"systemctl",
                        "show",
                        unit,
                        "-p",
                        "ExecMainStartTimestampMonotonic",
                        "-p",
                        "ExecMainExitTimestampMonotonic",
                        "-p",
                        "NRestarts"};
  char* argv[std::size(args) + 1] = {};
  for (std::size_t i = 0; i < std::size(args); ++i) argv[i] = args[i].data();
  pid_t pid = -1;
  const int spawned = ::posix_spawnp(&pid, "systemctl", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return std::nullopt;
  }
  ::close(out[1]);
  std::string text;
  char buffer[512];
  pollfd fd{out[0], POLLIN, 0};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0 || ::poll(&fd, 1, static_cast<int>(left)) <= 0) {
      ::kill(pid, SIGKILL);  // no answer in time: ours, ended by its pid
      break;
    }
    const ssize_t n = ::read(out[0], buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return ParseUnitStarts(text);
}

}  // namespace robot_edge::uplink
