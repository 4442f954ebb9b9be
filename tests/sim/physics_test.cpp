// The physics backend (MujocoPlant with the built-in humanoid, sim/models/humanoid.xml) behind
// SimRobot, driven through MIT command frames as the daemon drives it: STAND holds the robot up
// at the config's default gains, DAMP lets it sink, a push knocks it over, an arm reaches its
// target under gravity, a model without a config joint is refused by name. In-process, time
// advanced by hand; the same through robot-edged on vcan is tests/e2e.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <vector>

#include "sim/mujoco_plant.hpp"
#include "sim/sim_robot.hpp"
#include "sim_test_util.hpp"

namespace robot_edge::sim {
namespace {

constexpr std::int64_t kMs = 1000;
constexpr std::int64_t kS = 1'000'000;
constexpr std::int64_t kPeriodUs = 2 * kMs;  // the daemon's 500 Hz

// Drives every motor of a SimRobot as robot-edged does: FC, then one MIT command per motor per
// 2 ms period with the targets and gains of the present "mode".
class Driver {
 public:
  explicit Driver(const config::Config& config, std::optional<double> gantry_m)
      : config_(config),
        robot_(config, std::make_unique<MujocoPlant>(config, DefaultModelPath(), gantry_m)),
        plant_(dynamic_cast<const MujocoPlant&>(robot_.plant())),
        targets_(config.joints.size()),
        kp_(config.joints.size()),
        kd_(config.joints.size()) {
    Broadcast([](std::size_t) { return test::Fc(); });
  }

  // Stand: the config's stand pose at its kp/kd. Damp: kp 0, damp_kd.
  void Stand() {
    for (std::size_t j = 0; j < config_.joints.size(); ++j) {
      targets_[j] = static_cast<float>(config_.joints[j].stand_rad);
      kp_[j] = static_cast<float>(config_.joints[j].kp);
      kd_[j] = static_cast<float>(config_.joints[j].kd);
    }
  }
  void Damp() {
    for (std::size_t j = 0; j < config_.joints.size(); ++j) {
      kp_[j] = 0;
      kd_[j] = static_cast<float>(config_.joints[j].damp_kd);
    }
  }
  void SetTarget(std::size_t joint, float rad) { targets_[joint] = rad; }

  // Runs for `duration_us`, calling `each(now)` after every period.
  template <typename Fn>
  void Run(std::int64_t duration_us, Fn each) {
    const std::int64_t end = now_us_ + duration_us;
    while (now_us_ < end) {
      now_us_ += kPeriodUs;
      Broadcast([this](std::size_t j) {
        const auto& ranges = robot_.motor(j).params().ranges;
        return can::EncodeCommand({targets_[j], 0, kp_[j], kd_[j], 0}, ranges);
      });
      each(now_us_);
    }
  }
  void Run(std::int64_t duration_us) {
    Run(duration_us, [](std::int64_t) {});
  }

  std::string Execute(std::string_view line) {
    const ParseResult r = ParseControlLine(line, config_);
    EXPECT_TRUE(r.command.has_value()) << r.error;
    return robot_.Execute(*r.command, now_us_);
  }
  GroundTruth Truth() const { return plant_.truth().value(); }
  const SimRobot& robot() const { return robot_; }
  std::uint64_t replies() const { return replies_; }

 private:
  template <typename PayloadOf>
  void Broadcast(PayloadOf payload_of) {
    for (std::size_t bus = 0; bus < config_.buses.size(); ++bus) {
      frames_.clear();
      for (std::size_t j = 0; j < config_.joints.size(); ++j) {
        if (config_.joints[j].bus != bus) continue;
        can_frame f{};
        f.can_id = config_.joints[j].can_id;
        f.len = 8;
        const can::Payload p = payload_of(j);
        std::copy(p.begin(), p.end(), f.data);
        frames_.push_back(f);
      }
      replies_buffer_.clear();
      robot_.OnFrames(bus, frames_, now_us_, &replies_buffer_);
      replies_ += replies_buffer_.size();
    }
  }

  const config::Config& config_;
  SimRobot robot_;
  const MujocoPlant& plant_;
  std::vector<float> targets_, kp_, kd_;
  std::vector<can_frame> frames_, replies_buffer_;
  std::int64_t now_us_ = 0;
  std::uint64_t replies_ = 0;
};

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

// As on a bring-up stand: STAND while hanging at 1 m, lowered onto the feet, released, settled.
void StandOnTheFloor(Driver* d) {
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
  Driver d(Config(), 1.0);
  StandOnTheFloor(&d);
  const double nominal = d.Truth().torso_height_m;
  double worst_height = 0, worst_tilt = 0;
  d.Run(10 * kS, [&](std::int64_t) {
    const GroundTruth t = d.Truth();
    worst_height = std::max(worst_height, std::abs(t.torso_height_m - nominal));
    worst_tilt = std::max(worst_tilt, t.tilt_deg);
  });
  EXPECT_LT(worst_height, 0.03);
  EXPECT_LT(worst_tilt, 5.0);
  EXPECT_GE(d.Truth().foot_contacts, 2);
  EXPECT_GT(d.replies(), 0u);
}

TEST(Physics, DampWhileStandingSinksWithoutAViolentCollapse) {
  Driver d(Config(), 1.0);
  StandOnTheFloor(&d);
  const double standing = d.Truth().torso_height_m;
  d.Damp();
  double fastest_fall = 0;
  d.Run(5 * kS, [&](std::int64_t) {
    fastest_fall = std::max(fastest_fall, -d.Truth().base_velocity_m_s[2]);
  });
  EXPECT_LT(d.Truth().torso_height_m, standing - 0.15);  // it went down
  EXPECT_LT(fastest_fall, 2.5);                           // m/s: sinking, not dropping
}

TEST(Physics, ALateralPushTopplesAStandingRobot) {
  Driver d(Config(), 1.0);
  StandOnTheFloor(&d);
  EXPECT_EQ(d.Execute("push torso 0 400 0 0.2"), "ok");
  double tilt = 0;
  d.Run(3 * kS, [&](std::int64_t) { tilt = std::max(tilt, d.Truth().tilt_deg); });
  EXPECT_GT(tilt, 60.0);
}

TEST(Physics, TheLeftArmReachesItsTargetUnderGravity) {
  Driver d(Config(), 1.0);
  d.Stand();
  d.Run(2 * kS);
  const std::size_t shoulder = JointIndex("L_Shoulder_Pitch");
  d.SetTarget(shoulder, -1.0f);
  d.Run(2 * kS);
  EXPECT_NEAR(d.robot().motor(shoulder).state().position_rad, -1.0, 0.05);
}

TEST(Physics, TheImuReportsTheTorsoUprightAndGravity) {
  Driver d(Config(), 1.0);
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
