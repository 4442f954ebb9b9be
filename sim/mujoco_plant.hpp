// The physics backend: a MuJoCo model (MJCF) of the whole robot, floating base, gravity and
// contacts, behind the same motors and buses as the kinematic backend.
//
// Motors: config joint i is the model's actuator named like it, which must be a plain torque
// motor (<motor>: no dynamics, fixed gain, no bias); its transmission (a joint, or a fixed tendon
// such as an ankle linkage) defines the motor's shaft: angle = actuator_length, speed =
// actuator_velocity, torque = ctrl. Without such an actuator, a hinge or slide joint of that name
// is driven directly (qfrc_applied). A config joint the model has neither of is an error at load.
//
// Each step (the model's timestep): mj_step1 computes the state, every motor's law is evaluated
// at it (explicitly, after the torque low-pass of TorqueLaw::bandwidth_hz), then mj_step2
// integrates. The shaft state reported is the one the law saw (one step old at most).
//
// IMU: the sensors named imu_quat (framequat), imu_gyro (gyro) and imu_accel (accelerometer) when
// the model has them, else the floating base's: its orientation, its angular velocity in its own
// frame, and the specific force at its origin in its own frame (as Unitree's models, which name
// no such sensors, are read by Unitree's deploy_mujoco.py).
//
// Models written for MuJoCo 3 load through sim/mjcf_compat.hpp; a joint's actuatorfrcrange
// clamps the torque its motor applies (after the torque low-pass), and the shaft reports the
// clamped torque. A config joint's name in the model is sim.joint_names' (ModelJointNames).
// Gantry: a spring-damper holds the floating base at a height above its start (x, y) and upright,
// like a bring-up stand's elastic band; a new height is reached at the hoist's speed (0.25 m/s);
// released, the robot stands or falls on its own.
//
// Threads: one owner. Step() does not allocate.
#pragma once

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "sim/mjcf_compat.hpp"
#include "sim/plant.hpp"

struct mjModel_;
struct mjData_;

namespace robot_edge::sim {

// Where the built-in humanoid is: the installed copy, else the source tree's.
std::string DefaultModelPath();

class MujocoPlant final : public Plant {
 public:
  // Loads `model_path` and resets it to its keyframe "stand" (else its reference pose); with a
  // gantry height, the base hangs at that height. Throws std::runtime_error: the model does not
  // load, lacks a config joint (each one named), or has an actuator that is not a torque motor.
  MujocoPlant(const config::Config& config, const std::string& model_path,
              std::optional<double> gantry_height_m);
  ~MujocoPlant() override;
  MujocoPlant(const MujocoPlant&) = delete;
  MujocoPlant& operator=(const MujocoPlant&) = delete;

  const char* name() const override { return "mujoco"; }
  std::size_t motor_count() const override { return motors_.size(); }
  std::int64_t step_us() const override { return step_us_; }
  void Step(std::span<const TorqueLaw> laws) override;
  ShaftState shaft(std::size_t motor) const override { return shafts_[motor]; }
  ImuSample imu() const override;
  std::optional<GroundTruth> truth() const override;
  std::span<const double> generalized_positions() const override;
  std::string SetGantry(std::optional<double> height_m) override;
  std::string Push(const std::string& body, const std::array<double, 3>& force_n,
                   double seconds) override;

  double total_mass_kg() const;
  // What sim/mjcf_compat translated to load the model, e.g. "autolimits true (...)".
  const std::vector<std::string>& translated() const { return translated_; }
  double time_s() const;
  // The model and its present state, read-only: for a renderer (tools/render).
  const mjModel_* model() const { return model_; }
  const mjData_* data() const { return data_; }

 private:
  struct Motor {
    int actuator = -1;  // its actuator, or -1: a joint driven directly
    int qpos = -1;      // the joint's qpos / dof address (no actuator)
    int dof = -1;
    double filtered_torque_nm = 0;
    double torque_min_nm = -HUGE_VAL;  // the joint's actuatorfrcrange, in the motor's units
    double torque_max_nm = HUGE_VAL;
  };
  struct PushState {
    int body = -1;
    std::array<double, 3> force_n{};
    std::int64_t steps_left = 0;
  };

  void MapMotors(const config::Config& config);
  void ApplyForceRanges(const std::vector<JointForceRange>& ranges);
  ShaftState ReadShaft(const Motor& motor) const;  // torque 0
  void FindSensors();
  void ApplyGantry();
  void ApplyPush();

  mjModel_* model_ = nullptr;
  mjData_* data_ = nullptr;
  std::int64_t step_us_ = 1000;
  std::vector<Motor> motors_;
  std::vector<ShaftState> shafts_;
  int base_body_ = -1;  // the body of the free joint
  int base_qpos_ = -1;  // its qpos address (x y z qw qx qy qz)
  int base_dof_ = -1;   // its qvel address (vx vy vz wx wy wz; angular in the body frame)
  int imu_site_ = -1;
  int quat_adr_ = -1, gyro_adr_ = -1, accel_adr_ = -1;  // sensordata addresses, -1 = none
  std::vector<bool> is_foot_;                           // per body: its name contains "foot"
  std::optional<double> gantry_height_m_;
  std::array<double, 2> gantry_xy_{};
  double anchor_height_m_ = 0;  // moves towards *gantry_height_m_ at the hoist's speed
  PushState push_;
  std::vector<std::string> translated_;
};

}  // namespace robot_edge::sim
