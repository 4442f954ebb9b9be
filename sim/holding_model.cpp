#include "sim/holding_model.hpp"

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/mjcf_compat.hpp"
#include "sim/model_joints.hpp"

namespace robot_edge::sim {
namespace {

// What friction and the model's uncertainty may leave unexplained on a joint, N·m: its dry
// friction, a floor for the motors' torque noise, and a tenth of the load (masses and lengths are
// never exact).
double Tolerance(double frictionloss_nm, double load_nm) {
  return frictionloss_nm + 0.3 + 0.1 * std::fabs(load_nm);
}

// A joint within this of its end stop may rest on it.
constexpr double kAtStopRad = 0.03;

}  // namespace

struct HoldingModel::Impl {
  mjModel* model = nullptr;
  mjData* data = nullptr;
  std::vector<ModelJoint> joints;
  std::vector<int> spanned;      // model dofs the motors move
  Eigen::MatrixXd shaft_of_dof;  // joints x spanned: shaft position = A * dof positions
  Eigen::MatrixXd dof_of_shaft;  // its pseudo-inverse
  int base_qpos = -1;
  int imu_site = -1;

  ~Impl() {
    if (data != nullptr) mj_deleteData(data);
    if (model != nullptr) mj_deleteModel(model);
  }

  std::string JointNameOfDof(int dof) const {
    const char* name = mj_id2name(model, mjOBJ_JOINT, model->dof_jntid[dof]);
    return name != nullptr ? name : "dof " + std::to_string(dof);
  }

  // Linear transmissions: each motor's shaft is a fixed combination of model dofs.
  void MapShafts() {
    mj_forward(model, data);
    const int nv = model->nv;
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(joints.size()), nv);
    for (std::size_t i = 0; i < joints.size(); ++i) {
      const auto row = static_cast<Eigen::Index>(i);
      if (joints[i].actuator >= 0) {
        for (int v = 0; v < nv; ++v) a(row, v) = data->actuator_moment[joints[i].actuator * nv + v];
      } else {
        a(row, joints[i].dof) = 1.0;
      }
    }
    for (int v = 0; v < nv; ++v) {
      if (a.col(v).cwiseAbs().maxCoeff() < 1e-9) continue;
      const int type = model->jnt_type[model->dof_jntid[v]];
      if (type != mjJNT_HINGE && type != mjJNT_SLIDE) {
        throw std::runtime_error("a motor moves the model's floating base or a ball joint (" +
                                 JointNameOfDof(v) + "): not a linear transmission");
      }
      spanned.push_back(v);
    }
    shaft_of_dof.resize(a.rows(), static_cast<Eigen::Index>(spanned.size()));
    for (std::size_t k = 0; k < spanned.size(); ++k) {
      shaft_of_dof.col(static_cast<Eigen::Index>(k)) = a.col(spanned[k]);
    }
    dof_of_shaft = shaft_of_dof.completeOrthogonalDecomposition().pseudoInverse();
  }

  // Poses the model: the spanned dofs from the shafts, the base turned so the IMU reads `imu`.
  void Pose(std::span<const double> q, const std::array<double, 4>& imu) {
    mju_copy(data->qpos, model->qpos0, model->nq);
    mju_zero(data->qvel, model->nv);
    const Eigen::VectorXd shafts =
        Eigen::Map<const Eigen::VectorXd>(q.data(), static_cast<Eigen::Index>(q.size()));
    const Eigen::VectorXd dofs = dof_of_shaft * shafts;
    for (std::size_t k = 0; k < spanned.size(); ++k) {
      data->qpos[model->jnt_qposadr[model->dof_jntid[spanned[k]]]] =
          dofs(static_cast<Eigen::Index>(k));
    }
    if (base_qpos < 0) return;
    mjtNum measured[4] = {imu[0], imu[1], imu[2], imu[3]};
    if (mju_normalize4(measured) < 1e-6) measured[0] = 1;  // no IMU reading: upright
    mjtNum* base = data->qpos + base_qpos + 3;
    if (imu_site < 0) {
      mju_copy4(base, measured);
      return;
    }
    // The site's attitude with the base unrotated, then the base that gives the measured one.
    base[0] = 1, base[1] = base[2] = base[3] = 0;
    mj_kinematics(model, data);
    mjtNum relative[4], inverse[4];
    mju_mat2Quat(relative, data->site_xmat + 9 * imu_site);
    mju_negQuat(inverse, relative);
    mju_mulQuat(base, measured, inverse);
  }
};

HoldingModel::HoldingModel(const std::string& model_path, std::span<const std::string> names)
    : impl_(std::make_unique<Impl>()) {
  impl_->model = LoadMjcf(model_path).model;  // MuJoCo 3's MJCF too (sim/mjcf_compat.hpp)
  impl_->data = mj_makeData(impl_->model);
  impl_->joints = MapModelJoints(impl_->model, names);
  for (int j = 0; j < impl_->model->njnt; ++j) {
    if (impl_->model->jnt_type[j] == mjJNT_FREE) {
      impl_->base_qpos = impl_->model->jnt_qposadr[j];
      break;
    }
  }
  impl_->imu_site = mj_name2id(impl_->model, mjOBJ_SITE, "imu");
  impl_->MapShafts();
}

HoldingModel::~HoldingModel() = default;

Holding HoldingModel::Check(std::span<const double> q, std::span<const double> tau,
                            const std::array<double, 4>& imu_wxyz) const {
  Impl& m = *impl_;
  if (q.size() != m.joints.size() || tau.size() != m.joints.size()) {
    throw std::invalid_argument("HoldingModel::Check: one position and torque per joint");
  }
  m.Pose(q, imu_wxyz);
  mj_forward(m.model, m.data);  // qfrc_bias at rest: what gravity asks of each dof
  const Eigen::VectorXd motors =
      m.shaft_of_dof.transpose() *
      Eigen::Map<const Eigen::VectorXd>(tau.data(), static_cast<Eigen::Index>(tau.size()));
  Holding out;
  for (std::size_t k = 0; k < m.spanned.size(); ++k) {
    const int dof = m.spanned[k];
    const int joint = m.model->dof_jntid[dof];
    const double position = m.data->qpos[m.model->jnt_qposadr[joint]];
    const double asked = m.data->qfrc_bias[dof];
    const double left = asked - motors(static_cast<Eigen::Index>(k));  // for stops and friction
    bool at_low = false, at_high = false;
    if (m.model->jnt_limited[joint]) {
      const double lo = m.model->jnt_range[2 * joint], hi = m.model->jnt_range[2 * joint + 1];
      const double beyond = std::max(lo - position, position - hi);
      if (beyond > out.beyond_range_rad) {
        out.beyond_range_rad = beyond;
        out.beyond_joint = m.JointNameOfDof(dof);
      }
      at_low = position <= lo + kAtStopRad;
      at_high = position >= hi - kAtStopRad;
    }
    // A stop at the low end pushes the joint up (carries left >= 0); at the high end, down.
    double shortfall = std::fabs(left);
    if (at_low && left > 0) shortfall = 0;
    if (at_high && left < 0) shortfall = 0;
    shortfall = std::max(0.0, shortfall - Tolerance(m.model->dof_frictionloss[dof], asked));
    out.unexplained_nm2 += shortfall * shortfall;
    if (shortfall > out.worst_nm) {
      out.worst_nm = shortfall;
      out.worst_joint = m.JointNameOfDof(dof);
    }
  }
  return out;
}

std::vector<double> HoldingModel::Range(std::size_t i) const {
  const Impl& m = *impl_;
  const ModelJoint& joint = m.joints.at(i);
  int model_joint = -1;
  double gear = 1.0;
  if (joint.actuator < 0) {
    model_joint = m.model->dof_jntid[joint.dof];
  } else if (m.model->actuator_trntype[joint.actuator] == mjTRN_JOINT) {
    model_joint = m.model->actuator_trnid[2 * joint.actuator];
    gear = m.model->actuator_gear[6 * joint.actuator];  // 6 gear values per actuator
  }
  if (model_joint < 0 || !m.model->jnt_limited[model_joint]) return {};
  const double a = gear * m.model->jnt_range[2 * model_joint];
  const double b = gear * m.model->jnt_range[2 * model_joint + 1];
  return {std::min(a, b), std::max(a, b)};
}

}  // namespace robot_edge::sim
