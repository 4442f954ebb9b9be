#include "sim/in_memory_robot.hpp"

#include "sim/kinematic_plant.hpp"

namespace robot_edge::sim {
namespace {

std::vector<std::string> InterfacesOf(const config::Config& config) {
  std::vector<std::string> names;
  for (const auto& b : config.buses) names.push_back(b.interface);
  return names;
}

}  // namespace

InMemoryRobot::InMemoryRobot(const config::Config& config)
    : InMemoryRobot(config, std::make_unique<KinematicPlant>(config)) {}

InMemoryRobot::InMemoryRobot(const config::Config& config, std::unique_ptr<Plant> plant)
    : config_(config), transport_(InterfacesOf(config)), robot_(config, std::move(plant)) {
  replies_.reserve(config.joints.size() + 2);
}

void InMemoryRobot::Answer(std::int64_t now_us) {
  for (std::size_t bus = 0; bus < config_.buses.size(); ++bus) {
    replies_.clear();
    robot_.OnFrames(bus, transport_.sent(bus), now_us, &replies_);
    for (const can_frame& r : replies_) transport_.Inject(static_cast<std::uint32_t>(bus), r);
  }
  transport_.ClearSent();
  if (robot_.imu().enabled()) {
    const ImuFrameSet imu = robot_.ImuFrames();  // quaternion, gyro[, accelerometer]
    const auto bus = static_cast<std::uint32_t>(robot_.imu_bus());
    for (std::size_t i = 0; i < imu.size(); ++i) {
      const bool gyro_frame = i == 1;
      if (gyro_ || !gyro_frame) transport_.Inject(bus, imu[i]);
    }
  }
  if (robot_.has_bms() && robot_.battery().enabled() && now_us >= next_battery_us_) {
    transport_.Inject(static_cast<std::uint32_t>(robot_.battery_bus()), robot_.BatteryFrame());
    next_battery_us_ = now_us + BatteryModel::kPeriodUs;
  }
}

}  // namespace robot_edge::sim
