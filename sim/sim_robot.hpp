// The whole simulated robot behind its buses: one SimMotor (firmware) per configured joint,
// grouped by bus, the Plant that moves them (kinematic or MuJoCo), the IMU, and the battery's BMS
// (battery.source can; the pack drains by the motors' mechanical power). Pure logic (no
// clock, socket or logger): the simulator hands it the frames each bus received with the time,
// and sends what it returns.
//
// Time: the plant steps at its fixed period, each motor applying the law its firmware holds at
// the step's start (zero-order hold), up to the time it is given. Physics that falls more than
// kMaxLagUs behind is not caught up: that time is skipped and counted (lagged_us), so a slow
// machine shows as a reported lag, never as a slower robot.
//
// Threads: one owner (the simulator's event loop thread).
// Allocation: OnFrames() and AdvanceAll() do not allocate when `replies` has capacity for
// frames.size() more frames (the simulator reserves it once).
#pragma once

#include <linux/can.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "sim/battery_model.hpp"
#include "sim/control_protocol.hpp"
#include "sim/imu_model.hpp"
#include "sim/joint_record.hpp"
#include "sim/kinematic_plant.hpp"
#include "sim/motor_model.hpp"

namespace robot_edge::sim {

// Frame counts since start; rates over the last UpdateRates() interval.
struct SimTotals {
  std::uint64_t frames = 0;    // frames received for a motor of this robot
  std::uint64_t replies = 0;   // replies produced
  std::uint64_t ignored = 0;   // frames for an unknown id, or that a motor did not answer
  std::uint64_t steps = 0;     // physics steps taken
  std::int64_t lagged_us = 0;  // physics time skipped because it fell behind
};

// Steps `plant` from *physics_us while a whole step fits before `now_us`, motor i applying
// motors[i]'s law; `laws` is scratch of motors.size(); `records`, empty or one per motor,
// observes every step. Returns the steps taken.
std::uint64_t StepPhysics(Plant& plant, std::span<SimMotor> motors, std::span<TorqueLaw> laws,
                          std::int64_t* physics_us, std::int64_t now_us,
                          std::span<JointRecord> records = {});

class SimRobot {
 public:
  static constexpr std::int64_t kMaxLagUs = 50'000;

  // `config` must be valid (config::Validate); it is copied where needed, not kept. `plant` has
  // one motor per config joint; without one, a KinematicPlant of the config.
  SimRobot(const config::Config& config, std::unique_ptr<Plant> plant, std::int64_t start_us = 0);
  explicit SimRobot(const config::Config& config, std::int64_t start_us = 0);

  // The kernel receive filter that passes every frame addressed to one of its motors, whatever
  // the bus (standard ids for ak/damiao, 29-bit ids whose low byte is the motor for robstride).
  std::vector<can_filter> ReceiveFilters() const;

  // Frames bus `bus` received at `now_us`: every motor on the bus is advanced to `now_us`, each
  // frame goes to the motor with its id, and each reply is appended to `replies` (standard id =
  // the bus's master_id).
  void OnFrames(std::size_t bus, std::span<const can_frame> frames, std::int64_t now_us,
                std::vector<can_frame>* replies);

  // Advances the physics to `now_us` (the simulator's physics timer does between frames).
  void AdvanceAll(std::int64_t now_us);
  // The motor a frame on `bus` is addressed to: joint + 1, or joint count + extra + 1; 0 = none.
  std::uint16_t MotorFor(std::size_t bus, const can_frame& frame) const;

  // Executes a joint, IMU, battery, physics or report command (temp, silence, fault, tilt, imu,
  // battery, gantry, push, truth, record, qpos, get, status, help) and returns its one-line reply
  // ("ok ..." or "error: ...").
  // Bus commands (busoff, restarted, link) are the simulator's: they return an error here.
  std::string Execute(const ControlCommand& command, std::int64_t now_us);

  // Recomputes commands/s and replies/s from the totals since the previous call.
  void UpdateRates(std::int64_t now_us);
  // "motor_mode=25/25 active=25 silenced=0 faults=0 frames/s=12500 replies/s=12500
  //  hottest=L_Knee:31.2C imu=on tilt=0.0 physics=kinematic lagged_ms=0 battery=79.8%"
  // (battery=off when its frames are stopped, battery=none without battery.source can)
  std::string StatusLine() const;

  std::size_t imu_bus() const { return imu_bus_; }
  const ImuModel& imu() const { return imu_; }
  // The IMU frames of the plant's present reading.
  ImuFrameSet ImuFrames() const { return imu_.Frames(plant_->imu()); }
  // The BMS (battery.source can): its bus, the pack, the frame of its present state.
  bool has_bms() const { return battery_bus_ != config::kUnresolved; }
  std::size_t battery_bus() const { return battery_bus_; }
  const BatteryModel& battery() const { return battery_; }
  can_frame BatteryFrame() const { return battery_.Frame(); }
  const Plant& plant() const { return *plant_; }
  SimMotor& motor(std::size_t joint) { return motors_[joint]; }
  const SimMotor& motor(std::size_t joint) const { return motors_[joint]; }
  std::size_t joint_count() const { return motors_.size(); }
  const SimTotals& totals() const { return totals_; }

 private:
  std::string GetLine(std::size_t joint) const;
  std::string TruthLine() const;
  std::string RecordLine();  // and restarts the records
  std::string QposLine() const;
  std::string ExecuteBattery(const ControlCommand& command);
  double MechanicalPowerW() const;  // Σ max(0, τ·ω) over the plant's motors

  std::vector<std::string> joint_names_;
  std::unique_ptr<Plant> plant_;
  KinematicPlant* kinematic_ = nullptr;           // plant_, when it is one (tilt)
  std::vector<SimMotor> motors_;                  // firmware order
  std::vector<SimMotor> extras_;                  // sim.extra_motors: on the buses, on no joint
  std::vector<TorqueLaw> laws_;                   // scratch: one per motor
  std::vector<JointRecord> records_;              // one per motor
  std::int64_t physics_us_;                       // the plant's time
  std::vector<std::vector<std::size_t>> by_bus_;  // bus -> joints on it
  // bus -> family -> (motor id -> joint + 1, 0 = none).
  using IdTable = std::array<std::array<std::uint16_t, CAN_SFF_MASK + 1>, 3>;
  std::vector<IdTable> joint_by_id_;
  std::vector<std::uint8_t> families_on_bus_;  // bit f: a motor of family f is on the bus
  std::size_t imu_bus_;
  ImuModel imu_;
  std::size_t battery_bus_;  // config::kUnresolved without battery.source can
  BatteryModel battery_;
  SimTotals totals_;
  SimTotals rate_base_;  // totals at the previous UpdateRates()
  std::int64_t rate_base_us_;
  double commands_per_s_ = 0;  // frames/s
  double replies_per_s_ = 0;
};

}  // namespace robot_edge::sim
