// The simulated battery pack and its BMS: the frame robot-edge-sim sends every kPeriodUs with
// battery.source can (can/bms_codec.hpp), and the switch that stops it (fault injection). Pure
// logic: no clock, no socket.
//
// The pack: a 12S Li-ion pack of capacity_wh whose voltage is linear in its state of charge,
//   V = 42.0 + 8.4 · soc / 100 V   (3.5 V a cell empty .. 4.2 V full; no sag under load),
// drawing idle_current_a for the electronics plus the motors' mechanical power / V (no losses,
// no regeneration: a braking motor draws nothing). The charge drains by the energy drawn and
// stays at 0 % when empty (the pack never cuts out). Temperature constant; status discharging.
#pragma once

#include <linux/can.h>

#include <cstdint>

namespace robot_edge::sim {

struct BatteryParams {
  double capacity_wh = 1000.0;
  double initial_percent = 80.0;
  double idle_current_a = 1.5;  // the computers and the motors' drivers at rest
  double temperature_c = 30.0;
};

class BatteryModel {
 public:
  static constexpr std::int64_t kPeriodUs = 100'000;  // 10 Hz
  static constexpr double kEmptyV = 42.0;
  static constexpr double kSpanV = 8.4;  // full - empty

  explicit BatteryModel(canid_t can_id, BatteryParams params = {});

  // `seconds` drawing `mechanical_power_w` (negative counts as 0) besides the idle current.
  void Drain(double mechanical_power_w, double seconds);
  // battery PERCENT: the state of charge, clamped to 0..100.
  void SetPercent(double percent);
  // battery on|off: whether the simulator sends the frame at all.
  void SetEnabled(bool enabled) { enabled_ = enabled; }

  bool enabled() const { return enabled_; }
  double percent() const { return percent_; }
  double voltage_v() const { return kEmptyV + kSpanV * percent_ / 100.0; }
  // At the power of the last Drain() (idle before the first).
  double current_a() const { return params_.idle_current_a + power_w_ / voltage_v(); }
  // The BMS frame of the present state: 8 bytes, standard id can_id.
  can_frame Frame() const;

 private:
  canid_t can_id_;
  BatteryParams params_;
  double percent_;
  double power_w_ = 0;  // mechanical, at the last Drain()
  bool enabled_ = true;
};

}  // namespace robot_edge::sim
