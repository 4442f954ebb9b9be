// check-direction's judgement (tools/edgectl/direction_check.hpp) on what the MuJoCo humanoid's
// motors measure while it hangs from its gantry: every motor limp (DAMP: damping only) but one,
// held by a PD law; settled; a motor mounted the other way than the config says measures (and is
// commanded) in a mirrored frame. The model (sim/holding_model.hpp) must explain the torques of a
// correct robot, and tell a reversed motor from a correct one where gravity or an end stop can.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "config/config.hpp"
#include "sim/holding_model.hpp"
#include "sim/mujoco_plant.hpp"
#include "tools/edgectl/direction_check.hpp"

namespace robot_edge::edgectl {
namespace {

const config::Config& Config() {
  static const config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  return c;
}

std::vector<std::string> Names() {
  std::vector<std::string> names;
  for (const auto& j : Config().joints) names.push_back(j.name);
  return names;
}

std::size_t Joint(const std::string& name) {
  const auto names = Names();
  return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

const sim::HoldingModel& Model() {
  static const sim::HoldingModel model(sim::DefaultModelPath(), Names());
  return model;
}

// The humanoid hanging at 1 m; `joint` held at `target_rad` (in the motor's believed frame) with
// a fifth of its gains, as `robot-edgectl jog` does, every other joint limp; `reversed`: that
// motor is mounted the other way. Once every joint has been still (< 0.02 rad/s) for 0.3 s (at
// most 15 s), what the motors and the IMU report, averaged over those 0.3 s.
RestSample Settle(std::size_t joint, std::optional<double> target_rad, bool reversed) {
  sim::MujocoPlant plant(Config(), sim::DefaultModelPath(), 1.0);
  const double sign = reversed ? -1.0 : 1.0;
  std::vector<sim::TorqueLaw> laws(Config().joints.size());
  for (std::size_t j = 0; j < laws.size(); ++j) {
    const auto& c = Config().joints[j];
    laws[j] = {true, 0.0, c.damp_kd, 0.0, 0.0, 0.0, 18.0, 0.0};
    if (j == joint && target_rad) {
      laws[j].kp = c.kp / 5;
      laws[j].kd = c.kd / 5;
      laws[j].position_rad = sign * *target_rad;
    }
  }
  constexpr int kStill = 300, kMaxSteps = 15000;  // 1 kHz
  RestSample s;
  int still = 0;
  for (int step = 0; step < kMaxSteps && still < kStill; ++step) {
    plant.Step(laws);
    double fastest = 0;
    for (std::size_t j = 0; j < laws.size(); ++j) {
      fastest = std::max(fastest, std::fabs(plant.shaft(j).velocity_rad_s));
    }
    if (fastest >= 0.02 || still == 0) {
      still = fastest < 0.02 ? 1 : 0;
      s.q.assign(laws.size(), 0.0);
      s.tau.assign(laws.size(), 0.0);
      if (still == 0) continue;
    } else {
      ++still;
    }
    for (std::size_t j = 0; j < laws.size(); ++j) {
      const double frame = j == joint ? sign : 1.0;
      s.q[j] += frame * plant.shaft(j).position_rad / kStill;
      s.tau[j] += frame * plant.shaft(j).torque_nm / kStill;
    }
  }
  EXPECT_EQ(still, kStill) << "the robot did not come to rest";
  s.imu_wxyz = plant.imu().quaternion;
  return s;
}

DirectionFinding Check(const std::string& name, double a, double b, bool reversed) {
  const std::size_t j = Joint(name);
  const RestSample samples[] = {Settle(j, std::nullopt, reversed), Settle(j, a, reversed),
                                Settle(j, b, reversed)};
  return JudgeDirection(Model(), samples, j, /*pivot_rad=*/0.0);
}

TEST(HoldingModel, ExplainsWhatTheMotorsOfACorrectRobotMeasure) {
  for (const char* name : {"L_Elbow", "R_Hip_Pitch", "L_Shoulder_Roll"}) {
    const std::size_t j = Joint(name);
    const RestSample s = Settle(j, 0.5, false);
    const sim::Holding h = Model().Check(s.q, s.tau, s.imu_wxyz);
    EXPECT_LT(h.unexplained_nm2, 0.5) << name << ": worst " << h.worst_joint << " " << h.worst_nm;
    EXPECT_LT(h.beyond_range_rad, 0.01) << name << ": " << h.beyond_joint;  // stops give a little
  }
}

TEST(HoldingModel, ATorqueThatDoesNotHoldThePoseIsUnexplained) {
  const std::size_t hip = Joint("L_Hip_Pitch");
  RestSample s = Settle(hip, -0.6, false);  // the leg raised forward: the hip holds its weight
  ASSERT_GT(std::fabs(s.tau[hip]), 2.0);
  s.tau[hip] = -s.tau[hip];
  const sim::Holding h = Model().Check(s.q, s.tau, s.imu_wxyz);
  EXPECT_GT(h.unexplained_nm2, 4.0);
  EXPECT_EQ(h.worst_joint, "L_Hip_Pitch");
}

TEST(DirectionCheck, ACorrectElbowAgrees) {
  const DirectionFinding f = Check("L_Elbow", 0.8, -0.2, false);
  EXPECT_EQ(f.verdict, Verdict::kAgrees) << f.why;
}

TEST(DirectionCheck, AReversedElbowIsCaught) {
  const DirectionFinding f = Check("L_Elbow", 0.8, -0.2, true);
  EXPECT_EQ(f.verdict, Verdict::kReversed) << f.why;
}

TEST(DirectionCheck, ACorrectHipPitchAgreesAndAReversedOneIsCaught) {
  EXPECT_EQ(Check("L_Hip_Pitch", -0.6, 0.4, false).verdict, Verdict::kAgrees)
      << Check("L_Hip_Pitch", -0.6, 0.4, false).why;
  const DirectionFinding f = Check("L_Hip_Pitch", -0.6, 0.4, true);
  EXPECT_EQ(f.verdict, Verdict::kReversed) << f.why;
}

TEST(DirectionCheck, AKneeEitherWay) {
  EXPECT_EQ(Check("R_Knee", 0.5, 0.0, false).verdict, Verdict::kAgrees);
  EXPECT_EQ(Check("R_Knee", 0.5, 0.0, true).verdict, Verdict::kReversed);
}

// Hanging limp, an arm swings to wherever the shoulder puts it: mirrored, the same torques hold
// it. The check says so rather than guess (the operator then watches the joint move).
TEST(DirectionCheck, WhereGravityLoadsBothWaysAlikeItSaysSoInsteadOfGuessing) {
  for (bool reversed : {false, true}) {
    const DirectionFinding f = Check("L_Shoulder_Pitch", 0.5, -0.5, reversed);
    EXPECT_EQ(f.verdict, Verdict::kInconclusive) << reversed << ": " << f.why;
    EXPECT_NE(f.why.find("alike either way"), std::string::npos) << f.why;
  }
}

}  // namespace
}  // namespace robot_edge::edgectl
