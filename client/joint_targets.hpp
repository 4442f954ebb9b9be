// "JOINT=RAD" arguments (robot-edgectl move) resolved against the daemon's joint names (pure).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace robot_edge::client {

struct JointTarget {
  std::size_t joint = 0;      // index in firmware order
  float position_rad = 0.0f;  // rad
};

// Parses each "NAME=RAD" argument. NAME is one of `joint_names` (case-insensitive, e.g.
// "l_knee" is "L_Knee"); RAD is a finite decimal number in radians ("0.6", "-1.2e-1").
// Throws std::invalid_argument naming the argument: missing '=', unknown joint (the message
// lists the joints), not a number, non-finite, the same joint twice.
// Example: ParseJointTargets({"L_Knee=0.6"}, names) -> {{3, 0.6f}}.
std::vector<JointTarget> ParseJointTargets(std::span<const std::string> arguments,
                                           std::span<const std::string> joint_names);

// `pose` with each target's joint set to its position.
std::vector<float> ApplyTargets(std::span<const float> pose, std::span<const JointTarget> targets);

// Index of `name` in `joint_names` (case-insensitive), or joint_names.size() when absent.
std::size_t FindJoint(std::span<const std::string> joint_names, const std::string& name);

}  // namespace robot_edge::client
