#include "sim/battery_model.hpp"

#include <algorithm>

#include "can/bms_codec.hpp"

namespace robot_edge::sim {
namespace {

constexpr std::uint8_t kDischarging = 1;  // bms_codec.hpp's status

}  // namespace

BatteryModel::BatteryModel(canid_t can_id, BatteryParams params)
    : can_id_(can_id), params_(params), percent_(std::clamp(params.initial_percent, 0.0, 100.0)) {}

void BatteryModel::Drain(double mechanical_power_w, double seconds) {
  power_w_ = std::max(0.0, mechanical_power_w);
  if (!(seconds > 0)) return;
  const double watts = voltage_v() * params_.idle_current_a + power_w_;
  const double used_wh = watts * seconds / 3600.0;
  percent_ = std::max(0.0, percent_ - 100.0 * used_wh / params_.capacity_wh);
}

void BatteryModel::SetPercent(double percent) { percent_ = std::clamp(percent, 0.0, 100.0); }

can_frame BatteryModel::Frame() const {
  const can::Payload p = can::EncodeBms(
      {static_cast<float>(voltage_v()), static_cast<float>(current_a()),
       static_cast<float>(percent_), static_cast<float>(params_.temperature_c), kDischarging});
  can_frame frame{};
  frame.can_id = can_id_;
  frame.len = 8;
  std::copy(p.begin(), p.end(), frame.data);
  return frame;
}

}  // namespace robot_edge::sim
