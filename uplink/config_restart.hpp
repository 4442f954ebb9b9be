// A fleet configuration from the file written (fleet_config.hpp) to robot-edged running on it.
// After robot-edged accepted the restart (ApplyConfigRequest), the uplink waits for a Welcome
// whose config_digest is the new file's; if none comes within robot_edged.apply_timeout_s, the
// previous file is put back (RestorePrevious) so that robot-edged's next start uses it.
// An uplink restarted during the wait resumes it from its record (pending_apply.hpp): Resume().
//
// No clock, socket or log: the uplink's loop passes the time (steady µs) and the Welcomes.
// Threads: the uplink's loop only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "uplink/fleet_config.hpp"
#include "uplink/pending_apply.hpp"

namespace robot_edge::uplink {

class ConfigRestart {
 public:
  // `path`: robot_edged.config; `timeout_us`: robot_edged.apply_timeout_s.
  ConfigRestart(std::string path, std::int64_t timeout_us)
      : path_(std::move(path)), timeout_us_(timeout_us) {}

  // robot-edged accepted the restart of `written` (the file's digest `digest`) asked at `asked_us`.
  void Begin(ConfigOutcome written, std::string digest, std::int64_t asked_us);
  // The wait of a previous run, from its record: the wall-clock times become steady ones
  // (`now_us` steady, `now_unix_us` wall clock, both read now); rolled back at its deadline.
  void Resume(const PendingApply& record, std::int64_t now_us, std::int64_t now_unix_us);
  bool pending() const { return pending_.has_value(); }

  // A Welcome from robot-edged: the final result (applied, restart_ms) when it runs the new file.
  std::optional<ConfigOutcome> OnWelcome(const std::string& config_digest, std::int64_t now_us);
  // Past the bound: the previous file put back and the result (rolled_back); else nothing.
  std::optional<ConfigOutcome> Poll(std::int64_t now_us);

 private:
  struct Pending {
    ConfigOutcome outcome;
    std::string digest;
    std::int64_t asked_us;
    std::int64_t deadline_us;
    std::string path;  // the file written (robot_edged.config)
  };
  std::string path_;
  std::int64_t timeout_us_;
  std::optional<Pending> pending_;
};

}  // namespace robot_edge::uplink
