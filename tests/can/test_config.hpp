// The robot's default configuration (config/robot-edge.yaml) for tests: 25 joints on five buses,
// all AK80-9 motors, IMU on the waist_neck bus (index 4). ROBOT_EDGE_DEFAULT_CONFIG is set by
// tests/can/CMakeLists.txt.
#pragma once

#include "config/config.hpp"

namespace robot_edge::can::test {

inline const config::Config& DefaultConfig() {
  static const config::Config config = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  return config;
}

}  // namespace robot_edge::can::test
