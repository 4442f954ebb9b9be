#include "sim/model_joints.hpp"

#include <mujoco/mujoco.h>

#include <stdexcept>

namespace robot_edge::sim {
namespace {

bool IsTorqueMotor(const mjModel* m, int actuator) {
  return m->actuator_dyntype[actuator] == mjDYN_NONE &&
         m->actuator_gaintype[actuator] == mjGAIN_FIXED &&
         m->actuator_biastype[actuator] == mjBIAS_NONE &&
         m->actuator_gainprm[actuator * mjNGAIN] == 1.0;
}

}  // namespace

std::vector<std::string> ModelJointNames(const config::Config& config) {
  std::vector<std::string> names;
  for (const config::JointConfig& joint : config.joints) {
    std::string name = joint.name;
    for (const config::SimJointName& n : config.sim.joint_names) {
      if (n.joint == joint.name) name = n.model_name;
    }
    names.push_back(name);
  }
  return names;
}

std::vector<ModelJoint> MapModelJoints(const mjModel* model, std::span<const std::string> names) {
  std::vector<ModelJoint> joints;
  std::string missing;
  for (const std::string& name : names) {
    ModelJoint joint;
    const int actuator = mj_name2id(model, mjOBJ_ACTUATOR, name.c_str());
    const int model_joint = mj_name2id(model, mjOBJ_JOINT, name.c_str());
    if (actuator >= 0) {
      if (!IsTorqueMotor(model, actuator)) {
        throw std::runtime_error("actuator " + name +
                                 " is not a torque motor (<motor>, gain 1): robot-edge applies "
                                 "the MIT law itself");
      }
      joint.actuator = actuator;
    } else if (model_joint >= 0 && (model->jnt_type[model_joint] == mjJNT_HINGE ||
                                    model->jnt_type[model_joint] == mjJNT_SLIDE)) {
      joint.qpos = model->jnt_qposadr[model_joint];
      joint.dof = model->jnt_dofadr[model_joint];
    } else {
      missing += (missing.empty() ? "" : ", ") + name;
      continue;
    }
    joints.push_back(joint);
  }
  if (!missing.empty()) {
    throw std::runtime_error(
        "the model has no actuator or hinge joint named like these config joints: " + missing);
  }
  return joints;
}

}  // namespace robot_edge::sim
