// ImuModel: the attitude a tilt command sets, as a quaternion and as CAN frames.
#include "sim/imu_model.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "../can/hex.hpp"
#include "can/imu_codec.hpp"

namespace robot_edge::sim {
namespace {

const float kHalf = static_cast<float>(std::sqrt(0.5));  // cos 45° = sin 45°

void ExpectQuat(const std::array<float, 4>& q, float w, float x, float y, float z) {
  EXPECT_NEAR(q[0], w, 1e-6f);
  EXPECT_NEAR(q[1], x, 1e-6f);
  EXPECT_NEAR(q[2], y, 1e-6f);
  EXPECT_NEAR(q[3], z, 1e-6f);
}

TEST(TiltQuaternion, UprightIsIdentity) { ExpectQuat(TiltQuaternion(0, 0), 1, 0, 0, 0); }

TEST(TiltQuaternion, PitchAndRollAboutTheirAxes) {
  ExpectQuat(TiltQuaternion(0, 90), kHalf, 0, kHalf, 0);  // fell forward
  ExpectQuat(TiltQuaternion(90, 0), kHalf, kHalf, 0, 0);  // fell sideways
  ExpectQuat(TiltQuaternion(0, -90), kHalf, 0, -kHalf, 0);
  // Pitch after roll (ZYX): q = qy(pitch)·qx(roll).
  const float c = std::cos(0.5f * 0.5235988f), s = std::sin(0.5f * 0.5235988f);  // 30°/2
  ExpectQuat(TiltQuaternion(30, 30), c * c, s * c, c * s, -s * s);
}

TEST(TiltQuaternion, IsUnitLength) {
  const auto q = TiltQuaternion(-37, 122);
  EXPECT_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0f, 1e-6f);
}

TEST(TiltFromUpright, IsTheAngleOfTheBodyUpAxis) {
  EXPECT_NEAR(TiltFromUprightDeg(0, 0), 0, 1e-9);
  EXPECT_NEAR(TiltFromUprightDeg(60, 0), 60, 1e-9);
  EXPECT_NEAR(TiltFromUprightDeg(0, -30), 30, 1e-9);
  EXPECT_NEAR(TiltFromUprightDeg(45, 45), 60, 1e-9);  // cos = cos45·cos45 = 1/2
  EXPECT_NEAR(TiltFromUprightDeg(180, 0), 180, 1e-9);
}

TEST(ImuModel, FramesCarryTheTiltOnTheConfiguredIds) {
  ImuModel imu(0x101, 0x102);
  EXPECT_TRUE(imu.enabled());
  ImuSample upright;
  auto frames = imu.Frames(upright);
  EXPECT_EQ(frames[0].can_id, 0x101u);
  EXPECT_EQ(frames[0].len, 8);
  EXPECT_EQ(can::test::Hexify(frames[0].data, 8), "ff7f000000000000");  // 32767, 0, 0, 0
  EXPECT_EQ(frames[1].can_id, 0x102u);
  EXPECT_EQ(frames[1].len, 6);
  EXPECT_EQ(can::test::Hexify(frames[1].data, 6), "000000000000");  // still: no rotation rate

  ImuSample pitched;
  const std::array<float, 4> tilt = TiltQuaternion(0, 90);
  pitched.quaternion = {tilt[0], tilt[1], tilt[2], tilt[3]};
  pitched.gyro_rad_s = {0.5, -1.0, 2.0};
  EXPECT_NEAR(TiltFromUprightDeg(pitched.quaternion), 90, 1e-4);
  frames = imu.Frames(pitched);
  std::array<float, 4> q{};
  ASSERT_TRUE(can::DecodeImuQuaternion(frames[0].data, &q));
  EXPECT_NEAR(q[0], kHalf, 1e-4f);
  EXPECT_NEAR(q[1], 0, 1e-4f);
  EXPECT_NEAR(q[2], kHalf, 1e-4f);
  EXPECT_NEAR(q[3], 0, 1e-4f);
  std::array<float, 3> gyro{};
  ASSERT_TRUE(can::DecodeImuGyro(frames[1].data, &gyro));
  EXPECT_NEAR(gyro[0], 0.5f, 1e-3f);
  EXPECT_NEAR(gyro[1], -1.0f, 1e-3f);
  EXPECT_NEAR(gyro[2], 2.0f, 1e-3f);
}

TEST(ImuModel, CanBeSwitchedOff) {
  ImuModel imu(0x101, 0x102);
  imu.SetEnabled(false);
  EXPECT_FALSE(imu.enabled());
  imu.SetEnabled(true);
  EXPECT_TRUE(imu.enabled());
}

}  // namespace
}  // namespace robot_edge::sim
