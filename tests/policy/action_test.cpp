// The action mapping: target = offset (default pose) + scale × clip(action), clamped to the joint's
// limits, with the policy's gains; every other joint holds the stand pose.
#include "policy/action.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "test_config.hpp"

namespace robot_edge::policy {
namespace {

constexpr std::size_t kLKnee = 3, kRHipRoll = 7, kLElbow = 15;

TEST(ActionMap, DefaultPosePlusScaledClippedActionWithinTheLimits) {
  // L_Knee: limits 0..2.4; R_Hip_Roll: -0.8..0.5; L_Elbow: -0.2..2.4, stand 0.3.
  const config::Config c = test::WithPolicy(R"(
policy:
  model: m.onnx
  joints: [L_Knee, R_Hip_Roll, L_Elbow]
  default_pose: [0.6, 0.0, 1.0]
  action_scale: [0.5, 2.0, 1.0]
  action_clip: 1.0
  kp: [80, 90, 30]
  kd: 1.5
  observation: [{term: command}]
)");
  const ActionMap map(config::PolicySetupOf(c));
  ASSERT_EQ(map.size(), 3u);
  const std::vector<float> raw{0.4f, 3.0f, -5.0f};
  std::vector<float> action(3);
  std::vector<sm::JointTarget> targets(25);
  EXPECT_EQ(map.Apply(raw, action, targets).nonfinite, 0u);
  EXPECT_EQ(action, (std::vector<float>{0.4f, 1.0f, -1.0f}));  // clipped to ±1
  EXPECT_FLOAT_EQ(targets[kLKnee].position_rad, 0.6f + 0.5f * 0.4f);
  EXPECT_FLOAT_EQ(targets[kRHipRoll].position_rad, 0.5f);  // 0 + 2 × 1 = 2, clamped to max
  EXPECT_FLOAT_EQ(targets[kLElbow].position_rad, 0.0f);    // 1 + 1 × -1
  EXPECT_FLOAT_EQ(targets[kLKnee].kp, 80.0f);
  EXPECT_FLOAT_EQ(targets[kRHipRoll].kp, 90.0f);
  EXPECT_FLOAT_EQ(targets[kLElbow].kp, 30.0f);
  for (std::size_t j : {kLKnee, kRHipRoll, kLElbow}) {
    EXPECT_FLOAT_EQ(targets[j].kd, 1.5f);
    EXPECT_EQ(targets[j].velocity_rad_s, 0.0f);
    EXPECT_EQ(targets[j].torque_nm, 0.0f);
  }
  // Every other joint: its stand pose with its default gains.
  for (std::size_t j = 0; j < 25; ++j) {
    if (j == kLKnee || j == kRHipRoll || j == kLElbow) continue;
    EXPECT_FLOAT_EQ(targets[j].position_rad, static_cast<float>(c.joints[j].stand_rad)) << j;
    EXPECT_FLOAT_EQ(targets[j].kp, static_cast<float>(c.joints[j].kp)) << j;
    EXPECT_FLOAT_EQ(targets[j].kd, static_cast<float>(c.joints[j].kd)) << j;
  }
}

TEST(ActionMap, DefaultsAreTheStandPoseAndTheJointsGainsWithoutClipping) {
  const config::Config c = test::WithPolicy(R"(
policy:
  model: m.onnx
  joints: [L_Knee, L_Elbow]
  action_scale: 0.25
  observation: [{term: command}]
)");
  const ActionMap map(config::PolicySetupOf(c));
  std::vector<float> action(2);
  std::vector<sm::JointTarget> targets(25);
  map.Apply(std::vector<float>{4.0f, -2.0f}, action, targets);
  EXPECT_EQ(action, (std::vector<float>{4.0f, -2.0f}));  // no action_clip
  EXPECT_FLOAT_EQ(targets[kLKnee].position_rad, 0.6f + 1.0f);
  EXPECT_FLOAT_EQ(targets[kLElbow].position_rad, 0.3f - 0.5f);
  EXPECT_FLOAT_EQ(targets[kLKnee].kp, 150.0f);  // L_Knee's kp / kd
  EXPECT_FLOAT_EQ(targets[kLKnee].kd, 4.0f);
  EXPECT_FLOAT_EQ(DefaultPoseOf(config::PolicySetupOf(c), kLKnee), 0.6f);
}

// Isaac Lab's per-joint offset: an action of 0 puts the joint at action_offset, while the
// joint_pos observation stays relative to default_pose.
TEST(ActionMap, AnActionOffsetIsWhereAnActionOfZeroPutsTheJoint) {
  const config::Config c = test::WithPolicy(R"(
policy:
  model: m.onnx
  joints: [L_Knee, L_Elbow]
  default_pose: [0.6, 1.0]
  action_offset: [0.9, 0.1]
  action_scale: 0.5
  observation: [{term: command}]
)");
  const ActionMap map(config::PolicySetupOf(c));
  std::vector<float> action(2);
  std::vector<sm::JointTarget> targets(25);
  map.Apply(std::vector<float>{0.0f, 1.0f}, action, targets);
  EXPECT_FLOAT_EQ(targets[kLKnee].position_rad, 0.9f);
  EXPECT_FLOAT_EQ(targets[kLElbow].position_rad, 0.1f + 0.5f);
  EXPECT_FLOAT_EQ(DefaultPoseOf(config::PolicySetupOf(c), kLKnee), 0.6f);
}

TEST(ActionMap, AnActionOffsetGivesOnePoseWithinEachJointsLimits) {
  const auto errors = test::PolicyErrors(R"(
policy:
  model: m.onnx
  joints: [L_Knee, L_Elbow]
  action_offset: [0.9, 7.0, 1.0]
  action_scale: 0.5
  observation: [{term: command}]
)");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("policy.action_offset: has 3 values: give one per policy joint (2)"),
            std::string::npos)
      << errors[0];
  const auto limits = test::PolicyErrors(R"(
policy:
  model: m.onnx
  joints: [L_Knee, L_Elbow]
  action_offset: [0.9, 7.0]
  action_scale: 0.5
  observation: [{term: command}]
)");
  ASSERT_EQ(limits.size(), 1u);
  EXPECT_NE(limits[0].find("policy.action_offset[1]: 7 is outside"), std::string::npos)
      << limits[0];
}

TEST(ActionMap, ANonFiniteActionCountsAsZero) {
  const config::Config c = test::WithPolicy(R"(
policy:
  model: m.onnx
  joints: [L_Knee, L_Elbow]
  action_scale: 0.25
  observation: [{term: command}]
)");
  const ActionMap map(config::PolicySetupOf(c));
  std::vector<float> action(2);
  std::vector<sm::JointTarget> targets(25);
  const std::vector<float> raw{std::numeric_limits<float>::quiet_NaN(),
                               std::numeric_limits<float>::infinity()};
  const ActionMap::Outcome outcome = map.Apply(raw, action, targets);
  EXPECT_EQ(outcome.nonfinite, 2u);
  EXPECT_EQ(outcome.first_nonfinite_joint, static_cast<int>(kLKnee));
  EXPECT_EQ(action, (std::vector<float>{0.0f, 0.0f}));
  EXPECT_FLOAT_EQ(targets[kLKnee].position_rad, 0.6f);
  EXPECT_FLOAT_EQ(targets[kLElbow].position_rad, 0.3f);
}

TEST(PerItem, OneValueForAllOrOnePerItem) {
  EXPECT_EQ(PerItem({2.0}, 3), (std::vector<float>{2, 2, 2}));
  EXPECT_EQ(PerItem({1.0, 2.0}, 2), (std::vector<float>{1, 2}));
  EXPECT_EQ(PerItem({}, 2, {7, 8}), (std::vector<float>{7, 8}));
}

}  // namespace
}  // namespace robot_edge::policy
