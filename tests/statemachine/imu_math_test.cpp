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

}  // namespace
}  // namespace robot_edge::sm
