#include "sim/plant.hpp"

#include <algorithm>

namespace robot_edge::sim {

double TorqueLaw::Evaluate(double q, double qd) const {
  if (!active) return 0;
  const double t = kp * (position_rad - q) + kd * (velocity_rad_s - qd) + torque_nm;
  return std::clamp(t, -torque_max_nm, torque_max_nm);
}

std::string Plant::SetGantry(std::optional<double>) {
  return std::string("error: the gantry needs the physics backend (this one is ") + name() + ")";
}

std::string Plant::Push(const std::string&, const std::array<double, 3>&, double) {
  return std::string("error: push needs the physics backend (this one is ") + name() + ")";
}

}  // namespace robot_edge::sim
