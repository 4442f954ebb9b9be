// How the config's joints reach an MJCF model (MuJoCo): joint i is the model's actuator named
// like it, which must be a plain torque motor (<motor>: no dynamics, fixed gain 1, no bias) whose
// transmission (a joint, or a fixed tendon such as an ankle linkage) is the motor's shaft; without
// such an actuator, a hinge or slide joint of that name, driven directly.
//
// Shared by the simulator's physics backend and the bring-up tools' model of the robot.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "config/config.hpp"

struct mjModel_;

namespace robot_edge::sim {

struct ModelJoint {
  int actuator = -1;  // its actuator, or -1: a joint driven directly
  int qpos = -1;      // the joint's qpos / dof address (no actuator)
  int dof = -1;
};

// The model's name for each config joint, in the config's order: sim.joint_names' entry, else
// the joint's own name.
std::vector<std::string> ModelJointNames(const config::Config& config);

// One ModelJoint per name, in order. Throws std::runtime_error naming every joint the model has
// neither an actuator nor a hinge / slide joint for, or an actuator that is not a torque motor.
std::vector<ModelJoint> MapModelJoints(const mjModel_* model, std::span<const std::string> names);

}  // namespace robot_edge::sim
