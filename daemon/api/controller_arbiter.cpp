#include "daemon/api/controller_arbiter.hpp"

#include <algorithm>

namespace robot_edge::daemon {

ControllerArbiter::ControllerArbiter(std::vector<std::string> priority,
                                     std::int64_t idle_timeout_us)
    : priority_(std::move(priority)), idle_timeout_us_(idle_timeout_us) {}

int ControllerArbiter::Rank(const std::string& name) const {
  if (name.empty()) return -1;
  const auto it = std::find(priority_.begin(), priority_.end(), name);
  return it == priority_.end() ? -1 : static_cast<int>(it - priority_.begin());
}

ControllerChange ControllerArbiter::Take(std::uint64_t client, const std::string& name,
                                         const char* reason, std::int64_t now_us) {
  ControllerChange change{holder_name_, name, reason};
  holder_ = client;
  holder_name_ = name;
  last_command_us_ = now_us;
  return change;
}

bool ControllerArbiter::WouldAccept(std::uint64_t client, const std::string& name,
                                    bool is_damp) const {
  const int rank = Rank(name);
  if (client == holder_ && holder_ != 0) return true;
  if (rank >= 0 && (holder_ == 0 || rank < Rank(holder_name_))) return true;
  return is_damp;
}

ControllerArbiter::Decision ControllerArbiter::OnCommand(std::uint64_t client,
                                                         const std::string& name, bool is_damp,
                                                         std::int64_t now_us) {
  const int rank = Rank(name);
  if (client == holder_ && holder_ != 0) {
    last_command_us_ = now_us;
    return {true, std::nullopt};
  }
  if (rank >= 0 && holder_ == 0) return {true, Take(client, name, "acquired", now_us)};
  if (rank >= 0 && rank < Rank(holder_name_)) return {true, Take(client, name, "override", now_us)};
  return {is_damp, std::nullopt};  // DAMP from anyone: emergency stop
}

std::optional<ControllerChange> ControllerArbiter::OnDisconnect(std::uint64_t client) {
  if (client != holder_ || holder_ == 0) return std::nullopt;
  ControllerChange change{holder_name_, "", "disconnect"};
  holder_ = 0;
  holder_name_.clear();
  return change;
}

std::optional<ControllerChange> ControllerArbiter::OnTimer(std::int64_t now_us) {
  if (holder_ == 0 || now_us - last_command_us_ < idle_timeout_us_) return std::nullopt;
  ControllerChange change{holder_name_, "", "timeout"};
  holder_ = 0;
  holder_name_.clear();
  return change;
}

}  // namespace robot_edge::daemon
