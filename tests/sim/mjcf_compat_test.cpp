// Models as users have them (sim/mjcf_compat.hpp): Unitree's H1 (examples/unitree-h1, its meshes
// included, unchanged from unitree_rl_gym) is written for MuJoCo 3 and loads on Debian's 2.2.2;
// its actuatorfrcrange clamps each motor's torque, its ranges limit its joints (autolimits), its
// IMU is the floating base's, its joints are reached under the config's own names
// (sim.joint_names); what the translation does not handle is refused by name and line.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "sim/mjcf_compat.hpp"
#include "sim/mujoco_plant.hpp"

namespace robot_edge::sim {
namespace {

const std::string kH1Dir = std::string(ROBOT_EDGE_SOURCE_DIR) + "/examples/unitree-h1";
const std::string kH1Scene = kH1Dir + "/scene.xml";  // includes h1.xml, adds the floor

// H1's ten leg motors under names of the config's choosing, mapped onto Unitree's names.
const std::map<std::string, std::string> kH1Names = {
    {"L_HipYaw", "left_hip_yaw_joint"},     {"L_HipRoll", "left_hip_roll_joint"},
    {"L_HipPitch", "left_hip_pitch_joint"}, {"L_Knee", "left_knee_joint"},
    {"L_Ankle", "left_ankle_joint"},        {"R_HipYaw", "right_hip_yaw_joint"},
    {"R_HipRoll", "right_hip_roll_joint"},  {"R_HipPitch", "right_hip_pitch_joint"},
    {"R_Knee", "right_knee_joint"},         {"R_Ankle", "right_ankle_joint"},
};
// Unitree's actuatorfrcrange per joint (h1.xml), N·m.
const std::map<std::string, double> kH1ForceRange = {
    {"left_hip_yaw_joint", 200},   {"left_hip_roll_joint", 200},   {"left_hip_pitch_joint", 200},
    {"left_knee_joint", 300},      {"left_ankle_joint", 40},       {"right_hip_yaw_joint", 200},
    {"right_hip_roll_joint", 200}, {"right_hip_pitch_joint", 200}, {"right_knee_joint", 300},
    {"right_ankle_joint", 40},
};

config::Config H1Config(bool map_names = true) {
  std::string yaml = R"(
motors:
  big: {p_max: 12.5, v_max: 50.0, t_max: 400.0, kp_max: 500.0, kd_max: 5.0, reply: ak, can_timeout_ms: 100}
buses:
  - {name: left, interface: vcan0, master_id: 0}
  - {name: right, interface: vcan1, master_id: 0}
joints:
)";
  int id = 1;
  for (const char* side : {"L", "R"}) {
    for (const char* joint : {"HipYaw", "HipRoll", "HipPitch", "Knee", "Ankle"}) {
      yaml += "  - {name: " + std::string(side) + "_" + joint +
              ", bus: " + (side[0] == 'L' ? "left" : "right") +
              ", can_id: " + std::to_string(id++) +
              ", motor: big, min: -0.4, max: 0.4, kp: 50, kd: 1, stand: 0}\n";
    }
  }
  yaml += "imu: {bus: left, quat_id: 0x101, gyro_id: 0x102}\nsim:\n  physics: mujoco\n";
  if (map_names) {
    yaml += "  joint_names:\n";
    for (const auto& [config_name, model_name] : kH1Names) {
      yaml += "    " + config_name + ": " + model_name + "\n";
    }
  }
  config::Config c = config::ParseConfig(yaml, "h1.yaml");
  const auto problems = config::Validate(c);
  EXPECT_TRUE(problems.empty()) << problems.front();
  return c;
}

std::size_t Index(const config::Config& c, const std::string& name) {
  for (std::size_t i = 0; i < c.joints.size(); ++i) {
    if (c.joints[i].name == name) return i;
  }
  ADD_FAILURE() << "no joint " << name;
  return 0;
}

// A file in a fresh temporary directory.
std::string WriteTemp(const std::string& name, const std::string& text) {
  static int n = 0;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("robot-edge-mjcf-test-" + std::to_string(getpid()) + "-" + std::to_string(n++));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

std::string LoadError(const std::string& path) {
  try {
    mj_deleteModel(LoadMjcf(path).model);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(MjcfCompat, UnitreeH1LoadsAsShipped) {
  // MuJoCo 2.2.2 alone refuses it: "unrecognized attribute: 'actuatorfrcrange'".
  char error[1000] = "";
  mjModel* raw = mj_loadXML((kH1Dir + "/h1.xml").c_str(), nullptr, error, sizeof(error));
  EXPECT_EQ(raw, nullptr);
  if (raw != nullptr) mj_deleteModel(raw);
  EXPECT_NE(std::string(error).find("actuatorfrcrange"), std::string::npos) << error;

  MujocoPlant plant(H1Config(), kH1Scene, std::nullopt);
  EXPECT_EQ(plant.motor_count(), 10u);
  EXPECT_NEAR(plant.total_mass_kg(), 51.4, 1.0);  // Unitree's H1 without arms' links: ~51 kg
  EXPECT_GT(plant.model()->nmesh, 0);             // with Unitree's meshes
  const std::vector<std::string>& t = plant.translated();
  EXPECT_NE(std::find(t.begin(), t.end(), "actuatorfrcrange as a torque clamp (10 joints)"),
            t.end());
}

TEST(MjcfCompat, UnitreeG1With29JointActuatorForceSensorsLoadsAsShipped) {
  // unitree_mujoco's g1_29dof.xml (examples/unitree-g1-29dof, unchanged) names a MuJoCo 3 sensor
  // per joint, <jointactuatorfrc>, that 2.2.2 refuses: dropped, the IMU sensors after them kept.
  const std::string dir = std::string(ROBOT_EDGE_SOURCE_DIR) + "/examples/unitree-g1-29dof";
  const std::string error = LoadError(dir + "/g1_29dof.xml");
  EXPECT_EQ(error, "");
  LoadedMjcf g1 = LoadMjcf(dir + "/scene_29dof.xml");
  EXPECT_EQ(g1.model->nu, 29);
  EXPECT_EQ(g1.force_ranges.size(), 29u);
  const int quat = mj_name2id(g1.model, mjOBJ_SENSOR, "imu_quat");
  ASSERT_GE(quat, 0);
  EXPECT_EQ(g1.model->sensor_type[quat], mjSENS_FRAMEQUAT);
  for (int s = 0; s < g1.model->nsensor; ++s) {
    const char* name = mj_id2name(g1.model, mjOBJ_SENSOR, s);
    EXPECT_EQ(std::string(name ? name : "").find("_torque"), std::string::npos) << name;
  }
  const std::vector<std::string>& t = g1.translated;
  EXPECT_NE(std::find(t.begin(), t.end(), "<jointactuatorfrc> sensors dropped (29)"), t.end());
  mj_deleteModel(g1.model);
}

TEST(MjcfCompat, GroundTruthCarriesTheSimulatedTime) {
  // sim2sim walks --seconds of simulated time: the simulator's clock, not the wall clock, which
  // it falls behind on a loaded machine.
  MujocoPlant plant(H1Config(), kH1Scene, std::nullopt);
  std::vector<TorqueLaw> limp(plant.motor_count());
  for (int step = 0; step < 250; ++step) plant.Step(limp);
  EXPECT_NEAR(plant.truth().value().time_s, 250 * plant.model()->opt.timestep, 1e-9);
}

TEST(MjcfCompat, FeetAreTheLowestLeafBodiesWhenNoneIsNamedFoot) {
  // Unitree's legs end in left_ankle_link / right_ankle_link; no body is named "foot". Dropped
  // limp from the model's pose (pelvis at 1.05 m), the first contacts with the floor are the
  // ankle links', and they count as foot contacts (sim2sim lowers a robot until they do).
  MujocoPlant plant(H1Config(), kH1Scene, std::nullopt);
  std::vector<TorqueLaw> limp(plant.motor_count());
  GroundTruth truth;
  for (int step = 0; step < 200 && truth.contacts == 0; ++step) {
    plant.Step(limp);
    truth = plant.truth().value();
  }
  ASSERT_GT(truth.contacts, 0);
  EXPECT_EQ(truth.foot_contacts, truth.contacts);
}

TEST(MjcfCompat, AutolimitsLimitsAJointThatHasARange) {
  MujocoPlant plant(H1Config(), kH1Scene, std::nullopt);
  const mjModel* m = plant.model();
  const int knee = mj_name2id(m, mjOBJ_JOINT, "left_knee_joint");
  ASSERT_GE(knee, 0);
  EXPECT_EQ(m->jnt_limited[knee], 1);
  EXPECT_DOUBLE_EQ(m->jnt_range[2 * knee], -0.26);
  EXPECT_DOUBLE_EQ(m->jnt_range[2 * knee + 1], 2.05);
  const int base = mj_name2id(m, mjOBJ_JOINT, "floating_base_joint");
  EXPECT_EQ(m->jnt_limited[base], 0);  // limited="false" as written

  // A model's own autolimits="false" stands: then a range needs `limited` (2.2.2's message).
  const std::string own = WriteTemp("own.xml", R"(<mujoco>
  <compiler autolimits="false"/>
  <worldbody><body><joint name="j" range="-1 1"/><geom size="0.1"/></body></worldbody>
</mujoco>)");
  EXPECT_NE(LoadError(own).find("autolimits"), std::string::npos) << LoadError(own);
}

TEST(MjcfCompat, ActuatorForceRangeClampsEachMotorsTorque) {
  const config::Config c = H1Config();
  MujocoPlant plant(c, kH1Scene, 1.1);  // hanging: the legs swing freely
  // Every motor asked for 1000 N·m: far beyond every joint's actuatorfrcrange.
  std::vector<TorqueLaw> laws(plant.motor_count());
  for (TorqueLaw& law : laws) law = {true, 0, 0, 0, 0, 1000, 1000, 0};
  laws[Index(c, "L_Ankle")].torque_nm = -1000;
  const mjModel* m = plant.model();
  for (int step = 0; step < 300; ++step) {
    plant.Step(laws);
    for (const auto& [config_name, model_name] : kH1Names) {
      const std::size_t i = Index(c, config_name);
      const double limit = kH1ForceRange.at(model_name);
      const int actuator = mj_name2id(m, mjOBJ_ACTUATOR, model_name.c_str());
      const int dof = m->jnt_dofadr[mj_name2id(m, mjOBJ_JOINT, model_name.c_str())];
      ASSERT_LE(std::abs(plant.shaft(i).torque_nm), limit + 1e-9) << config_name;
      ASSERT_LE(std::abs(plant.data()->actuator_force[actuator]), limit + 1e-9) << config_name;
      ASSERT_LE(std::abs(plant.data()->qfrc_actuator[dof]), limit + 1e-9) << config_name;
      // Held at the limit, not below it.
      ASSERT_NEAR(std::abs(plant.shaft(i).torque_nm), limit, 1e-9) << config_name;
    }
  }
  EXPECT_DOUBLE_EQ(plant.shaft(Index(c, "L_Ankle")).torque_nm, -40);
}

TEST(MjcfCompat, ImuIsTheFloatingBasesWithoutImuSensors) {
  // H1 at rest in a keyframe rolled 20° about x and turning at 0.3 rad/s about its own z.
  const double half = 20.0 * M_PI / 180 / 2;
  const double w = std::cos(half), x = std::sin(half);
  std::string qpos = "0 0 1.2 " + std::to_string(w) + " " + std::to_string(x) + " 0 0";
  for (int j = 0; j < 10; ++j) qpos += " 0";
  std::string qvel = "0 0 0 0 0 0.3";
  for (int j = 0; j < 10; ++j) qvel += " 0";
  // Unitree's h1.xml unchanged beside it (MuJoCo reads includes and meshdir relative to the
  // main file), a floor, and the keyframe.
  const std::string scene =
      WriteTemp("tilted.xml",
                "<mujoco><include file=\"h1.xml\"/><worldbody><geom type=\"plane\" "
                "size=\"0 0 0.05\"/></worldbody><keyframe><key name=\"stand\" qpos=\"" +
                    qpos + "\" qvel=\"" + qvel + "\"/></keyframe></mujoco>");
  const auto dir = std::filesystem::path(scene).parent_path();
  std::filesystem::copy_file(kH1Dir + "/h1.xml", dir / "h1.xml");
  std::filesystem::create_directory_symlink(kH1Dir + "/meshes", dir / "meshes");
  const config::Config c = H1Config();
  MujocoPlant plant(c, scene, std::nullopt);
  ASSERT_EQ(plant.model()->nsensor, 0);  // Unitree's H1 names no IMU sensor
  ImuSample imu = plant.imu();
  EXPECT_NEAR(imu.quaternion[0], w, 1e-6);
  EXPECT_NEAR(imu.quaternion[1], x, 1e-6);
  EXPECT_NEAR(imu.quaternion[2], 0, 1e-9);
  EXPECT_NEAR(imu.gyro_rad_s[2], 0.3, 1e-9);  // body frame
  EXPECT_NEAR(imu.gyro_rad_s[0], 0, 1e-9);

  // Limp, it falls and comes to rest on the floor: the accelerometer then reads the floor's
  // push (+g along the world's up) in the base's frame.
  std::vector<TorqueLaw> limp(plant.motor_count());
  for (int step = 0; step < 4000; ++step) plant.Step(limp);
  imu = plant.imu();
  const GroundTruth truth = plant.truth().value();
  double r[9];
  mju_quat2Mat(r, truth.base_quaternion.data());
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(imu.accel_m_s2[static_cast<std::size_t>(k)], r[6 + k] * 9.81, 0.3) << k;
    EXPECT_NEAR(imu.quaternion[static_cast<std::size_t>(k)],
                truth.base_quaternion[static_cast<std::size_t>(k)], 1e-12);
  }
}

TEST(MjcfCompat, AConfigJointReachesTheModelJointItIsMappedTo) {
  const config::Config c = H1Config();
  MujocoPlant plant(c, kH1Scene, 1.1);
  std::vector<TorqueLaw> laws(plant.motor_count());
  laws[Index(c, "R_Knee")] = {true, 200, 10, 1.0, 0, 0, 300, 0};  // bend the right knee only
  for (int step = 0; step < 1500; ++step) plant.Step(laws);
  const mjModel* m = plant.model();
  const double right_knee =
      plant.data()->qpos[m->jnt_qposadr[mj_name2id(m, mjOBJ_JOINT, "right_knee_joint")]];
  EXPECT_NEAR(plant.shaft(Index(c, "R_Knee")).position_rad, right_knee, 1e-3);  // a step old
  EXPECT_GT(right_knee, 0.8);
  EXPECT_EQ(plant.shaft(Index(c, "L_Knee")).torque_nm, 0);  // the left knee is not driven

  // Without the mapping the config's names are not the model's: refused, each one named.
  try {
    MujocoPlant unmapped(H1Config(false), kH1Scene, std::nullopt);
    ADD_FAILURE() << "an H1 without sim.joint_names loaded";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("L_HipYaw"), std::string::npos) << e.what();
  }
}

TEST(MjcfCompat, WhatIsNotTranslatedIsRefusedByNameAndLine) {
  const std::string body = WriteTemp("gravcomp.xml", R"(<mujoco>
  <worldbody>
    <body gravcomp="1"><joint name="j"/><geom size="0.1"/></body>
  </worldbody>
</mujoco>)");
  EXPECT_NE(LoadError(body).find("gravcomp.xml:3: <body gravcomp>"), std::string::npos)
      << LoadError(body);

  const std::string frame = WriteTemp("frame.xml", R"(<mujoco>
  <worldbody>

    <frame pos="0 0 1"><body><geom size="0.1"/></body></frame>
  </worldbody>
</mujoco>)");
  EXPECT_NE(LoadError(frame).find("frame.xml:4: <frame>"), std::string::npos) << LoadError(frame);

  // What the table does not know, 2.2.2 refuses; the message says where it is in the user's file.
  const std::string flag = WriteTemp("flag.xml", R"(<mujoco>
  <option>
    <flag island="enable"/>
  </option>
</mujoco>)");
  EXPECT_NE(LoadError(flag).find("flag.xml:3: <flag island>"), std::string::npos)
      << LoadError(flag);

  const std::string in_default = WriteTemp("default.xml", R"(<mujoco>
  <default><joint actuatorfrcrange="-1 1"/></default>
</mujoco>)");
  EXPECT_NE(LoadError(in_default).find("default.xml:2: <joint actuatorfrcrange>: in a <default>"),
            std::string::npos)
      << LoadError(in_default);

  const std::string reversed = WriteTemp("reversed.xml", R"(<mujoco>
  <worldbody><body><joint name="j" actuatorfrcrange="5 -5"/><geom size="0.1"/></body></worldbody>
</mujoco>)");
  EXPECT_NE(LoadError(reversed).find("reversed.xml:2: <joint actuatorfrcrange>: joint 'j'"),
            std::string::npos)
      << LoadError(reversed);

  // Two motors on one joint with a force range: MuJoCo 3 clamps their sum, the plant one
  // motor's torque; refused rather than clamped wrongly.
  const std::string two = WriteTemp("two.xml", R"(<mujoco>
  <worldbody><body><joint name="j" actuatorfrcrange="-5 5"/><geom size="0.1"/></body></worldbody>
  <actuator><motor name="a" joint="j"/><motor name="b" joint="j"/></actuator>
</mujoco>)");
  config::Config c = H1Config(false);
  c.joints.resize(1);
  c.joints[0].name = "a";
  try {
    MujocoPlant plant(c, two, std::nullopt);
    ADD_FAILURE() << "two motors on a clamped joint loaded";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("joint j: actuatorfrcrange on a joint that 2 actuators"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace robot_edge::sim
