#include "daemon/api/apply_config.hpp"

#include <algorithm>
#include <cstring>

#include "config/fleet_guard.hpp"
#include "daemon/api/messages.hpp"

namespace robot_edge::daemon {
namespace {

bool Listed(const std::vector<std::string>& names, const std::string& controller) {
  return std::find(names.begin(), names.end(), controller) != names.end();
}

// "file:12: api.max_command_age_ms: 5 is outside ..." -> its key ("" when it names none).
std::string KeyOf(const std::string& line) {
  const std::size_t first = line.find(": ");
  if (first == std::string::npos) return "";
  const std::size_t second = line.find(": ", first + 2);
  if (second == std::string::npos) return "";
  const std::string key = line.substr(first + 2, second - first - 2);
  return key.find(' ') == std::string::npos ? key : "";
}

}  // namespace

std::string StopLatchedRefusal(const sm::StopLatch& latch) {
  const std::string holder(latch.holder.data(),
                           ::strnlen(latch.holder.data(), latch.holder.size()));
  return std::string("a stop is latched (by ") + latch.stopped_by.data() +
         "): refused until it is released by " +
         (holder.empty() ? std::string() : "a STAND from '" + holder + "' or ") +
         "robot-edgectl release-stop on the robot";
}

edge::MaintenanceResult CheckApplyConfig(const config::Config& running,
                                         const std::string& controller, const ControlSnapshot& s,
                                         const edge::MaintenanceRequest& request) {
  const std::uint32_t id = request.request_id();
  if (!Listed(running.api.maintenance_controllers, controller) &&
      !Listed(running.api.apply_config_controllers, controller)) {
    return MaintenanceError(id, "controller '" + controller +
                                    "' may not restart robot-edged (api.maintenance_controllers, "
                                    "api.apply_config_controllers)");
  }
  if (s.tick_us < 0) return MaintenanceError(id, "the control loop has not started");
  if (s.mode != sm::Mode::kDamp) {
    return MaintenanceError(id,
                            std::string("not in DAMP: the robot is in ") + sm::ToString(s.mode));
  }
  if (s.jogging_joint >= 0) return MaintenanceError(id, "not while a jog moves a joint");
  if (s.stop_latch.latched) return MaintenanceError(id, StopLatchedRefusal(s.stop_latch));
  edge::MaintenanceResult r;
  r.set_request_id(id);
  edge::ApplyConfigResult* out = r.mutable_apply_config();
  out->set_path(running.source);
  try {
    const config::Config next = config::LoadConfig(running.source);
    out->set_digest(next.digest);
    // The fleet's controller may not change what decides safety and access; a maintenance
    // controller (someone on the robot) may.
    if (!Listed(running.api.maintenance_controllers, controller)) {
      const std::vector<std::string> changed = config::FleetProtectedChanges(running, next);
      for (const std::string& key : changed) {
        edge::ConfigProblem* p = out->add_problems();
        p->set_key(key);
        p->set_message(running.source + ": " + key + ": a fleet configuration may not change it");
      }
      if (!changed.empty()) {
        r.set_error(config::FleetRefusal(changed));
        return r;
      }
    }
  } catch (const config::ConfigError& e) {
    for (const std::string& line : e.problems()) {
      edge::ConfigProblem* p = out->add_problems();
      p->set_key(KeyOf(line));
      p->set_message(line);
    }
    r.set_error("the configuration file is invalid: " + std::to_string(e.problems().size()) +
                " problem(s)");
    return r;
  }
  const std::string& expected = request.apply_config().expect_digest();
  if (!expected.empty() && expected != out->digest()) {
    r.set_error("the file's digest is " + out->digest() + ", not " + expected);
    return r;
  }
  r.set_ok(true);
  return r;
}

}  // namespace robot_edge::daemon
