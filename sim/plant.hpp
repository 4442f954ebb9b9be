// The mechanics behind the simulated motors: what each motor's torque does to the robot. Two
// backends implement it: KinematicPlant (every joint an independent inertia with friction; fast,
// nothing falls) and MujocoPlant (a floating-base humanoid with gravity and contacts).
//
// Motor space: index i is config joint i (the motor the config names), angles and torques at the
// motor's output shaft, as its encoder and its current measure them. A plant maps them onto its
// own joints (MujocoPlant: through the model's actuator transmissions, e.g. an ankle linkage).
//
// Threads: one owner. Step() does not allocate.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace robot_edge::sim {

// The torque a motor's firmware applies, as a function of its shaft's state (MIT law):
//   τ = clamp(kp·(position − q) + kd·(velocity − q̇) + torque, ±torque_max), or 0 when !active.
// The kinematic backend applies it without lag (bandwidth_hz is the physics backend's).
struct TorqueLaw {
  bool active = false;
  double kp = 0;              // N·m/rad
  double kd = 0;              // N·m·s/rad
  double position_rad = 0;    // target, motor frame (zero offset applied)
  double velocity_rad_s = 0;  // target
  double torque_nm = 0;       // feed-forward
  double torque_max_nm = 0;
  double bandwidth_hz = 0;  // the physics backend low-passes τ at this cutoff; 0 = no lag

  double Evaluate(double q, double qd) const;
};

// One motor's shaft after a step.
struct ShaftState {
  double position_rad = 0;
  double velocity_rad_s = 0;
  double torque_nm = 0;  // applied during the step
};

// The torso IMU's reading, body frame.
struct ImuSample {
  std::array<double, 4> quaternion{1, 0, 0, 0};  // w, x, y, z: body to world
  std::array<double, 3> gyro_rad_s{};
  std::array<double, 3> accel_m_s2{};  // specific force (reads +9.81 z when upright at rest)
};

// What the simulation knows and a real robot would not: for tests and tools.
struct GroundTruth {
  std::array<double, 3> base_position_m{};  // floating base, world frame
  std::array<double, 4> base_quaternion{1, 0, 0, 0};
  std::array<double, 3> base_velocity_m_s{};  // world frame
  std::array<double, 3> base_angular_velocity_rad_s{};
  double torso_height_m = 0;  // the IMU site's height above the floor plane
  double tilt_deg = 0;        // torso up axis vs world up
  int contacts = 0;           // active contacts with the floor
  int foot_contacts = 0;      // of which on a foot
  double time_s = 0;          // simulated time since the start (s): behind the wall clock when
                              // the physics falls behind real time and skips
};

class Plant {
 public:
  virtual ~Plant() = default;

  virtual const char* name() const = 0;  // "kinematic", "mujoco"
  virtual std::size_t motor_count() const = 0;
  // The fixed physics period (µs).
  virtual std::int64_t step_us() const = 0;
  // Advances one step_us; motor i applies laws[i] (laws.size() == motor_count()).
  virtual void Step(std::span<const TorqueLaw> laws) = 0;
  virtual ShaftState shaft(std::size_t motor) const = 0;
  virtual ImuSample imu() const = 0;
  virtual std::optional<GroundTruth> truth() const { return std::nullopt; }
  // The whole model's generalized positions (MuJoCo's qpos: what a viewer needs to draw the
  // robot); empty when the backend has none.
  virtual std::span<const double> generalized_positions() const { return {}; }

  // The physics backend's control verbs; each returns "ok ..." or "error: ...".
  // Gantry: an elastic support holds the base at `height_m` above the floor; nullopt releases it.
  virtual std::string SetGantry(std::optional<double> height_m);
  // Push: `force_n` (world frame) on body `body` at its centre of mass for `seconds`.
  virtual std::string Push(const std::string& body, const std::array<double, 3>& force_n,
                           double seconds);
};

}  // namespace robot_edge::sim
