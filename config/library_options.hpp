// What can/, statemachine/ and policy/ are told of the robot, built from a Config at start-up
// (they allocate): can::Wiring, sm::MachineOptions, policy::PolicySetup, and the joint table
// (joint_table.hpp).
#pragma once

#include "can/wiring.hpp"
#include "config/config.hpp"
#include "config/joint_table.hpp"
#include "policy/setup.hpp"
#include "statemachine/options.hpp"

namespace robot_edge::config {

// The motors, buses, each joint's motor and the IMU's and BMS's frames. `config` needs its
// names resolved (ParseConfig(), or the lenient reader's), not a full Validate().
can::Wiring WiringOf(const Config& config);

// The state machine's and its alerts' options. `config` must have passed Validate().
sm::MachineOptions MachineOptionsOf(const Config& config);

// The policy section with the joint table, each joint's configured stand pose and gains, and
// where() naming the config's lines. `config` must have passed Validate() with a policy section.
policy::PolicySetup PolicySetupOf(const Config& config);

}  // namespace robot_edge::config
