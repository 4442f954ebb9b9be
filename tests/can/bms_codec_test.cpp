// The BMS frame: golden bytes, round trips, clamping, the unknown codes, and garbled frames
// refused whole.
#include "can/bms_codec.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "hex.hpp"

namespace robot_edge::can {
namespace {

using test::Hexify;

TEST(Bms, GoldenDischarging) {
  // 48.6 V = 4860 = 0x12fc; 12.34 A = 1234 = 0x04d2; 80 % = 0x50; 30 °C = 0x1e; discharging.
  EXPECT_EQ(Hexify(EncodeBms({48.6f, 12.34f, 80.0f, 30.0f, 1})), "fc12d204501e0100");
}

TEST(Bms, GoldenCharging) {
  // 50.4 V = 0x13b0; -2.5 A = -250 = 0xff06; 100 %; -5 °C = 0xfb; charging.
  EXPECT_EQ(Hexify(EncodeBms({50.4f, -2.5f, 100.0f, -5.0f, 2})), "b01306ff64fb0200");
}

TEST(Bms, DecodesTheGoldenFrame) {
  const std::uint8_t frame[8] = {0xfc, 0x12, 0xd2, 0x04, 0x50, 0x1e, 0x01, 0x00};
  BmsReading r;
  ASSERT_TRUE(DecodeBms(frame, &r));
  EXPECT_FLOAT_EQ(r.voltage_v, 48.6f);
  EXPECT_FLOAT_EQ(r.current_a, 12.34f);
  EXPECT_FLOAT_EQ(r.percent, 80.0f);
  EXPECT_FLOAT_EQ(r.temperature_c, 30.0f);
  EXPECT_EQ(r.status, 1u);
}

TEST(Bms, RoundTripsToTheFramesResolution) {
  const BmsReading sent{44.567f, -123.456f, 37.4f, -12.6f, 4};
  BmsReading r;
  ASSERT_TRUE(DecodeBms(EncodeBms(sent), &r));
  EXPECT_NEAR(r.voltage_v, sent.voltage_v, 0.005f + 1e-4f);
  EXPECT_NEAR(r.current_a, sent.current_a, 0.005f + 1e-4f);
  EXPECT_FLOAT_EQ(r.percent, 37.0f);
  EXPECT_FLOAT_EQ(r.temperature_c, -13.0f);
  EXPECT_EQ(r.status, 4u);
}

TEST(Bms, ClampsEveryField) {
  EXPECT_EQ(Hexify(EncodeBms({700.0f, 400.0f, 150.0f, 200.0f, 3})), "ffffff7f647f0300");
  // -127 °C, not -128 (the unknown code); a status beyond fault is sent as unknown.
  EXPECT_EQ(Hexify(EncodeBms({-5.0f, -400.0f, -3.0f, -200.0f, 9})), "0000018000810000");
}

TEST(Bms, UnknownsTravelAsTheirCodes) {
  EXPECT_EQ(Hexify(EncodeBms({NAN, NAN, NAN, NAN, 0})), "00000000ff800000");
  BmsReading r;
  ASSERT_TRUE(DecodeBms(EncodeBms({48.0f, 1.5f, NAN, NAN, 0}), &r));
  EXPECT_TRUE(std::isnan(r.percent));
  EXPECT_TRUE(std::isnan(r.temperature_c));
  EXPECT_FLOAT_EQ(r.voltage_v, 48.0f);
  EXPECT_EQ(r.status, 0u);
}

TEST(Bms, SevenBytesAreEnoughTheReservedByteIsIgnored) {
  std::uint8_t frame[8] = {0xfc, 0x12, 0xd2, 0x04, 0x50, 0x1e, 0x01, 0xaa};
  BmsReading r;
  EXPECT_TRUE(DecodeBms(frame, &r));
  EXPECT_TRUE(DecodeBms(std::span(frame).first(7), &r));
  EXPECT_FLOAT_EQ(r.percent, 80.0f);
}

TEST(Bms, AGarbledFrameIsRefusedWholeAndLeavesTheReading) {
  const BmsReading kept{1.0f, 2.0f, 3.0f, 4.0f, 1};
  BmsReading r = kept;
  const Payload good = EncodeBms({48.6f, 12.34f, 80.0f, 30.0f, 1});
  EXPECT_FALSE(DecodeBms(std::span(good).first(6), &r)) << "short";
  EXPECT_FALSE(DecodeBms({}, &r)) << "empty";
  Payload bad = good;
  bad[4] = 101;  // a state of charge above 100 that is not the unknown code
  EXPECT_FALSE(DecodeBms(bad, &r));
  bad = good;
  bad[4] = 0xFE;
  EXPECT_FALSE(DecodeBms(bad, &r));
  bad = good;
  bad[6] = 5;  // no such status
  EXPECT_FALSE(DecodeBms(bad, &r));
  bad = good;
  bad[6] = 0xFF;
  EXPECT_FALSE(DecodeBms(bad, &r));
  EXPECT_FLOAT_EQ(r.voltage_v, kept.voltage_v);
  EXPECT_FLOAT_EQ(r.current_a, kept.current_a);
  EXPECT_FLOAT_EQ(r.percent, kept.percent);
  EXPECT_FLOAT_EQ(r.temperature_c, kept.temperature_c);
  EXPECT_EQ(r.status, kept.status);
}

}  // namespace
}  // namespace robot_edge::can
