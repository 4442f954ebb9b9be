// IMU frames: golden bytes, round trips and clamping.
#include "can/imu_codec.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace robot_edge::can
