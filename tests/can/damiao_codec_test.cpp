// Damiao DM-J MIT mode: golden frames of the feedback and the control frames, the state nibble
// mapped to the alerts' MotorError, and the command layout shared with the AK codec.
#include "can/damiao_codec.hpp"

#include <gtest/gtest.h>

#include "hex.hpp"

namespace robot_edge::can::damiao {
namespace {

using test::Hexify;

// DM-J4310's defaults: PMAX 12.5 rad, VMAX 30 rad/s, TMAX 10 N·m.
constexpr MitRanges kJ4310{12.5f, 30.0f, 10.0f, 500.0f, 5.0f};

TEST(DamiaoCodec, FeedbackGoldenFrame) {
  // Enabled (state 1), id 1, at rest: p = round(12.5 · 65535 / 25) = 32768 = 0x8000,
  // v = t = round(2047.5) = 0x800; MOS 35 °C, rotor 40 °C.
  const Payload p = EncodeFeedback({1, 1, 0.0f, 0.0f, 0.0f, 35, 40}, kJ4310);
  EXPECT_EQ(Hexify(p), "1180008008002328");
}

TEST(DamiaoCodec, FeedbackDecodesIdStateAndBothTemperatures) {
  // D0 0xD3: state D (communication lost), id 3; p 0xFFFF = +12.5; v 0xFFF = +30; t 0x000 = -10.
  const std::uint8_t data[] = {0xD3, 0xFF, 0xFF, 0xFF, 0xF0, 0x00, 0x30, 0x45};
  Feedback f;
  ASSERT_TRUE(DecodeFeedback(data, kJ4310, &f));
  EXPECT_EQ(f.id_nibble, 3);
  EXPECT_EQ(f.state, 0xD);
  EXPECT_FLOAT_EQ(f.position_rad, 12.5f);
  EXPECT_FLOAT_EQ(f.velocity_rad_s, 30.0f);
  EXPECT_FLOAT_EQ(f.torque_nm, -10.0f);
  EXPECT_EQ(f.mos_temperature_c, 0x30);
  EXPECT_EQ(f.rotor_temperature_c, 0x45);
  EXPECT_EQ(ErrorOf(f.state), MotorError::kCommLost);
}

TEST(DamiaoCodec, FeedbackRoundTripsWithinOneStep) {
  const Feedback in{5, 1, -1.234f, 7.5f, -3.25f, 50, 61};
  Feedback out;
  ASSERT_TRUE(DecodeFeedback(EncodeFeedback(in, kJ4310), kJ4310, &out));
  EXPECT_EQ(out.id_nibble, 5);
  EXPECT_EQ(out.state, 1);
  EXPECT_NEAR(out.position_rad, in.position_rad, 25.0f / 65535);
  EXPECT_NEAR(out.velocity_rad_s, in.velocity_rad_s, 60.0f / 4095);
  EXPECT_NEAR(out.torque_nm, in.torque_nm, 20.0f / 4095);
}

TEST(DamiaoCodec, AShortFeedbackIsRejected) {
  const std::uint8_t six[] = {0x11, 0x80, 0x00, 0x80, 0x08, 0x00};
  Feedback f;
  EXPECT_FALSE(DecodeFeedback(six, kJ4310, &f));
}

TEST(DamiaoCodec, ControlFramesAndTheirDecoding) {
  EXPECT_EQ(Hexify(EncodeControl(Control::kEnable)), "fffffffffffffffc");
  EXPECT_EQ(Hexify(EncodeControl(Control::kDisable)), "fffffffffffffffd");
  EXPECT_EQ(Hexify(EncodeControl(Control::kSetZero)), "fffffffffffffffe");
  EXPECT_EQ(Hexify(EncodeControl(Control::kClearError)), "fffffffffffffffb");
  for (Control c : {Control::kEnable, Control::kDisable, Control::kSetZero, Control::kClearError}) {
    Control out;
    ASSERT_TRUE(DecodeControl(EncodeControl(c), &out));
    EXPECT_EQ(out, c);
  }
  const std::uint8_t not_control[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFA};
  Control out;
  EXPECT_FALSE(DecodeControl(not_control, &out));
}

TEST(DamiaoCodec, EveryStateMapsToAnAlertCode) {
  EXPECT_EQ(ErrorOf(0x0), MotorError::kNone);
  EXPECT_EQ(ErrorOf(0x1), MotorError::kNone);
  EXPECT_EQ(ErrorOf(0x8), MotorError::kOvervoltage);
  EXPECT_EQ(ErrorOf(0x9), MotorError::kUndervoltage);
  EXPECT_EQ(ErrorOf(0xA), MotorError::kOvercurrent);
  EXPECT_EQ(ErrorOf(0xB), MotorError::kOvertemp);
  EXPECT_EQ(ErrorOf(0xC), MotorError::kOvertemp);
  EXPECT_EQ(ErrorOf(0xD), MotorError::kCommLost);
  EXPECT_EQ(ErrorOf(0xE), MotorError::kOverload);
  EXPECT_EQ(ErrorOf(0x5), MotorError::kOther);
  EXPECT_TRUE(IsEnabled(0x1));
  EXPECT_FALSE(IsEnabled(0x0));
  EXPECT_FALSE(IsEnabled(0xB));
}

TEST(DamiaoCodec, TheCommandIsTheMitLayout) {
  // p 0 -> 0x8000, v 0 -> 0x800, kp 0 -> 0, kd 1 -> round(4095 / 5) = 819 = 0x333, t 0 -> 0x800.
  EXPECT_EQ(Hexify(EncodeCommand({0, 0, 0, 1.0f, 0}, kJ4310)), "8000800000333800");
}

}  // namespace
}  // namespace robot_edge::can::damiao
