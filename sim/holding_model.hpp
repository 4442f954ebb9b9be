// The robot's statics by its MJCF model, for the bring-up tools: does what the motors measure
// hold the robot still at a pose? For a robot hanging by its base (a gantry or a stand holds the
// floating base, nothing else touches it), every joint the motors span must be held against
// gravity by the motors, by a joint's end stop, or by friction; what none of them explains is
// evidence against the pose (or the torques) being what the robot believes.
//
// Positions and torques are per config joint on the motor's shaft, in joint space (rad, N·m): an
// actuator's length or a hinge's angle (sim/model_joints.hpp). The base's attitude comes from the
// IMU: the model's site "imu" is turned to the measured orientation (without that site, the
// floating base itself is).
//
// Threads: one owner.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace robot_edge::sim {

struct Holding {
  // Σ over the spanned model joints of (what gravity asks, less what the motors give, beyond what
  // friction and an end stop the joint rests on can carry)², N²·m².
  double unexplained_nm2 = 0;
  // The model joint with the largest such shortfall, and the shortfall (N·m).
  std::string worst_joint;
  double worst_nm = 0;
  // The furthest a model joint lies beyond its range (rad, 0 when all within): a pose the robot
  // cannot be in, and the joint.
  double beyond_range_rad = 0;
  std::string beyond_joint;
};

class HoldingModel {
 public:
  // Loads the MJCF and maps `joint_names` (config order) onto it. Throws std::runtime_error: the
  // model does not load, lacks a joint, or the motors' transmissions are not linear in the model's
  // joints (fixed tendons and joint transmissions are).
  HoldingModel(const std::string& model_path, std::span<const std::string> joint_names);
  ~HoldingModel();
  HoldingModel(const HoldingModel&) = delete;
  HoldingModel& operator=(const HoldingModel&) = delete;

  // `q` and `tau`: one per config joint; `imu_wxyz`: the IMU's orientation (w, x, y, z).
  Holding Check(std::span<const double> q, std::span<const double> tau,
                const std::array<double, 4>& imu_wxyz) const;

  // The model's range of config joint i's shaft when it is a limited hinge driven directly
  // (empty otherwise): [lo, hi] rad.
  std::vector<double> Range(std::size_t joint) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace robot_edge::sim
