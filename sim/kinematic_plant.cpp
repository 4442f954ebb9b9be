#include "sim/kinematic_plant.hpp"

#include <algorithm>
#include <cmath>

#include "sim/imu_model.hpp"

namespace robot_edge::sim {

KinematicJoint KinematicJointFor(const config::Config& config, std::size_t joint) {
  const config::JointConfig& j = config.joints[joint];
  KinematicJoint k;
  k.min_rad = j.min_rad;
  k.max_rad = j.max_rad;
  k.inertia_kgm2 = j.sim_inertia_kgm2 > 0 ? j.sim_inertia_kgm2 : config.sim.joint_inertia;
  k.friction_nms = j.sim_friction_nms > 0 ? j.sim_friction_nms : config.sim.joint_friction;
  return k;
}

namespace {

std::vector<KinematicJoint> JointsOf(const config::Config& config) {
  std::vector<KinematicJoint> joints;
  for (std::size_t j = 0; j < config.joints.size(); ++j) {
    joints.push_back(KinematicJointFor(config, j));
  }
  return joints;
}

}  // namespace

KinematicPlant::KinematicPlant(std::vector<KinematicJoint> joints)
    : joints_(std::move(joints)), state_(joints_.size()) {
  for (std::size_t i = 0; i < joints_.size(); ++i) {
    state_[i].position_rad = std::clamp(0.0, joints_[i].min_rad - kHardStopMarginRad,
                                        joints_[i].max_rad + kHardStopMarginRad);
  }
  SetTilt(0, 0);
}

KinematicPlant::KinematicPlant(const config::Config& config) : KinematicPlant(JointsOf(config)) {}

void KinematicPlant::SetTilt(double roll_deg, double pitch_deg) {
  const std::array<float, 4> q = TiltQuaternion(roll_deg, pitch_deg);
  imu_.quaternion = {q[0], q[1], q[2], q[3]};
  imu_.gyro_rad_s = {0, 0, 0};
  // Specific force at rest: gravity's reaction, +g along the world's up axis, in the body frame.
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  imu_.accel_m_s2 = {9.81 * 2 * (x * z - w * y), 9.81 * 2 * (y * z + w * x),
                     9.81 * (1 - 2 * (x * x + y * y))};
}

void KinematicPlant::Step(std::span<const TorqueLaw> laws) {
  const double dt = static_cast<double>(kStepUs) * 1e-6;
  for (std::size_t i = 0; i < joints_.size(); ++i) StepJoint(i, laws[i], dt);
}

// With a = kp·p_des + kd·v_des + t_ff − kp·p and p_new = p + dt·v_new:
//   J·(v_new − v)/dt = a − kp·dt·v_new − kd·v_new − b·v_new
// which solves for v_new directly; if the torque that gives exceeds t_max, the clamped torque is
// applied as a constant with implicit friction instead.
void KinematicPlant::StepJoint(std::size_t i, const TorqueLaw& law, double dt) {
  const KinematicJoint& joint = joints_[i];
  ShaftState& s = state_[i];
  const double j = joint.inertia_kgm2;
  const double b = joint.friction_nms;
  const double p = s.position_rad;
  const double v = s.velocity_rad_s;
  double torque = 0;
  double v_new;
  if (law.active) {
    const double kp = law.kp, kd = law.kd;
    const double a = kp * (law.position_rad - p) + kd * law.velocity_rad_s + law.torque_nm;
    v_new = (v + dt / j * a) / (1.0 + dt / j * (kp * dt + kd + b));
    torque = a - (kp * dt + kd) * v_new;
    if (std::abs(torque) > law.torque_max_nm) {
      torque = std::copysign(law.torque_max_nm, torque);
      v_new = (v + dt / j * torque) / (1.0 + dt / j * b);
    }
  } else {
    v_new = v / (1.0 + dt / j * b);
  }
  double p_new = p + dt * v_new;
  const double lo = joint.min_rad - kHardStopMarginRad;
  const double hi = joint.max_rad + kHardStopMarginRad;
  if (p_new <= lo || p_new >= hi) {
    // Against a stop: held there, not moving into it; the motor sees that state.
    p_new = std::clamp(p_new, lo, hi);
    v_new = p_new == lo ? std::max(v_new, 0.0) : std::min(v_new, 0.0);
    torque = law.Evaluate(p_new, v_new);
  }
  s = {p_new, v_new, torque};
}

}  // namespace robot_edge::sim
