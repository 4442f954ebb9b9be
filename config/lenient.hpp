// The configuration as `robot-edged --emergency-damp` reads it when the daemon left no DAMP plan
// (daemon/damp_plan.hpp): only what stops the motors — motors (family, reply, ranges), buses
// (interface, master_id) and joints (bus, can_id, motor, damp_kd, direction, gear_ratio,
// offset). Everything else is ignored: unknown keys, other sections, values Validate() would
// refuse elsewhere, the calibration file. An entry that cannot be used is skipped and named;
// the rest is still read. A stop must not depend on the whole file being right.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"

namespace robot_edge::config {

// Every joint of the result has its bus and motor resolved. `skipped` gets one line per entry
// left out ("joints[3]: motor 'ak70' is not usable"). Throws ConfigError only when the text is
// not YAML or not a mapping at the top level.
Config ParseMotorsLeniently(std::string_view yaml_text, std::string_view source_name,
                            std::vector<std::string>* skipped);
// The same for a file; throws ConfigError when it cannot be read.
Config ReadMotorsLeniently(const std::string& path, std::vector<std::string>* skipped);

}  // namespace robot_edge::config
