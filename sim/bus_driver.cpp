#include "sim/bus_driver.hpp"

#include <algorithm>

#include "can/mit_codec.hpp"
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
  Broadcast([](std::size_t) { return can::EncodeSpecial(can::SpecialCommand::kEnterMotorMode); });
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
  Broadcast([this](std::size_t j) {
    return can::EncodeCommand({targets_[j], 0, kp_[j], kd_[j], 0},
                              robot_.motor(j).params().ranges);
  });
}

template <typename PayloadOf>
void BusDriver::Broadcast(PayloadOf payload_of) {
  for (std::size_t bus = 0; bus < by_bus_.size(); ++bus) {
    frames_.clear();
    for (std::size_t j : by_bus_[bus]) {
      can_frame f{};
      f.can_id = config_.joints[j].can_id;
      f.len = 8;
      const can::Payload p = payload_of(j);
      std::copy(p.begin(), p.end(), f.data);
      frames_.push_back(f);
    }
    replies_buffer_.clear();
    robot_.OnFrames(bus, frames_, now_us_, &replies_buffer_);
    replies_ += replies_buffer_.size();
  }
}

}  // namespace robot_edge::sim
