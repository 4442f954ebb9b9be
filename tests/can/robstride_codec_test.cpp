// Robstride / CyberGear operation control: golden 29-bit ids and data, the fault bits mapped to
// the alerts' MotorError, requests, and what is not such a frame.
#include "can/robstride_codec.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "hex.hpp"

namespace robot_edge::can::robstride {
namespace {

using test::Hexify;

// CyberGear: angle ±4π, velocity ±30 rad/s, torque ±12 N·m, kp 0..500, kd 0..5.
constexpr MitRanges kCyberGear{4.0f * static_cast<float>(M_PI), 30.0f, 12.0f, 500.0f, 5.0f};

std::string Data(const can_frame& f) {
  return Hexify(std::span<const std::uint8_t>(f.data, f.len));
}

TEST(RobstrideCodec, OperationControlGoldenFrame) {
  // Torque 0 -> round(32767.5) = 0x8000 in bits 23..8; type 1; motor 0x7F.
  // Angle 0 and velocity 0 -> 0x8000; kp 0 -> 0; kd 5 -> 0xFFFF.
  const can_frame f = EncodeOperationControl(0x7F, {0, 0, 0, 5.0f, 0}, kCyberGear);
  EXPECT_EQ(f.can_id, CAN_EFF_FLAG | 0x0180007Fu);
  EXPECT_EQ(Data(f), "800080000000ffff");
}

TEST(RobstrideCodec, OperationControlRoundTripsAndClampsNaNToZero) {
  const MitCommand in{1.5f, -3.0f, 40.0f, 1.25f, -2.0f};
  std::uint8_t id = 0;
  MitCommand out;
  ASSERT_TRUE(
      DecodeOperationControl(EncodeOperationControl(9, in, kCyberGear), kCyberGear, &id, &out));
  EXPECT_EQ(id, 9);
  EXPECT_NEAR(out.position_rad, 1.5f, 8 * M_PI / 65535);
  EXPECT_NEAR(out.velocity_rad_s, -3.0f, 60.0f / 65535);
  EXPECT_NEAR(out.kp, 40.0f, 500.0f / 65535);
  EXPECT_NEAR(out.kd, 1.25f, 5.0f / 65535);
  EXPECT_NEAR(out.torque_nm, -2.0f, 24.0f / 65535);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ASSERT_TRUE(DecodeOperationControl(
      EncodeOperationControl(9, {nan, nan, nan, nan, nan}, kCyberGear), kCyberGear, &id, &out));
  EXPECT_NEAR(out.kp, 0.0f, 1e-6f);
  EXPECT_NEAR(out.kd, 0.0f, 1e-6f);
  EXPECT_NEAR(out.torque_nm, 0.0f, 24.0f / 65535);
}

TEST(RobstrideCodec, FeedbackGoldenFrame) {
  // Type 2, mode 2 (run), no fault, motor 0x7F: data area 2 = 2 << 14 | 0x7F = 0x807F; host 0xFD.
  // Temperature 30.5 °C -> 305 = 0x0131.
  const can_frame f = EncodeFeedback({0x7F, 0xFD, 0, 2, 0, 0, 0, 30.5f}, kCyberGear);
  EXPECT_EQ(f.can_id, CAN_EFF_FLAG | 0x02807FFDu);
  EXPECT_EQ(Data(f), "8000800080000131");
}

TEST(RobstrideCodec, FeedbackDecodesFaultsModeAndTemperature) {
  can_frame f{};
  f.can_id = CAN_EFF_FLAG | (2u << 24) | (((1u << 14) | (0x04u << 8) | 0x21u) << 8) | 0x00;
  f.len = 8;
  const std::uint8_t data[] = {0xFF, 0xFF, 0x00, 0x00, 0x80, 0x00, 0x02, 0x9E};
  std::copy(data, data + 8, f.data);
  Feedback fb;
  ASSERT_TRUE(DecodeFeedback(f, kCyberGear, &fb));
  EXPECT_EQ(fb.motor_id, 0x21);
  EXPECT_EQ(fb.host_id, 0x00);
  EXPECT_EQ(fb.mode, 1);
  EXPECT_EQ(fb.fault_bits, 0x04);
  EXPECT_NEAR(fb.position_rad, 4 * M_PI, 1e-5);
  EXPECT_NEAR(fb.velocity_rad_s, -30.0f, 1e-5);
  EXPECT_NEAR(fb.torque_nm, 0.0f, 24.0f / 65535);
  EXPECT_FLOAT_EQ(fb.temperature_c, 67.0f);  // 0x029E = 670
  EXPECT_EQ(ErrorOf(fb.fault_bits), MotorError::kOvertemp);
}

TEST(RobstrideCodec, RequestsCarryTheHostInDataArea2) {
  EXPECT_EQ(EncodeRequest(Request::kEnable, 0x7F, 0xFD).can_id, CAN_EFF_FLAG | 0x0300FD7Fu);
  const can_frame stop = EncodeRequest(Request::kStop, 0x7F, 0xFD, /*clear_fault=*/true);
  EXPECT_EQ(stop.can_id, CAN_EFF_FLAG | 0x0400FD7Fu);
  EXPECT_EQ(Data(stop), "0100000000000000");
  const can_frame zero = EncodeRequest(Request::kSetZero, 0x7F, 0xFD);
  EXPECT_EQ(zero.can_id, CAN_EFF_FLAG | 0x0600FD7Fu);
  EXPECT_EQ(zero.data[0], 1);
  Request r;
  std::uint8_t motor = 0, host = 0;
  bool clear = false;
  ASSERT_TRUE(DecodeRequest(stop, &r, &motor, &host, &clear));
  EXPECT_EQ(r, Request::kStop);
  EXPECT_EQ(motor, 0x7F);
  EXPECT_EQ(host, 0xFD);
  EXPECT_TRUE(clear);
  ASSERT_TRUE(DecodeRequest(EncodeRequest(Request::kStop, 1, 2), &r, &motor, &host, &clear));
  EXPECT_FALSE(clear);
}

TEST(RobstrideCodec, StandardShortAndOtherTypeFramesAreNotFeedback) {
  can_frame f = EncodeFeedback({1, 0, 0, 2, 0, 0, 0, 20}, kCyberGear);
  Feedback fb;
  can_frame standard = f;
  standard.can_id &= ~CAN_EFF_FLAG;
  EXPECT_FALSE(DecodeFeedback(standard, kCyberGear, &fb));
  can_frame short_frame = f;
  short_frame.len = 6;
  EXPECT_FALSE(DecodeFeedback(short_frame, kCyberGear, &fb));
  const can_frame command = EncodeOperationControl(1, {}, kCyberGear);
  EXPECT_FALSE(DecodeFeedback(command, kCyberGear, &fb));
  std::uint8_t id;
  MitCommand c;
  EXPECT_FALSE(DecodeOperationControl(f, kCyberGear, &id, &c));
}

TEST(RobstrideCodec, EveryFaultBitMapsToAnAlertCode) {
  EXPECT_EQ(ErrorOf(0x00), MotorError::kNone);
  EXPECT_EQ(ErrorOf(0x01), MotorError::kUndervoltage);
  EXPECT_EQ(ErrorOf(0x02), MotorError::kOvercurrent);
  EXPECT_EQ(ErrorOf(0x04), MotorError::kOvertemp);
  EXPECT_EQ(ErrorOf(0x08), MotorError::kEncoder);
  EXPECT_EQ(ErrorOf(0x10), MotorError::kEncoder);
  EXPECT_EQ(ErrorOf(0x20), MotorError::kUncalibrated);
  EXPECT_EQ(ErrorOf(0x03), MotorError::kOvercurrent) << "the most serious first";
}

}  // namespace
}  // namespace robot_edge::can::robstride
