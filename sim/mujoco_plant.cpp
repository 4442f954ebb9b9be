#include "sim/mujoco_plant.hpp"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <numbers>
#include <stdexcept>

#include "sim/imu_model.hpp"
#include "sim/mjcf_compat.hpp"
#include "sim/model_joints.hpp"

namespace robot_edge::sim {
namespace {

// The gantry: stiff enough to hold ~35 kg within a few cm, damped near critically.
constexpr double kGantryStiffnessNPerM = 8000;
constexpr double kGantryDampingNsPerM = 1200;
constexpr double kGantryAngularStiffness = 800;  // N·m/rad
constexpr double kGantryAngularDamping = 80;     // N·m·s/rad
constexpr double kGantrySpeedMPerS = 0.25;       // the hoist raises or lowers the anchor this fast

bool NameContainsFoot(const char* name) {
  if (name == nullptr) return false;
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return lower.find("foot") != std::string::npos;
}

}  // namespace

std::string DefaultModelPath() {
  // A binary in its build tree uses the tree's model; an installed one, the installed copy.
  const std::filesystem::path source =
      std::filesystem::path(ROBOT_EDGE_SOURCE_MODEL_DIR) / "humanoid.xml";
  if (std::filesystem::exists(source)) return source.string();
  return (std::filesystem::path(ROBOT_EDGE_INSTALLED_MODEL_DIR) / "humanoid.xml").string();
}

MujocoPlant::MujocoPlant(const config::Config& config, const std::string& model_path,
                         std::optional<double> gantry_height_m)
    : gantry_height_m_(gantry_height_m) {
  LoadedMjcf loaded = LoadMjcf(model_path);
  model_ = loaded.model;
  translated_ = std::move(loaded.translated);
  if (model_->opt.integrator == mjINT_RK4) {
    mj_deleteModel(model_);
    throw std::runtime_error(model_path +
                             ": integrator RK4 cannot step with per-step motor laws; use Euler "
                             "or implicit");
  }
  data_ = mj_makeData(model_);
  step_us_ = std::max<std::int64_t>(1, std::llround(model_->opt.timestep * 1e6));
  try {
    MapMotors(config);
    ApplyForceRanges(loaded.force_ranges);
  } catch (...) {
    mj_deleteData(data_);
    mj_deleteModel(model_);
    throw;
  }
  FindSensors();
  const int stand = mj_name2id(model_, mjOBJ_KEY, "stand");
  if (stand >= 0) mj_resetDataKeyframe(model_, data_, stand);
  if (base_qpos_ >= 0) {
    gantry_xy_ = {data_->qpos[base_qpos_], data_->qpos[base_qpos_ + 1]};
    if (gantry_height_m_) data_->qpos[base_qpos_ + 2] = *gantry_height_m_;
    anchor_height_m_ = data_->qpos[base_qpos_ + 2];
  }
  mj_forward(model_, data_);
  shafts_.resize(motors_.size());
  for (std::size_t i = 0; i < motors_.size(); ++i) shafts_[i] = ReadShaft(motors_[i]);
}

ShaftState MujocoPlant::ReadShaft(const Motor& motor) const {
  if (motor.actuator >= 0) {
    return {data_->actuator_length[motor.actuator], data_->actuator_velocity[motor.actuator], 0};
  }
  return {data_->qpos[motor.qpos], data_->qvel[motor.dof], 0};
}

MujocoPlant::~MujocoPlant() {
  mj_deleteData(data_);
  mj_deleteModel(model_);
}

void MujocoPlant::MapMotors(const config::Config& config) {
  const std::vector<std::string> names = ModelJointNames(config);
  for (const ModelJoint& joint : MapModelJoints(model_, names)) {
    Motor motor;
    motor.actuator = joint.actuator;
    motor.qpos = joint.qpos;
    motor.dof = joint.dof;
    motors_.push_back(motor);
  }
  for (int j = 0; j < model_->njnt; ++j) {
    if (model_->jnt_type[j] != mjJNT_FREE) continue;
    base_body_ = model_->jnt_bodyid[j];
    base_qpos_ = model_->jnt_qposadr[j];
    base_dof_ = model_->jnt_dofadr[j];
    break;
  }
}

// MuJoCo 3 clamps the sum of the actuator forces on the joint (qfrc_actuator); the plant clamps
// the one motor that drives it, which is the same when that motor is the joint's only actuator.
// A joint several actuators (or a tendon) drive is refused by name rather than clamped wrongly.
void MujocoPlant::ApplyForceRanges(const std::vector<JointForceRange>& ranges) {
  for (const JointForceRange& range : ranges) {
    const int joint = mj_name2id(model_, mjOBJ_JOINT, range.joint.c_str());
    if (joint < 0)
      throw std::runtime_error("actuatorfrcrange: the model has no joint " + range.joint);
    int actuator = -1, count = 0;
    for (int a = 0; a < model_->nu; ++a) {
      const int type = model_->actuator_trntype[a];
      if ((type == mjTRN_JOINT || type == mjTRN_JOINTINPARENT) &&
          model_->actuator_trnid[2 * a] == joint) {
        actuator = a;
        ++count;
      } else if (type == mjTRN_TENDON) {
        const int tendon = model_->actuator_trnid[2 * a];
        for (int w = 0; w < model_->tendon_num[tendon]; ++w) {
          const int wrap = model_->tendon_adr[tendon] + w;
          if (model_->wrap_type[wrap] == mjWRAP_JOINT && model_->wrap_objid[wrap] == joint) ++count;
        }
      }
    }
    if (count > 1) {
      throw std::runtime_error("joint " + range.joint + ": actuatorfrcrange on a joint that " +
                               std::to_string(count) +
                               " actuators drive is not supported (robot-edge clamps the torque "
                               "of the one motor that drives a joint)");
    }
    double lo = range.min, hi = range.max;
    if (actuator >= 0) {  // the motor's ctrl is scaled by its gear onto the joint
      const double gear = model_->actuator_gear[6 * actuator];
      if (gear == 0) continue;
      lo = range.min / gear, hi = range.max / gear;
      if (lo > hi) std::swap(lo, hi);
    }
    for (Motor& motor : motors_) {
      const bool drives = actuator >= 0
                              ? motor.actuator == actuator
                              : motor.actuator < 0 && motor.dof == model_->jnt_dofadr[joint];
      if (!drives) continue;
      motor.torque_min_nm = lo;
      motor.torque_max_nm = hi;
    }
  }
}

void MujocoPlant::FindSensors() {
  auto address = [this](const char* name, int type) {
    const int id = mj_name2id(model_, mjOBJ_SENSOR, name);
    return id >= 0 && model_->sensor_type[id] == type ? model_->sensor_adr[id] : -1;
  };
  quat_adr_ = address("imu_quat", mjSENS_FRAMEQUAT);
  gyro_adr_ = address("imu_gyro", mjSENS_GYRO);
  accel_adr_ = address("imu_accel", mjSENS_ACCELEROMETER);
  imu_site_ = mj_name2id(model_, mjOBJ_SITE, "imu");
  is_foot_.resize(static_cast<std::size_t>(model_->nbody));
  bool named = false;
  for (int b = 0; b < model_->nbody; ++b) {
    is_foot_[static_cast<std::size_t>(b)] = NameContainsFoot(mj_id2name(model_, mjOBJ_BODY, b));
    named = named || is_foot_[static_cast<std::size_t>(b)];
  }
  if (named || model_->nbody < 2) return;
  // No body named "foot" (Unitree's models end their legs in "*_ankle_link"): the feet are the
  // leaf bodies whose origin, at the model's qpos0, is within 0.1 m of the lowest leaf's.
  std::vector<bool> leaf(static_cast<std::size_t>(model_->nbody), true);
  leaf[0] = false;
  for (int b = 1; b < model_->nbody; ++b)
    leaf[static_cast<std::size_t>(model_->body_parentid[b])] = false;
  mjData* rest = mj_makeData(model_);
  mj_kinematics(model_, rest);
  double lowest = 1e300;
  for (int b = 1; b < model_->nbody; ++b) {
    if (leaf[static_cast<std::size_t>(b)]) lowest = std::min(lowest, rest->xpos[3 * b + 2]);
  }
  for (int b = 1; b < model_->nbody; ++b) {
    is_foot_[static_cast<std::size_t>(b)] =
        leaf[static_cast<std::size_t>(b)] && rest->xpos[3 * b + 2] <= lowest + 0.1;
  }
  mj_deleteData(rest);
}

void MujocoPlant::Step(std::span<const TorqueLaw> laws) {
  mj_step1(model_, data_);
  for (std::size_t i = 0; i < motors_.size(); ++i) {
    Motor& motor = motors_[i];
    const ShaftState now = ReadShaft(motor);
    const double q = now.position_rad, qd = now.velocity_rad_s;
    const TorqueLaw& law = laws[i];
    const double wanted = law.Evaluate(q, qd);
    double torque = wanted;
    if (law.bandwidth_hz > 0) {
      const double alpha =
          1 - std::exp(-2 * std::numbers::pi * law.bandwidth_hz * model_->opt.timestep);
      torque = motor.filtered_torque_nm + alpha * (wanted - motor.filtered_torque_nm);
    }
    motor.filtered_torque_nm = torque;
    torque = std::clamp(torque, motor.torque_min_nm, motor.torque_max_nm);  // actuatorfrcrange
    if (motor.actuator >= 0) {
      data_->ctrl[motor.actuator] = torque;
    } else {
      data_->qfrc_applied[motor.dof] = torque;
    }
    shafts_[i] = {q, qd, torque};
  }
  ApplyGantry();
  ApplyPush();
  mj_step2(model_, data_);
}

void MujocoPlant::ApplyGantry() {
  if (base_body_ < 0) return;
  double* f = data_->xfrc_applied + 6 * base_body_;
  std::fill(f, f + 6, 0.0);
  if (!gantry_height_m_) return;
  const double* p = data_->qpos + base_qpos_;
  const double* v = data_->qvel + base_dof_;  // linear: world frame
  const double max_move = kGantrySpeedMPerS * model_->opt.timestep;
  anchor_height_m_ += std::clamp(*gantry_height_m_ - anchor_height_m_, -max_move, max_move);
  const double target[3] = {gantry_xy_[0], gantry_xy_[1], anchor_height_m_};
  for (int k = 0; k < 3; ++k) {
    f[k] = kGantryStiffnessNPerM * (target[k] - p[k]) - kGantryDampingNsPerM * v[k];
  }
  // Upright: a torque about the axis that turns the base's up axis onto the world's.
  const double* r = data_->xmat + 9 * base_body_;  // row-major body-to-world rotation
  const double up[3] = {r[2], r[5], r[8]};         // the body's z axis in the world
  const double axis[3] = {up[1], -up[0], 0.0};     // up × world z: sin(tilt) about it
  double w_world[3];
  mju_rotVecMat(w_world, v + 3, r);  // body-frame angular velocity to world
  for (int k = 0; k < 3; ++k) {
    f[3 + k] = kGantryAngularStiffness * axis[k] - kGantryAngularDamping * w_world[k];
  }
}

void MujocoPlant::ApplyPush() {
  if (push_.body < 0) return;
  double* f = data_->xfrc_applied + 6 * push_.body;
  const bool base = push_.body == base_body_;  // ApplyGantry() rewrote the base's force
  if (push_.steps_left-- <= 0) {
    if (!base) std::fill(f, f + 3, 0.0);
    push_.body = -1;
    return;
  }
  for (int k = 0; k < 3; ++k) {
    f[k] = (base ? f[k] : 0.0) + push_.force_n[static_cast<std::size_t>(k)];
  }
}

std::string MujocoPlant::SetGantry(std::optional<double> height_m) {
  // Hooked on where the base is now (above it, wherever it has walked or fallen); the hoist then
  // moves it to the height asked.
  if (height_m && !gantry_height_m_ && base_qpos_ >= 0) {
    gantry_xy_ = {data_->qpos[base_qpos_], data_->qpos[base_qpos_ + 1]};
    anchor_height_m_ = data_->qpos[base_qpos_ + 2];
  }
  gantry_height_m_ = height_m;
  return height_m ? "ok gantry holds the base at " + std::to_string(*height_m) + " m"
                  : "ok gantry released";
}

std::string MujocoPlant::Push(const std::string& body, const std::array<double, 3>& force_n,
                              double seconds) {
  const int id = mj_name2id(model_, mjOBJ_BODY, body.c_str());
  if (id <= 0) return "error: the model has no body '" + body + "'";
  if (push_.body >= 0 && push_.body != base_body_) {
    std::fill(data_->xfrc_applied + 6 * push_.body, data_->xfrc_applied + 6 * push_.body + 3, 0.0);
  }
  push_ = {id, force_n, std::llround(seconds * 1e6 / static_cast<double>(step_us_))};
  return "ok";
}

ImuSample MujocoPlant::imu() const {
  ImuSample s;
  const double* sd = data_->sensordata;
  if (quat_adr_ >= 0) {
    std::copy(sd + quat_adr_, sd + quat_adr_ + 4, s.quaternion.begin());
  } else if (base_qpos_ >= 0) {
    std::copy(data_->qpos + base_qpos_ + 3, data_->qpos + base_qpos_ + 7, s.quaternion.begin());
  }
  if (gyro_adr_ >= 0) {
    std::copy(sd + gyro_adr_, sd + gyro_adr_ + 3, s.gyro_rad_s.begin());
  } else if (base_dof_ >= 0) {
    std::copy(data_->qvel + base_dof_ + 3, data_->qvel + base_dof_ + 6, s.gyro_rad_s.begin());
  }
  if (accel_adr_ >= 0) {
    std::copy(sd + accel_adr_, sd + accel_adr_ + 3, s.accel_m_s2.begin());
  } else if (base_dof_ >= 0) {
    // An accelerometer at the base's origin: specific force (its acceleration minus gravity),
    // rotated into the body frame. The free joint's linear qacc is the origin's, world frame.
    double world[3], body[3];
    for (int k = 0; k < 3; ++k) world[k] = data_->qacc[base_dof_ + k] - model_->opt.gravity[k];
    mju_rotVecMatT(body, world, data_->xmat + 9 * base_body_);
    std::copy(body, body + 3, s.accel_m_s2.begin());
  }
  return s;
}

std::span<const double> MujocoPlant::generalized_positions() const {
  return {data_->qpos, static_cast<std::size_t>(model_->nq)};
}

std::optional<GroundTruth> MujocoPlant::truth() const {
  if (base_body_ < 0) return std::nullopt;
  GroundTruth t;
  std::copy(data_->qpos + base_qpos_, data_->qpos + base_qpos_ + 3, t.base_position_m.begin());
  std::copy(data_->qpos + base_qpos_ + 3, data_->qpos + base_qpos_ + 7, t.base_quaternion.begin());
  std::copy(data_->qvel + base_dof_, data_->qvel + base_dof_ + 3, t.base_velocity_m_s.begin());
  std::copy(data_->qvel + base_dof_ + 3, data_->qvel + base_dof_ + 6,
            t.base_angular_velocity_rad_s.begin());
  const int frame_body = imu_site_ >= 0 ? model_->site_bodyid[imu_site_] : base_body_;
  const double* r = data_->xmat + 9 * frame_body;
  t.tilt_deg = std::acos(std::clamp(r[8], -1.0, 1.0)) * 180 / std::numbers::pi;
  t.time_s = data_->time;
  t.torso_height_m = imu_site_ >= 0 ? data_->site_xpos[3 * imu_site_ + 2] : t.base_position_m[2];
  for (int c = 0; c < data_->ncon; ++c) {
    const mjContact& contact = data_->contact[c];
    const int b1 = model_->geom_bodyid[contact.geom1];
    const int b2 = model_->geom_bodyid[contact.geom2];
    if (b1 != 0 && b2 != 0) continue;  // not with the world (the floor)
    ++t.contacts;
    const int other = b1 == 0 ? b2 : b1;
    if (is_foot_[static_cast<std::size_t>(other)]) ++t.foot_contacts;
  }
  return t;
}

double MujocoPlant::total_mass_kg() const { return mj_getTotalmass(model_); }
double MujocoPlant::time_s() const { return data_->time; }

}  // namespace robot_edge::sim
