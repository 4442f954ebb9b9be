#include "uplink/config_restart.hpp"

namespace robot_edge::uplink {

void ConfigRestart::Begin(ConfigOutcome written, std::string digest, std::int64_t asked_us) {
  written.applied = false;  // not until robot-edged runs it
  pending_ =
      Pending{std::move(written), std::move(digest), asked_us, asked_us + timeout_us_, path_};
}

void ConfigRestart::Resume(const PendingApply& record, std::int64_t now_us,
                           std::int64_t now_unix_us) {
  ConfigOutcome outcome;
  outcome.request_id = record.request_id;
  outcome.previous = record.previous;
  pending_ =
      Pending{std::move(outcome), record.digest, now_us - (now_unix_us - record.asked_unix_us),
              now_us + (record.deadline_unix_us - now_unix_us), record.config};
}

std::optional<ConfigOutcome> ConfigRestart::OnWelcome(const std::string& config_digest,
                                                      std::int64_t now_us) {
  if (!pending_ || config_digest != pending_->digest) return std::nullopt;
  ConfigOutcome out = std::move(pending_->outcome);
  out.applied = true;
  out.restart_ms = (now_us - pending_->asked_us) / 1000;
  pending_.reset();
  return out;
}

std::optional<ConfigOutcome> ConfigRestart::Poll(std::int64_t now_us) {
  if (!pending_ || now_us < pending_->deadline_us) return std::nullopt;
  const std::int64_t waited_s = (pending_->deadline_us - pending_->asked_us) / 1'000'000;
  ConfigOutcome out = std::move(pending_->outcome);
  const std::string path = pending_->path;
  pending_.reset();
  out.rolled_back = RestorePrevious(path);
  out.reason = "robot-edged was not back on the new configuration within " +
               std::to_string(waited_s) + " s: " +
               (out.rolled_back ? "the previous file was put back"
                                : "putting the previous file back failed");
  return out;
}

}  // namespace robot_edge::uplink
