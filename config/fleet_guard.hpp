// What a fleet configuration may not change (docs/fleet-config.md, "What a fleet may change"):
// the sections that decide safety, the motors and joints, who may connect and command, where
// the robot listens, and where the recorder writes. A document from the fleet (robot-edge-uplink,
// robot-edged's api.apply_config_controllers) that changes one of them is refused, naming each.
//
// Loosening is local only: api.fleet_may_change lists the sections the fleet may change after
// all, and it is itself under `api`, which a fleet document may not change. So only someone who
// edits the file on the robot (and restarts robot-edged, or applies it as a maintenance
// controller) can widen what the fleet may do.
//
// Pure: compares two parsed configurations.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"

namespace robot_edge::config {

// The protected sections, by their YAML key (the names api.fleet_may_change accepts).
inline constexpr std::array<std::string_view, 13> kFleetProtected = {
    "safety",      "control", "realtime",          "velocity", "motors",
    "buses",       "joints",  "target_limits",     "imu",      "api",
    "calibration", "live",    "recorder.directory"};

// The protected sections that differ between `running` and `next`, in kFleetProtected's order.
std::vector<std::string> ProtectedDifferences(const Config& running, const Config& next);
// The same without those `running.api.fleet_may_change` names. Empty: the fleet may apply `next`.
std::vector<std::string> FleetProtectedChanges(const Config& running, const Config& next);

// One line for a result or a log: "the fleet may not change safety, api (...)".
std::string FleetRefusal(const std::vector<std::string>& changed);

}  // namespace robot_edge::config
