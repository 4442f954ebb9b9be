// The joint table (statemachine/joint_params.hpp) built from the validated Config, and each
// joint's mounting (can/joint_transform.hpp).
#pragma once

#include "can/joint_transform.hpp"
#include "config/config.hpp"
#include "statemachine/joint_params.hpp"

namespace robot_edge::config {

using JointParams = sm::JointParams;
using JointTable = sm::JointTable;
using JointTransform = can::JointTransform;

JointTransform TransformOf(const JointConfig& joint);
// One entry per config.joints, firmware order. `config` must have passed Validate().
JointTable BuildJointTable(const Config& config);

}  // namespace robot_edge::config
