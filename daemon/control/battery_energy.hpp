// The energy drawn from the battery since robot-edged started: voltage × current integrated over
// the source's readings (charging subtracts). Pure: the readings carry their times.
//
// Threads: the control thread's (ControlLoop keeps one).
#pragma once

#include <cmath>
#include <cstdint>

#include "statemachine/io.hpp"

namespace robot_edge::daemon {

class BatteryEnergy {
 public:
  // A gap between readings longer than this is not integrated (the source was silent).
  static constexpr std::int64_t kMaxGapUs = 10'000'000;

  // Integrates `b` when it is a new reading with a known voltage and current.
  void Add(const sm::BatteryMeasurement& b) {
    if (b.last_update_us < 0 || b.last_update_us == last_us_) return;
    const std::int64_t gap_us = b.last_update_us - last_us_;
    if (last_us_ >= 0 && gap_us > 0 && gap_us <= kMaxGapUs && std::isfinite(b.voltage_v) &&
        std::isfinite(b.current_a)) {
      wh_ += static_cast<double>(b.voltage_v) * b.current_a * static_cast<double>(gap_us) / 3.6e9;
    }
    last_us_ = b.last_update_us;
  }
  double wh() const { return wh_; }

 private:
  std::int64_t last_us_ = -1;
  double wh_ = 0;
};

}  // namespace robot_edge::daemon
