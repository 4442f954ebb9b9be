// ImuModel: the attitude a tilt command sets, as a quaternion, as the kinematic plant's
// accelerometer reading, and as CAN frames.
#include "sim/imu_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "../can/hex.hpp"
#include "can/imu_codec.hpp"
#include "sim/kinematic_plant.hpp"

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
  ASSERT_EQ(frames.size(), 2u) << "no accelerometer frame without its id";
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

// Specific force at rest: R(q)ᵀ·(0, 0, g) in the body frame.
void ExpectAccel(const ImuSample& s, double x, double y, double z) {
  EXPECT_NEAR(s.accel_m_s2[0], x, 1e-5);
  EXPECT_NEAR(s.accel_m_s2[1], y, 1e-5);
  EXPECT_NEAR(s.accel_m_s2[2], z, 1e-5);
}

TEST(KinematicPlantImu, TheAccelerometerReadsGravityInTheBodyFrame) {
  KinematicPlant plant(std::vector<KinematicJoint>(1));
  ExpectAccel(plant.imu(), 0, 0, 9.81);  // upright
  // Rolled 90° about x: body y points up.
  plant.SetTilt(90, 0);
  ExpectAccel(plant.imu(), 0, 9.81, 0);
  // Pitched 90° about y (fell forward): body x points down.
  plant.SetTilt(0, 90);
  ExpectAccel(plant.imu(), -9.81, 0, 0);
  // Upside down.
  plant.SetTilt(180, 0);
  ExpectAccel(plant.imu(), 0, 0, -9.81);
  plant.SetTilt(30, -45);
  const auto& a = plant.imu().accel_m_s2;
  EXPECT_NEAR(std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]), 9.81, 1e-5);
  EXPECT_NEAR(std::acos(a[2] / 9.81) * 180 / std::numbers::pi, TiltFromUprightDeg(30, -45), 1e-4);
  plant.SetTilt(0, 0);
  ExpectAccel(plant.imu(), 0, 0, 9.81);
}

TEST(ImuModel, TheAccelerometerFrameFollowsWhenItHasAnId) {
  ImuModel imu(0x101, 0x102, 0x103);
  ImuSample upright;
  upright.accel_m_s2 = {0, 0, 9.81};
  auto frames = imu.Frames(upright);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].can_id, 0x101u);
  EXPECT_EQ(frames[1].can_id, 0x102u);
  EXPECT_EQ(frames[2].can_id, 0x103u);
  EXPECT_EQ(frames[2].len, 6);
  EXPECT_EQ(can::test::Hexify(frames[2].data, 6), "00000000d503");  // 981 = 9.81 m/s²

  ImuSample rolled;
  const std::array<float, 4> tilt = TiltQuaternion(90, 0);
  rolled.quaternion = {tilt[0], tilt[1], tilt[2], tilt[3]};
  rolled.accel_m_s2 = {0.25, 9.81, -40.0};  // with an impact on z
  frames = imu.Frames(rolled);
  std::array<float, 3> accel{};
  ASSERT_TRUE(can::DecodeImuAccel(frames[2].data, &accel));
  EXPECT_NEAR(accel[0], 0.25f, 0.005f);
  EXPECT_NEAR(accel[1], 9.81f, 0.005f);
  EXPECT_NEAR(accel[2], -40.0f, 0.005f);
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
