// A fleet configuration from the file written (fleet_config.hpp) to robot-edged running on it.
// After robot-edged accepted the restart (ApplyConfigRequest), the uplink waits for a Welcome
// whose config_digest is the new file's; if none comes within robot_edged.apply_timeout_s, the
// apply is rolled back (RollBack) so that robot-edged's next start uses the previous file.
// An uplink restarted during the wait resumes it from its record (pending_apply.hpp): Resume().
//
// No clock, socket or log: the uplink's loop passes the time (steady µs) and the Welcomes.
// Threads: the uplink's loop only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "uplink/fleet_config.hpp"
#include "uplink/pending_apply.hpp"

namespace robot_edge::uplink {

// A rollback's outcome: `rolled_back` when the file on disk is (now, or already) the previous
// one; `what` says what was done, or why nothing was.
struct Rollback {
  bool rolled_back = false;
  std::string what;
};

// Rolls `record`'s apply back, idempotently, touching only files the uplink wrote: by digest
// (config::TextDigest of the contents), against the record.
//   - the file is the previous one already (a rollback done before a crash): nothing to do;
//   - the file is the one written and `.previous` the one kept: `.previous` is renamed over it
//     (then fsync of the directory); with no previous file recorded, the written file is removed;
//   - anything else (a file someone else wrote, a `.previous` changed or missing): nothing is
//     touched, rolled_back false.
Rollback RollBack(const PendingApply& record);

// ---- the start budget (audit M5): robot-edged's unit allows StartLimitBurst= starts per
// StartLimitIntervalSec= (systemd/robot-edge.service.in); past it systemd gives up and robot-edged
// stays down. Every apply is charged the starts it may cost, kept in <spool.dir>/apply-starts
// (LoadStartCharges), and an apply that might not fit in what is left is refused.

struct StartLimit {
  int burst = 30;                         // robot_edged.start_limit_burst (StartLimitBurst=)
  std::int64_t interval_us = 60'000'000;  // robot_edged.start_limit_interval_s (…IntervalSec=)
};

// The starts one apply may cost at most, with RestartSec=1 s: the start on the new file, one
// more for each second of the wait (a file that fails at once is retried every second), and the
// start on the previous file after the rollback.
int WorstCaseStarts(std::int64_t apply_timeout_us);
// The starts an apply that ended did cost: 1 when applied; rolled back after `waited_us`, the
// start on the previous file plus one per started second of the wait (at most the worst case).
int StartsCharged(bool applied, std::int64_t waited_us, std::int64_t apply_timeout_us);

struct StartCharge {
  std::uint64_t request_id = 0;
  std::int64_t unix_us = 0;  // wall clock of the ask
  int starts = 0;
};

// "" when an apply that may cost `cost` starts fits: the starts charged within the interval
// before `now_unix_us`, plus `cost`, at most the burst. Else why not, and when it will fit.
std::string CheckStartBudget(const std::vector<StartCharge>& charges, const StartLimit& limit,
                             int cost, std::int64_t now_unix_us);
// `charges` without those older than the interval before `now_unix_us`.
std::vector<StartCharge> RecentCharges(std::vector<StartCharge> charges, const StartLimit& limit,
                                       std::int64_t now_unix_us);
// <spool.dir>/apply-starts: "request_id unix_us starts" a line. Unreadable lines are skipped;
// no file is no charge. Saved whole (temporary file, fsync, rename); false on an I/O error.
std::string StartChargesPath(const std::string& spool_dir);
std::vector<StartCharge> LoadStartCharges(const std::string& path);
bool SaveStartCharges(const std::string& path, const std::vector<StartCharge>& charges);

// ---- robot-edged's failed starts, as systemd counts them (audit M5). The uplink does not
// wait the whole apply_timeout_s for a file that cannot start: systemd records each start of the
// unit's main process and its end (`systemctl show robot-edge.service -p
// ExecMainStartTimestampMonotonic -p ExecMainExitTimestampMonotonic -p NRestarts`, CLOCK_MONOTONIC
// µs, the uplink's steady clock too). A main process that started after the ask and has ended is
// a failed start of the new file (a good one stays up and sends its Welcome): rolled back then,
// so systemd's next start, RestartSec later, runs the previous file. Without systemd (no
// /run/systemd/system, or systemctl fails), the wait is the fixed apply_timeout_s.

struct UnitStarts {
  std::int64_t main_start_us = 0;  // ExecMainStartTimestampMonotonic: the newest main process
  std::int64_t main_exit_us = 0;   // ExecMainExitTimestampMonotonic: its end (0 = running)
  std::int64_t restarts = -1;      // NRestarts (-1 = not shown)
};
// `systemctl show` output ("Key=Value" lines); nullopt without both timestamps.
std::optional<UnitStarts> ParseUnitStarts(const std::string& text);
// True when a start of robot-edged that began after `asked_us` (steady) has ended.
bool FailedStartSince(const UnitStarts& unit, std::int64_t asked_us);
// Runs systemctl show for `unit` (at most ~1 s); nullopt when systemd does not run this host or
// does not answer. Blocks its caller: called only while an apply is pending, twice a second.
std::optional<UnitStarts> ReadUnitStarts(const std::string& unit);

class ConfigRestart {
 public:
  // `path`: robot_edged.config; `timeout_us`: robot_edged.apply_timeout_s.
  ConfigRestart(std::string path, std::int64_t timeout_us)
      : path_(std::move(path)), timeout_us_(timeout_us) {}

  // robot-edged accepted the restart of the file `record` describes, asked at `asked_us`.
  void Begin(ConfigOutcome written, PendingApply record, std::int64_t asked_us);
  // The same for `written` at `path`, its digest `digest` (the record made from the files).
  void Begin(ConfigOutcome written, std::string digest, std::int64_t asked_us);
  // The wait of a previous run, from its record: the wall-clock times become steady ones
  // (`now_us` steady, `now_unix_us` wall clock, both read now); rolled back at its deadline.
  // "" when resumed; else why the record is not this uplink's (CheckPendingApplyPaths) and
  // nothing is pending: the caller discards it.
  std::string Resume(const PendingApply& record, std::int64_t now_us, std::int64_t now_unix_us);
  bool pending() const { return pending_.has_value(); }
  // The starts the apply that ended last did cost (StartsCharged), for the start budget.
  int last_starts() const { return last_starts_; }

  // A Welcome from robot-edged: the final result (applied, restart_ms) when it runs the new file.
  std::optional<ConfigOutcome> OnWelcome(const std::string& config_digest, std::int64_t now_us);
  // systemd's view of robot-edged's unit: a failed start since the ask rolls back now (the
  // result, rolled_back); else nothing.
  std::optional<ConfigOutcome> OnUnitStarts(const UnitStarts& unit, std::int64_t now_us);
  // Past the bound: rolled back (RollBack) and the result; else nothing.
  std::optional<ConfigOutcome> Poll(std::int64_t now_us);

 private:
  ConfigOutcome Roll(std::int64_t now_us, const std::string& why);

  struct Pending {
    ConfigOutcome outcome;
    PendingApply record;  // the files written and their digests
    std::int64_t asked_us;
    std::int64_t deadline_us;
  };
  std::string path_;
  std::int64_t timeout_us_;
  std::optional<Pending> pending_;
  int last_starts_ = 0;
};

}  // namespace robot_edge::uplink
