// robot-edge-replay compare: how closely a replayed run's motor commands match the recorded
// run's. The commands are what the CAN frames carry (q_des, kp, kd per joint, every tick), read
// from each file's /joint_state channel and aligned at each run's first command. Pure.
#pragma once

#include <cstddef>
#include <string>

#include "tools/replay/recording.hpp"

namespace robot_edge::replay {

struct Comparison {
  std::size_t states = 0;     // recorded states compared (each against the replayed one
                              // nearest in time after alignment)
  double seconds = 0;         // the window: the first command to the last + 1 s
  double mode_agreement = 0;  // share of those states in the same control mode
  // The longest stretch of states in different modes: where it starts (seconds after the first
  // command), how long it lasts, and each run's ControlMode there (edge_api.proto's numbers).
  double mode_differs_at_s = 0;
  double mode_differs_for_s = 0;
  int mode_recorded = 0;
  int mode_replayed = 0;
  double q_des_rms_rad = 0;  // over joints held by a gain (kp > 0 in either run)
  double q_des_max_rad = 0;
  std::string q_des_max_joint;  // index as "joint N" (the file has no names)
  double q_des_max_at_s = 0;    // seconds after the first command
  double kp_max_diff = 0;       // N·m/rad
  double kd_max_diff = 0;       // N·m·s/rad
};

// Throws std::runtime_error when either file lacks /joint_state or /commands, has no command,
// or the two have different joint counts.
Comparison Compare(const Recording& recorded, const Recording& replayed);

// "compared N states over S s ..." (several lines) and the same as one JSON object.
std::string FormatComparison(const Comparison& c);
std::string ComparisonJson(const Comparison& c);

}  // namespace robot_edge::replay
