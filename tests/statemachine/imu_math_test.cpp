#include "statemachine/imu_math.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace robot_edge::sm {
namespace {

TEST(ProjectedGravity, UprightPointsDown) {
  const auto g = ProjectedGravity({1, 0, 0, 0});
  EXPECT_FLOAT_EQ(g[0], 0);
  EXPECT_FLOAT_EQ(g[1], 0);
  EXPECT_FLOAT_EQ(g[2], -1);
  EXPECT_NEAR(TiltDegrees(g), 0, 1e-3);
}

TEST(ProjectedGravity, PitchForwardNinetyDegrees) {
  // Pitch +90° about y: the body's x axis points down, so gravity is +x in the body frame.
  const float h = static_cast<float>(M_PI) / 4;
  const auto g = ProjectedGravity({std::cos(h), 0, std::sin(h), 0});
  EXPECT_NEAR(g[0], 1, 1e-6);
  EXPECT_NEAR(g[1], 0, 1e-6);
  EXPECT_NEAR(g[2], 0, 1e-6);
  EXPECT_NEAR(TiltDegrees(g), 90, 1e-3);
}

TEST(ProjectedGravity, RollThirtyDegrees) {
  const float h = static_cast<float>(M_PI) / 12;
  const auto g = ProjectedGravity({std::cos(h), std::sin(h), 0, 0});
  EXPECT_NEAR(g[1], -0.5f, 1e-6);  // roll right: gravity toward -y
  EXPECT_NEAR(TiltDegrees(g), 30, 1e-3);
}

TEST(ProjectedGravity, NormalisesAndSurvivesGarbage) {
  const auto g = ProjectedGravity({2, 0, 0, 0});
  EXPECT_FLOAT_EQ(g[2], -1);
  const auto z = ProjectedGravity({0, 0, 0, 0});
  EXPECT_FLOAT_EQ(z[2], -1);
  const auto n = ProjectedGravity({NAN, 0, 0, 0});
  EXPECT_FLOAT_EQ(n[2], -1);
  EXPECT_NEAR(TiltDegrees({0, 0, 1}), 180, 1e-3);
}

// q = qz(yaw) · qy(pitch) · qx(roll): the Z-Y-X convention YawPitchRoll inverts.
std::array<float, 4> FromYawPitchRoll(float yaw, float pitch, float roll) {
  const float cy = std::cos(yaw / 2), sy = std::sin(yaw / 2);
  const float cp = std::cos(pitch / 2), sp = std::sin(pitch / 2);
  const float cr = std::cos(roll / 2), sr = std::sin(roll / 2);
  return {cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
          cr * cp * sy - sr * sp * cy};
}

TEST(YawPitchRoll, RecoversEachAngleAndTheirComposition) {
  const auto upright = YawPitchRoll({1, 0, 0, 0});
  EXPECT_FLOAT_EQ(upright[0], 0);
  EXPECT_FLOAT_EQ(upright[1], 0);
  EXPECT_FLOAT_EQ(upright[2], 0);
  const float h = static_cast<float>(M_PI) / 12;                                // half of 30°
  EXPECT_NEAR(YawPitchRoll({std::cos(h), 0, 0, std::sin(h)})[0], 2 * h, 1e-6);  // yaw
  EXPECT_NEAR(YawPitchRoll({std::cos(h), 0, std::sin(h), 0})[1], 2 * h, 1e-6);  // pitch
  EXPECT_NEAR(YawPitchRoll({std::cos(h), std::sin(h), 0, 0})[2], 2 * h, 1e-6);  // roll
  const auto ypr = YawPitchRoll(FromYawPitchRoll(2.5f, -0.7f, 0.4f));
  EXPECT_NEAR(ypr[0], 2.5f, 1e-5);
  EXPECT_NEAR(ypr[1], -0.7f, 1e-5);
  EXPECT_NEAR(ypr[2], 0.4f, 1e-5);
}

TEST(YawPitchRoll, SurvivesGarbage) {
  for (const auto& q : {std::array<float, 4>{0, 0, 0, 0}, std::array<float, 4>{NAN, 0, 0, 0}}) {
    const auto ypr = YawPitchRoll(q);
    EXPECT_FLOAT_EQ(ypr[0], 0);
    EXPECT_FLOAT_EQ(ypr[1], 0);
    EXPECT_FLOAT_EQ(ypr[2], 0);
  }
  // Not normalised: the same angles.
  EXPECT_NEAR(YawPitchRoll({2 * std::cos(0.2f), 0, 0, 2 * std::sin(0.2f)})[0], 0.4f, 1e-6);
}

}  // namespace
}  // namespace robot_edge::sm
