// The physics backend (MujocoPlant with the built-in humanoid, sim/models/humanoid.xml) behind
// SimRobot, driven through MIT command frames as the daemon drives it: STAND holds the robot up
// at the config's default gains, DAMP lets it sink, a push knocks it over, an arm reaches its
// target under gravity, a model without a config joint is refused by name. In-process, time
// advanced by hand; the same through robot-edged on vcan is tests/e2e.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include "sim/bus_driver.hpp"
#include "sim/mujoco_plant.hpp"
#include "sim/sim_robot.hpp"
#include "sim_test_util.hpp"

namespace robot_edge::sim {
namespace {

constexpr std::int64_t kS = 1'000'000;

const config::Config& Config() {
  static const config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  return c;
}

std::size_t JointIndex(const std::string& name) {
  const auto& joints = Config().joints;
  for (std::size_t j = 0; j < joints.size(); ++j) {
    if (joints[j].name == name) return j;
  }
  ADD_FAILURE() << "no joint " << name;
  return 0;
}

// The built-in humanoid behind a BusDriver (robot-edged's commands), hanging at `gantry_m`.
BusDriver Humanoid(std::optional<double> gantry_m) {
  return BusDriver(Config(), std::make_unique<MujocoPlant>(Config(), DefaultModelPath(), gantry_m));
}
GroundTruth Truth(const BusDriver& d) { return d.robot().plant().truth().value(); }

// As on a bring-up stand: STAND while hanging at 1 m, lowered onto the feet, released, settled.
void StandOnTheFloor(BusDriver* d) {
  d->Stand();
  d->Run(2 * kS);  // hanging, the legs reach the stand pose
  ASSERT_EQ(d->Execute("gantry 0.62").rfind("ok", 0), 0u);
  d->Run(2 * kS);  // lowered onto its feet
  ASSERT_EQ(d->Execute("gantry off"), "ok gantry released");
  d->Run(1 * kS);  // settles on its own
}

TEST(Physics, TheModelIsAHumanoidOfAbout35Kg) {
  MujocoPlant plant(Config(), DefaultModelPath(), std::nullopt);
  EXPECT_EQ(plant.motor_count(), 25u);
  EXPECT_NEAR(plant.total_mass_kg(), 35, 2.5);
  EXPECT_EQ(plant.step_us(), 1000);  // 1 kHz physics
}

TEST(Physics, StandOnTheGantryThenReleasedHoldsHeightAndUprightFor10s) {
  BusDriver d = Humanoid(1.0);
  StandOnTheFloor(&d);
  const double nominal = Truth(d).torso_height_m;
  double worst_height = 0, worst_tilt = 0;
  d.Run(10 * kS, [&](std::int64_t) {
    const GroundTruth t = Truth(d);
    worst_height = std::max(worst_height, std::abs(t.torso_height_m - nominal));
    worst_tilt = std::max(worst_tilt, t.tilt_deg);
  });
  EXPECT_LT(worst_height, 0.03);
  EXPECT_LT(worst_tilt, 5.0);
  EXPECT_GE(Truth(d).foot_contacts, 2);
  EXPECT_GT(d.replies(), 0u);
}

TEST(Physics, DampWhileStandingSinksWithoutAViolentCollapse) {
  BusDriver d = Humanoid(1.0);
  StandOnTheFloor(&d);
  const double standing = Truth(d).torso_height_m;
  d.Damp();
  double fastest_fall = 0;
  d.Run(5 * kS, [&](std::int64_t) {
    fastest_fall = std::max(fastest_fall, -Truth(d).base_velocity_m_s[2]);
  });
  EXPECT_LT(Truth(d).torso_height_m, standing - 0.15);  // it went down
  EXPECT_LT(fastest_fall, 2.5);                         // m/s: sinking, not dropping
}

TEST(Physics, ALateralPushTopplesAStandingRobot) {
  BusDriver d = Humanoid(1.0);
  StandOnTheFloor(&d);
  EXPECT_EQ(d.Execute("push torso 0 400 0 0.2"), "ok");
  double tilt = 0;
  d.Run(3 * kS, [&](std::int64_t) { tilt = std::max(tilt, Truth(d).tilt_deg); });
  EXPECT_GT(tilt, 60.0);
}

TEST(Physics, TheGantryHooksOnWhereTheFallenRobotLiesAndLiftsItStraightUp) {
  BusDriver d = Humanoid(1.0);
  StandOnTheFloor(&d);
  EXPECT_EQ(d.Execute("push torso 0 400 0 0.2"), "ok");
  d.Damp();
  d.Run(3 * kS);  // fallen, limp
  const GroundTruth fallen = Truth(d);
  ASSERT_GT(fallen.tilt_deg, 60.0);
  ASSERT_EQ(d.Execute("gantry 1.0").rfind("ok", 0), 0u);
  double fastest = 0;
  d.Run(4 * kS, [&](std::int64_t) {
    const auto& v = Truth(d).base_velocity_m_s;
    fastest = std::max(fastest, std::hypot(v[0], v[1], v[2]));
  });
  const GroundTruth lifted = Truth(d);
  EXPECT_NEAR(lifted.base_position_m[2], 1.0, 0.05);
  EXPECT_LT(lifted.tilt_deg, 10.0);  // hanging upright again
  EXPECT_LT(std::hypot(lifted.base_position_m[0] - fallen.base_position_m[0],
                       lifted.base_position_m[1] - fallen.base_position_m[1]),
            0.05)
      << "lifted where it lay, not dragged back to where it started";
  EXPECT_LT(fastest, 2.0) << "m/s: a hoist, not a catapult";
}

TEST(Physics, QposGivesTheWholeModelsPositionsForAViewer) {
  BusDriver d = Humanoid(1.0);
  d.Run(100'000);
  const std::string line = d.Execute("qpos");
  ASSERT_EQ(line.rfind("ok ", 0), 0u) << line;
  std::istringstream in(line.substr(3));
  std::vector<double> q;
  for (double v; in >> v;) q.push_back(v);
  const auto& plant = dynamic_cast<const MujocoPlant&>(d.robot().plant());
  ASSERT_EQ(q.size(), plant.generalized_positions().size());
  EXPECT_GE(q.size(), 7u + 25u);  // the free base (x y z and a quaternion), then the joints
  EXPECT_NEAR(q[2], 1.0, 0.05);   // hanging at the gantry's 1 m
  EXPECT_NEAR(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6], 1.0, 1e-4);
}

TEST(Physics, TheLeftArmReachesItsTargetUnderGravity) {
  BusDriver d = Humanoid(1.0);
  d.Stand();
  d.Run(2 * kS);
  const std::size_t shoulder = JointIndex("L_Shoulder_Pitch");
  d.SetTarget(shoulder, -1.0f);
  d.Run(2 * kS);
  EXPECT_NEAR(d.robot().motor(shoulder).state().position_rad, -1.0, 0.05);
}

TEST(Physics, TheImuReportsTheTorsoUprightAndGravity) {
  BusDriver d = Humanoid(1.0);
  d.Stand();
  d.Run(1 * kS);
  const ImuSample imu = d.robot().plant().imu();
  EXPECT_NEAR(imu.quaternion[0], 1.0, 0.01);
  EXPECT_NEAR(imu.accel_m_s2[2], 9.81, 0.3);
  for (double w : imu.gyro_rad_s) EXPECT_LT(std::abs(w), 0.05);
}

TEST(Physics, AModelWithoutAConfigJointIsRefusedByName) {
  const std::string path = ::testing::TempDir() + "/two_joints.xml";
  std::ofstream(path) << R"(<mujoco><worldbody><body name="a"><joint name="L_Knee" type="hinge"/>
    <geom size="0.1" mass="1"/><body name="b"><joint name="Elsewhere" type="hinge"/>
    <geom size="0.1" mass="1"/></body></body></worldbody></mujoco>)";
  try {
    MujocoPlant plant(Config(), path, std::nullopt);
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no actuator or hinge joint named like these config joints: "
                        "L_Hip_Pitch, L_Hip_Roll"),
              std::string::npos)
        << what;
    EXPECT_EQ(what.find("L_Knee,"), std::string::npos) << what;  // that one it has
  }
}

TEST(Physics, AModelThatDoesNotLoadSaysWhy) {
  try {
    MujocoPlant plant(Config(), "/nonexistent/robot.xml", std::nullopt);
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot load the MuJoCo model /nonexistent/robot.xml"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace robot_edge::sim
