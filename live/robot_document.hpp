// /robot.json: what the dashboard needs to know of the robot once (the messages carry only
// numbers). Pure, no I/O.
#pragma once

#include <string>

#include "config/config.hpp"

namespace robot_edge::live {

// JSON object:
//   {"name": robot.name,
//    "control_rate_hz": control.rate_hz, "telemetry_rate_hz": telemetry.rate_hz,
//    "safety": {"overtemp_trip_c": ..., "overtemp_clear_c": ...},
//    "joints": [{"name", "min_rad", "max_rad", "stand_rad"}, ...]}   (firmware order)
std::string RobotDocument(const config::Config& config);

}  // namespace robot_edge::live
