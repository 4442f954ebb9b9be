// IMU frames: golden bytes, round trips and clamping.
#include "can/imu_codec.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "hex.hpp"

namespace robot_edge::can {
namespace {

using test::Hexify;

TEST(ImuQuaternion, GoldenLittleEndianInt16) {
  EXPECT_EQ(Hexify(EncodeImuQuaternion({1.0f, 0.0f, 0.5f, -0.25f})), "ff7f0000004000e0");
  std::array<float, 4> q;
  ASSERT_TRUE(DecodeImuQuaternion(EncodeImuQuaternion({0.8f, 0.0f, 0.48f, -0.36f}), &q));
  EXPECT_NEAR(q[0], 0.8f, 1.0f / 32767);
  EXPECT_NEAR(q[2], 0.48f, 1.0f / 32767);
  EXPECT_NEAR(q[3], -0.36f, 1.0f / 32767);
}

TEST(ImuQuaternion, ANonUnitQuaternionIsRejected) {
  std::array<float, 4> q = {0.5f, 0.5f, 0.5f, 0.5f};
  EXPECT_FALSE(DecodeImuQuaternion(EncodeImuQuaternion({0, 0, 0, 0}), &q)) << "all zeros";
  EXPECT_FALSE(DecodeImuQuaternion(EncodeImuQuaternion({1.0f, 0.0f, 0.5f, -0.25f}), &q));
  EXPECT_FALSE(DecodeImuQuaternion(EncodeImuQuaternion({0.9f, 0, 0, 0}), &q));
  EXPECT_EQ(q, (std::array<float, 4>{0.5f, 0.5f, 0.5f, 0.5f})) << "left untouched";
  EXPECT_TRUE(DecodeImuQuaternion(EncodeImuQuaternion({0.97f, 0.2425f, 0, 0}), &q));
}

TEST(ImuQuaternion, ClampsAndRejectsShortFrames) {
  EXPECT_EQ(Hexify(EncodeImuQuaternion({2.0f, -2.0f, 0, 0})), "ff7f018000000000");
  std::array<float, 4> q;
  const std::uint8_t short_frame[7] = {};
  EXPECT_FALSE(DecodeImuQuaternion(short_frame, &q));
}

TEST(ImuGyro, GoldenMilliradiansPerSecond) {
  const Payload p = EncodeImuGyro({1.0f, -2.5f, 0.0f});
  EXPECT_EQ(Hexify(p, 6), "e8033cf60000");
  std::array<float, 3> g;
  ASSERT_TRUE(DecodeImuGyro(std::span(p).first(6), &g));
  EXPECT_FLOAT_EQ(g[0], 1.0f);
  EXPECT_FLOAT_EQ(g[1], -2.5f);
  EXPECT_FALSE(DecodeImuGyro(std::span(p).first(5), &g));
  EXPECT_EQ(Hexify(EncodeImuGyro({100.0f, -100.0f, 0.0f}), 6), "ff7f01800000");  // ±32.767 rad/s
}

TEST(ImuAccel, GoldenHundredthsOfAMeterPerSecondSquared) {
  // 9.81 -> 981 = 0x03d5, -1.5 -> -150 = 0xff6a.
  EXPECT_EQ(Hexify(EncodeImuAccel({9.81f, -1.5f, 0.0f}), 6), "d5036aff0000");
}

TEST(ImuAccel, RoundTripsToAHundredth) {
  const std::array<float, 3> sent = {0.137f, -9.806f, 294.3f};  // 294.3 m/s²: a 30 g impact
  const Payload p = EncodeImuAccel(sent);
  std::array<float, 3> a{};
  ASSERT_TRUE(DecodeImuAccel(std::span(p).first(6), &a));
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(a[i], sent[i], 0.005f + 1e-4f) << i;
}

TEST(ImuAccel, ClampsAtPlusMinus327_67) {
  EXPECT_EQ(Hexify(EncodeImuAccel({400.0f, -400.0f, 0.0f}), 6), "ff7f01800000");
  std::array<float, 3> a{};
  ASSERT_TRUE(DecodeImuAccel(EncodeImuAccel({1e6f, -1e6f, NAN}), &a));
  EXPECT_FLOAT_EQ(a[0], 327.67f);
  EXPECT_FLOAT_EQ(a[1], -327.67f);
  EXPECT_FLOAT_EQ(a[2], 0.0f) << "NaN is sent as 0";
}

TEST(ImuAccel, AShortFrameIsRejectedAndLeavesTheValue) {
  const Payload p = EncodeImuAccel({1.0f, 2.0f, 3.0f});
  std::array<float, 3> a = {7.0f, 8.0f, 9.0f};
  EXPECT_FALSE(DecodeImuAccel(std::span(p).first(5), &a));
  EXPECT_FALSE(DecodeImuAccel({}, &a));
  EXPECT_EQ(a, (std::array<float, 3>{7.0f, 8.0f, 9.0f}));
}

}  // namespace
}  // namespace robot_edge::can
