// The simulated robot behind an in-memory Transport, for the daemon's unit tests: what the
// control loop sends reaches SimRobot's motors (firmware and plant, as in robot-edge-sim) when
// the test calls Answer(now), and their replies and the IMU's frames come back through the
// transport's next Receive(). No sockets, no threads, no clock: time is passed in.
// Threads: one owner. Answer() does not allocate (the buffers are reserved).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "can/fake_transport.hpp"
#include "config/config.hpp"
#include "sim/sim_robot.hpp"

namespace robot_edge::sim {

class InMemoryRobot {
 public:
  // The kinematic plant of `config` (valid; kept by reference).
  explicit InMemoryRobot(const config::Config& config);
  InMemoryRobot(const config::Config& config, std::unique_ptr<Plant> plant);

  can::FakeTransport& transport() { return transport_; }
  // The frames sent since the last call reach the motors at `now_us` (and are forgotten); their
  // replies, then the IMU's quaternion, gyro and (with imu.accel_id) accelerometer frames, then
  // (with battery.source can) the BMS frame when BatteryModel::kPeriodUs have passed since the
  // last one, are queued for the next Receive().
  void Answer(std::int64_t now_us);

  SimRobot& robot() { return robot_; }
  // Off: the gyro frame stops while the quaternion keeps coming (a half-broken IMU).
  void set_gyro(bool on) { gyro_ = on; }

 private:
  const config::Config& config_;
  can::FakeTransport transport_;
  SimRobot robot_;
  std::vector<can_frame> replies_;
  bool gyro_ = true;
  std::int64_t next_battery_us_ = std::numeric_limits<std::int64_t>::min();  // the first at once
};

}  // namespace robot_edge::sim
