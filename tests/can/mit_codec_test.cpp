// The MIT motor protocol codec against golden frames (computed independently of this code, with
// the bit layout of the protocol), round trips at the range edges, and clamping of out-of-range
// and NaN inputs.
#include "can/mit_codec.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "hex.hpp"

namespace robot_edge::can {
namespace {

using test::Hexify;

const MitRanges kAk80{12.5f, 50.0f, 18.0f, 500.0f, 5.0f};
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(MitCommand, GoldenFrames) {
  // Zero: every signed field at its midpoint, rounded to nearest (the reference firmware's
  // truncation would give 7fff for the position).
  EXPECT_EQ(Hexify(EncodeCommand({0, 0, 0, 0, 0}, kAk80)), "8000800000000800");
  EXPECT_EQ(Hexify(EncodeCommand({1.0f, -2.0f, 100.0f, 2.5f, 1.5f}, kAk80)), "8a3d7ae3338008aa");
  EXPECT_EQ(Hexify(EncodeCommand({0.3f, 0, 0, 1.5f, 0}, kAk80)), "83128000004cd800");  // DAMP
  EXPECT_EQ(Hexify(EncodeCommand({12.5f, 50, 500, 5, 18}, kAk80)), "ffffffffffffffff");
  EXPECT_EQ(Hexify(EncodeCommand({-12.5f, -50, 0, 0, -18}, kAk80)), "0000000000000000");
}

TEST(MitCommand, OutOfRangeIsClampedNeverWrapped) {
  EXPECT_EQ(Hexify(EncodeCommand({100, -1000, 9999, -3, 50}, kAk80)), "ffff000fff000fff");
  EXPECT_EQ(Hexify(EncodeCommand({kInf, -kInf, kInf, -kInf, kInf}, kAk80)),
            Hexify(EncodeCommand({12.5f, -50, 500, 0, 18}, kAk80)));
}

TEST(MitCommand, NaNEncodesAsZero) {
  // Zero gains, zero velocity, zero torque: NaN can never become a stiff or violent command.
  EXPECT_EQ(Hexify(EncodeCommand({kNaN, kNaN, kNaN, kNaN, kNaN}, kAk80)), "8000800000000800");
}

TEST(MitCommand, NeverLooksLikeASpecialFrame) {
  // Every field at its maximum with the torque at 0xFFC..0xFFE would read as FC/FD/FE.
  for (float t : {17.974f, 17.982f, 17.991f}) {  // 0xFFC, 0xFFD, 0xFFE
    const Payload p = EncodeCommand({12.5f, 50, 500, 5, t}, kAk80);
    SpecialCommand special;
    EXPECT_FALSE(DecodeSpecial(p, &special)) << Hexify(p);
    EXPECT_EQ(Hexify(p), "fffffffffffffffb");
  }
}

TEST(MitCommand, RoundTripWithinHalfAStep) {
  const float p_step = 25.0f / 65535, v_step = 100.0f / 4095, kp_step = 500.0f / 4095,
              kd_step = 5.0f / 4095, t_step = 36.0f / 4095;
  for (const MitCommand& c :
       {MitCommand{12.5f, 50, 500, 5, 17.9f}, MitCommand{-12.5f, -50, 0, 0, -18},
        MitCommand{0.123f, -7.7f, 42.0f, 0.3f, 3.3f},
        MitCommand{-0.001f, 0.01f, 499.9f, 4.99f, -17.99f}}) {
    MitCommand back;
    ASSERT_TRUE(DecodeCommand(EncodeCommand(c, kAk80), kAk80, &back));
    EXPECT_NEAR(back.position_rad, c.position_rad, p_step / 2 + 1e-6);
    EXPECT_NEAR(back.velocity_rad_s, c.velocity_rad_s, v_step / 2 + 1e-5);
    EXPECT_NEAR(back.kp, c.kp, kp_step / 2 + 1e-4);
    EXPECT_NEAR(back.kd, c.kd, kd_step / 2 + 1e-6);
    EXPECT_NEAR(back.torque_nm, c.torque_nm, t_step / 2 + 1e-5);
  }
}

TEST(MitCommand, DecodeRefusesSpecialAndShortFrames) {
  MitCommand c;
  EXPECT_FALSE(DecodeCommand(EncodeSpecial(SpecialCommand::kEnterMotorMode), kAk80, &c));
  const std::uint8_t short_frame[6] = {};
  EXPECT_FALSE(DecodeCommand(short_frame, kAk80, &c));
}

TEST(MitReply, GoldenAkFrames) {
  Payload out;
  EXPECT_EQ(EncodeReply({3, 0.5f, 1.0f, -2.0f, 45, 0}, kAk80, ReplyLayout::kAk8Byte, &out), 8);
  EXPECT_EQ(Hexify(out), "03851e82871c2d00");
  EXPECT_EQ(EncodeReply({6, -3.0f, -10.0f, 5.0f, 81, 1}, kAk80, ReplyLayout::kAk8Byte, &out), 8);
  EXPECT_EQ(Hexify(out), "066147666a385101");

  MitReply r;
  ASSERT_TRUE(DecodeReply(out, kAk80, ReplyLayout::kAk8Byte, &r));
  EXPECT_EQ(r.motor_id, 6);
  EXPECT_NEAR(r.position_rad, -3.0f, 25.0f / 65535);
  EXPECT_NEAR(r.velocity_rad_s, -10.0f, 100.0f / 4095);
  EXPECT_NEAR(r.torque_nm, 5.0f, 36.0f / 4095);
  EXPECT_EQ(r.temperature_c, 81);
  EXPECT_EQ(r.error_code, static_cast<std::uint8_t>(MotorError::kOvertemp));
}

TEST(MitReply, ClassicSixByteLayoutHasNoTemperature) {
  Payload out;
  EXPECT_EQ(EncodeReply({3, 0.5f, 1.0f, -2.0f, 45, 2}, kAk80, ReplyLayout::kClassic6Byte, &out), 6);
  EXPECT_EQ(Hexify(out, 6), "03851e82871c");
  MitReply r;
  r.temperature_c = 99;
  ASSERT_TRUE(DecodeReply(std::span(out).first(6), kAk80, ReplyLayout::kClassic6Byte, &r));
  EXPECT_EQ(r.temperature_c, 0);
  EXPECT_EQ(r.error_code, 0);
  EXPECT_FALSE(DecodeReply(std::span(out).first(6), kAk80, ReplyLayout::kAk8Byte, &r))
      << "an AK reply needs 8 bytes";
  EXPECT_FALSE(DecodeReply(std::span(out).first(5), kAk80, ReplyLayout::kClassic6Byte, &r));
}

TEST(MitReply, RangeEdgesRoundTrip) {
  for (float p : {-12.5f, 12.5f}) {
    for (float v : {-50.0f, 50.0f}) {
      for (float t : {-18.0f, 18.0f}) {
        Payload out;
        EncodeReply({1, p, v, t, 0, 0}, kAk80, ReplyLayout::kAk8Byte, &out);
        MitReply r;
        ASSERT_TRUE(DecodeReply(out, kAk80, ReplyLayout::kAk8Byte, &r));
        EXPECT_FLOAT_EQ(r.position_rad, p);
        EXPECT_FLOAT_EQ(r.velocity_rad_s, v);
        EXPECT_FLOAT_EQ(r.torque_nm, t);
      }
    }
  }
}

TEST(SpecialFrames, Golden) {
  EXPECT_EQ(Hexify(EncodeSpecial(SpecialCommand::kEnterMotorMode)), "fffffffffffffffc");
  EXPECT_EQ(Hexify(EncodeSpecial(SpecialCommand::kExitMotorMode)), "fffffffffffffffd");
  EXPECT_EQ(Hexify(EncodeSpecial(SpecialCommand::kSetZero)), "fffffffffffffffe");
  SpecialCommand s;
  ASSERT_TRUE(DecodeSpecial(EncodeSpecial(SpecialCommand::kExitMotorMode), &s));
  EXPECT_EQ(s, SpecialCommand::kExitMotorMode);
  const std::uint8_t not_special[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE, 0xFC};
  EXPECT_FALSE(DecodeSpecial(not_special, &s));
  const std::uint8_t ff[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  EXPECT_FALSE(DecodeSpecial(ff, &s));
}

TEST(FloatToUint, ScalesWithSpanOverTwoToTheBitsMinusOne) {
  EXPECT_EQ(FloatToUint(-12.5f, -12.5f, 12.5f, 16), 0u);
  EXPECT_EQ(FloatToUint(12.5f, -12.5f, 12.5f, 16), 65535u);
  EXPECT_EQ(FloatToUint(250.0f, 0.0f, 500.0f, 12), 2048u);  // 2047.5 rounds to nearest
  EXPECT_EQ(FloatToUint(249.9f, 0.0f, 500.0f, 12), 2047u);
  EXPECT_FLOAT_EQ(UintToFloat(4095, 0.0f, 500.0f, 12), 500.0f);
  EXPECT_FLOAT_EQ(UintToFloat(0, -18.0f, 18.0f, 12), -18.0f);
}

TEST(MotorError, Names) {
  EXPECT_STREQ(ToString(MotorError::kOvertemp), "overtemperature");
  EXPECT_STREQ(ToString(MotorError::kPhase), "phase fault");
  EXPECT_STREQ(ToString(static_cast<MotorError>(42)), "unknown error");
}

}  // namespace
}  // namespace robot_edge::can
