// JOINT=RAD arguments: every mistake is refused with a message naming the argument.
#include "client/joint_targets.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "fake_daemon.hpp"

namespace robot_edge::client {
namespace {

std::vector<JointTarget> Parse(std::vector<std::string> args) {
  return ParseJointTargets(args, robot_edge::testing::JointNames());
}

std::string ErrorOf(std::vector<std::string> args) {
  try {
    Parse(std::move(args));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ParseJointTargets, NamesAndRadians) {
  const auto t = Parse({"L_Knee=0.6", "Neck_Yaw=-1.2e-1", "L_Hip_Pitch=+0.5"});
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].joint, 3u);
  EXPECT_FLOAT_EQ(t[0].position_rad, 0.6f);
  EXPECT_EQ(t[1].joint, 24u);
  EXPECT_FLOAT_EQ(t[1].position_rad, -0.12f);
  EXPECT_EQ(t[2].joint, 0u);
  EXPECT_FLOAT_EQ(t[2].position_rad, 0.5f);
}

TEST(ParseJointTargets, NamesIgnoreCase) {
  const auto t = Parse({"l_knee=1", "R_ELBOW=0"});
  EXPECT_EQ(t[0].joint, 3u);
  EXPECT_EQ(t[1].joint, 20u);
}

TEST(ParseJointTargets, UnknownJointListsTheJoints) {
  const std::string error = ErrorOf({"L_Kneee=0.6"});
  EXPECT_EQ(error.rfind("'L_Kneee=0.6': unknown joint 'L_Kneee'; the robot's joints are: "
                        "L_Hip_Pitch, L_Hip_Roll, ",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find("Neck_Yaw"), std::string::npos);
}

TEST(ParseJointTargets, BadNumbers) {
  for (const char* arg : {"L_Knee=abc", "L_Knee=", "L_Knee=0.6rad", "L_Knee=0,6", "L_Knee= 1"}) {
    const std::string error = ErrorOf({arg});
    EXPECT_NE(error.find("is not a number of radians"), std::string::npos) << arg << ": " << error;
    EXPECT_EQ(error.rfind(std::string("'") + arg + "'", 0), 0u) << error;
  }
  EXPECT_EQ(ErrorOf({"L_Knee=nan"}), "'L_Knee=nan': the position must be a finite number");
  EXPECT_EQ(ErrorOf({"L_Knee=inf"}), "'L_Knee=inf': the position must be a finite number");
}

TEST(ParseJointTargets, MissingEqualsOrName) {
  EXPECT_EQ(ErrorOf({"L_Knee"}), "'L_Knee': expected JOINT=RAD, e.g. L_Knee=0.6");
  EXPECT_EQ(ErrorOf({"=0.5"}), "'=0.5': expected JOINT=RAD, e.g. L_Knee=0.6");
}

TEST(ParseJointTargets, SameJointTwiceEvenInAnotherCase) {
  EXPECT_EQ(ErrorOf({"L_Knee=0.1", "R_Knee=0.1", "l_knee=0.2"}),
            "'l_knee=0.2': joint L_Knee is given twice");
}

TEST(ApplyTargets, OverridesOnlyTheTargets) {
  const std::vector<float> pose(25, 0.5f);
  const auto out = ApplyTargets(pose, Parse({"L_Knee=1.5", "Waist_Yaw=-0.2"}));
  ASSERT_EQ(out.size(), 25u);
  for (std::size_t j = 0; j < 25; ++j) {
    const float expected = j == 3 ? 1.5f : j == 22 ? -0.2f : 0.5f;
    EXPECT_FLOAT_EQ(out[j], expected) << j;
  }
}

}  // namespace
}  // namespace robot_edge::client
