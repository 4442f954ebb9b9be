// The fast backend: every motor drives an independent joint, an inertia with viscous friction
// between hard stops. No gravity, no contacts, nothing falls; the IMU reports the attitude set by
// `tilt` (fault injection) with zero rates, its accelerometer the specific force of that attitude
// at rest (R(q)ᵀ·(0, 0, 9.81) m/s²).
//
// Integration per step (kStepUs): the MIT law and the friction are integrated implicitly
// (backward Euler in the velocity, the position from the new velocity), so a joint is stable for
// any configured inertia, gain or friction; a saturated torque is applied as a constant.
// J·dq̇/dt = τ − friction·q̇. Hard stops at the joint limits ± kHardStopMarginRad: the position is
// held there and the velocity towards the stop zeroed.
#pragma once

#include <vector>

#include "config/config.hpp"
#include "sim/plant.hpp"

namespace robot_edge::sim {

struct KinematicJoint {
  double min_rad = -1.0;  // hard stops kHardStopMarginRad beyond these
  double max_rad = 1.0;
  double inertia_kgm2 = 0.02;
  double friction_nms = 0.2;  // viscous (N·m·s/rad)
};

// Joint `joint` of `config`: its limits, and its inertia/friction (per joint, else sim defaults).
KinematicJoint KinematicJointFor(const config::Config& config, std::size_t joint);

class KinematicPlant final : public Plant {
 public:
  static constexpr std::int64_t kStepUs = 500;
  static constexpr double kHardStopMarginRad = 0.05;

  // Every joint starts at rest at 0, clamped into its hard stops.
  explicit KinematicPlant(std::vector<KinematicJoint> joints);
  explicit KinematicPlant(const config::Config& config);

  const char* name() const override { return "kinematic"; }
  std::size_t motor_count() const override { return joints_.size(); }
  std::int64_t step_us() const override { return kStepUs; }
  void Step(std::span<const TorqueLaw> laws) override;
  ShaftState shaft(std::size_t motor) const override { return state_[motor]; }
  ImuSample imu() const override { return imu_; }

  // The attitude the IMU reports (fault injection): roll about x, then pitch about y; no motion.
  void SetTilt(double roll_deg, double pitch_deg);

 private:
  void StepJoint(std::size_t i, const TorqueLaw& law, double dt);

  std::vector<KinematicJoint> joints_;
  std::vector<ShaftState> state_;
  ImuSample imu_;
};

}  // namespace robot_edge::sim
