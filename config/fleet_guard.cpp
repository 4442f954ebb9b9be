#include "config/fleet_guard.hpp"

#include <algorithm>

namespace robot_edge::config {
namespace {

// Whether section `key` differs between the two.
bool Differs(std::string_view key, const Config& a, const Config& b) {
  if (key == "safety") return !(a.safety == b.safety);
  if (key == "control") return !(a.control == b.control);
  if (key == "realtime") return !(a.realtime == b.realtime);
  if (key == "velocity") return !(a.velocity == b.velocity);
  if (key == "motors") return a.motors != b.motors;
  if (key == "buses") return a.buses != b.buses;
  if (key == "joints") return a.joints != b.joints;
  if (key == "target_limits") return a.target_limits != b.target_limits;
  if (key == "imu") return !(a.imu == b.imu);
  if (key == "api") return !(a.api == b.api);
  if (key == "calibration") return a.calibration_path != b.calibration_path;
  if (key == "live") return !(a.live == b.live);
  return a.recorder.directory_path != b.recorder.directory_path;  // recorder.directory
}

}  // namespace

std::vector<std::string> ProtectedDifferences(const Config& running, const Config& next) {
  std::vector<std::string> changed;
  for (std::string_view key : kFleetProtected) {
    if (Differs(key, running, next)) changed.emplace_back(key);
  }
  return changed;
}

std::vector<std::string> FleetProtectedChanges(const Config& running, const Config& next) {
  const auto& allowed = running.api.fleet_may_change;
  std::vector<std::string> changed = ProtectedDifferences(running, next);
  std::erase_if(changed, [&](const std::string& key) {
    return std::find(allowed.begin(), allowed.end(), key) != allowed.end();
  });
  return changed;
}

std::string FleetRefusal(const std::vector<std::string>& changed) {
  std::string text = "a fleet configuration may not change ";
  for (std::size_t i = 0; i < changed.size(); ++i) text += (i ? ", " : "") + changed[i];
  return text +
         " (safety, motors, access and addresses are changed on the robot; api.fleet_may_change "
         "there widens this)";
}

}  // namespace robot_edge::config
