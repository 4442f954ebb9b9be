// What the fuzz targets share: the default robot, and its measurements as a healthy robot would
// report them (every motor replying, the IMU upright).
#pragma once

#include <string>
#include <vector>

#include "config/config.hpp"
#include "statemachine/io.hpp"

namespace robot_edge::fuzz {

inline const config::Config& DefaultConfig() {
  static const config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  return c;
}

inline std::vector<std::string> InterfacesOf(const config::Config& c) {
  std::vector<std::string> names;
  for (const auto& b : c.buses) names.push_back(b.interface);
  return names;
}

class HealthyRobot {
 public:
  explicit HealthyRobot(const config::Config& c)
      : joints_(c.joints.size()), buses_(c.buses.size()) {}
  sm::Inputs At(std::int64_t now_us) {
    for (auto& j : joints_) j.last_reply_us = now_us;
    imu_.last_update_us = now_us;
    return sm::Inputs{joints_, imu_, buses_};
  }

 private:
  std::vector<sm::JointMeasurement> joints_;
  sm::ImuMeasurement imu_;
  std::vector<sm::BusStatus> buses_;
};

}  // namespace robot_edge::fuzz
