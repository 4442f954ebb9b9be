#include "sim/bus_driver.hpp"

#include <algorithm>

#include "can/joint_transform.hpp"
#include "can/motor_protocol.hpp"
#include "sim/control_protocol.hpp"

namespace robot_edge::sim {

BusDriver::BusDriver(const config::Config& config, std::unique_ptr<Plant> plant)
    : config_(config),
      robot_(config, std::move(plant)),
      targets_(config.joints.size()),
      kp_(config.joints.size()),
      kd_(config.joints.size()),
      by_bus_(config.buses.size()) {
  for (std::size_t j = 0; j < config.joints.size(); ++j) by_bus_[config.joints[j].bus].push_back(j);
  Stand();
  Broadcast([this](std::size_t j, can_frame* f) {
    const config::JointConfig& joint = config_.joints[j];
    return can::EncodeRequestFrame(robot_.motor(j).params().protocol, joint.can_id,
                                   config_.buses[joint.bus].master_id, can::MotorRequest::kEnable,
                                   f);
  });
}

void BusDriver::Stand() {
  for (std::size_t j = 0; j < config_.joints.size(); ++j) {
    targets_[j] = static_cast<float>(config_.joints[j].stand_rad);
    kp_[j] = static_cast<float>(config_.joints[j].kp);
    kd_[j] = static_cast<float>(config_.joints[j].kd);
  }
}

void BusDriver::Damp() {
  for (std::size_t j = 0; j < config_.joints.size(); ++j) {
    kp_[j] = 0;
    kd_[j] = static_cast<float>(config_.joints[j].damp_kd);
  }
}

std::string BusDriver::Execute(std::string_view line) {
  const ParseResult r = ParseControlLine(line, config_);
  if (!r.command) return "error: " + r.error;
  return robot_.Execute(*r.command, now_us_);
}

void BusDriver::SendCommands() {
  Broadcast([this](std::size_t j, can_frame* f) {
    const config::JointConfig& joint = config_.joints[j];
    const can::MitCommand motor =
        can::ToMotor(config::TransformOf(joint), {targets_[j], 0, kp_[j], kd_[j], 0});
    *f = can::EncodeCommandFrame(robot_.motor(j).params().protocol, joint.can_id,
                                 config_.buses[joint.bus].master_id, motor);
    return true;
  });
}

template <typename FrameOf>
void BusDriver::Broadcast(FrameOf frame_of) {
  for (std::size_t bus = 0; bus < by_bus_.size(); ++bus) {
    frames_.clear();
    for (std::size_t j : by_bus_[bus]) {
      can_frame f{};
      if (frame_of(j, &f)) frames_.push_back(f);
    }
    replies_buffer_.clear();
    robot_.OnFrames(bus, frames_, now_us_, &replies_buffer_);
    replies_ += replies_buffer_.size();
  }
}

}  // namespace robot_edge::sim
