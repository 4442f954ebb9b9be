// What a sim2sim run reports per joint: the largest torque the plant applied, and how often the
// joint ran into the ends of its range. Observed every physics step (StepPhysics); read and
// restarted through the control socket's `record`.
// Threads: the simulator's event loop thread. No allocation.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "sim/plant.hpp"

namespace robot_edge::sim {

struct JointRecord {
  // Within this of a limit counts as at it (a hit is an entry into that zone): ~1°.
  static constexpr double kLimitZoneRad = 0.02;

  double min_rad = 0, max_rad = 0;  // the config's limits
  double peak_torque_nm = 0;        // |τ| applied, largest since the last Restart()
  std::uint32_t limit_hits = 0;
  bool at_limit = false;

  void Observe(const ShaftState& s) {
    peak_torque_nm = std::max(peak_torque_nm, std::abs(s.torque_nm));
    const bool at =
        s.position_rad <= min_rad + kLimitZoneRad || s.position_rad >= max_rad - kLimitZoneRad;
    if (at && !at_limit) ++limit_hits;
    at_limit = at;
  }
  // Counts anew; a joint resting at a limit is not a new hit.
  void Restart() {
    peak_torque_nm = 0;
    limit_hits = 0;
  }
};

}  // namespace robot_edge::sim
