// Every family behind one interface: what the host sends, what the motor answers, and that each
// side decodes the other's frames (the scheduler and the simulator share nothing else).
#include "can/motor_protocol.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace robot_edge::can {
namespace {

MotorProtocol Protocol(MotorFamily family) {
  MotorModel m;
  m.family = family;
  m.t_max_nm = 12;
  m.v_max_rad_s = 30;
  return ProtocolOf(m);
}

constexpr MotorFamily kFamilies[] = {MotorFamily::kAk, MotorFamily::kDamiao,
                                     MotorFamily::kRobstride};

TEST(MotorProtocol, CommandsReachTheMotorOfEveryFamily) {
  for (const auto family : kFamilies) {
    const MotorProtocol p = Protocol(family);
    const can_frame f = EncodeCommandFrame(p, 5, 0, {0.4f, -1.0f, 30.0f, 1.5f, 2.0f});
    std::uint32_t id = 0;
    ASSERT_TRUE(Addressee(family, f, &id)) << ToString(family);
    EXPECT_EQ(id, 5u);
    HostFrame host;
    ASSERT_TRUE(DecodeHostFrame(p, f, &host));
    ASSERT_TRUE(host.is_command);
    EXPECT_NEAR(host.command.position_rad, 0.4f, 1e-3f);
    EXPECT_NEAR(host.command.velocity_rad_s, -1.0f, 0.02f);
    EXPECT_NEAR(host.command.kp, 30.0f, 0.15f);
    EXPECT_NEAR(host.command.kd, 1.5f, 0.01f);
    EXPECT_NEAR(host.command.torque_nm, 2.0f, 0.01f);
  }
}

TEST(MotorProtocol, RequestsOfEveryFamily) {
  for (const auto family : kFamilies) {
    const MotorProtocol p = Protocol(family);
    for (const auto request : {MotorRequest::kEnable, MotorRequest::kDisable,
                               MotorRequest::kSetZero, MotorRequest::kClearFault}) {
      can_frame f;
      const bool exists = EncodeRequestFrame(p, 7, 0, request, &f);
      if (family == MotorFamily::kAk && request == MotorRequest::kClearFault) {
        EXPECT_FALSE(exists) << "AK motors have no clear-fault frame";
        continue;
      }
      ASSERT_TRUE(exists);
      HostFrame host;
      ASSERT_TRUE(DecodeHostFrame(p, f, &host)) << ToString(family) << " " << ToString(request);
      EXPECT_FALSE(host.is_command);
      EXPECT_EQ(host.request, request) << ToString(family);
    }
  }
}

TEST(MotorProtocol, RepliesOfEveryFamilyNameTheirSenderAndDecode) {
  for (const auto family : kFamilies) {
    const MotorProtocol p = Protocol(family);
    MotorReply r;
    r.motor_id = 6;
    r.position_rad = -0.75f;
    r.velocity_rad_s = 2.0f;
    r.torque_nm = -1.0f;
    r.temperature_c = 55;
    r.error = MotorError::kOvertemp;
    const can_frame f = EncodeReplyFrame(p, 0x10, r);
    std::uint32_t sender = 0;
    ASSERT_TRUE(ReplySender(family, 0x10, f, &sender)) << ToString(family);
    EXPECT_EQ(sender, 6u);
    EXPECT_FALSE(ReplySender(family, 0x11, f, &sender)) << "another master's";
    MotorReply out;
    ASSERT_TRUE(DecodeReplyFrame(p, f, &out));
    EXPECT_NEAR(out.position_rad, -0.75f, 1e-3f);
    EXPECT_NEAR(out.velocity_rad_s, 2.0f, 0.02f);
    EXPECT_NEAR(out.torque_nm, -1.0f, 0.01f);
    EXPECT_NEAR(out.temperature_c, 55.0f, 0.1f);
    EXPECT_TRUE(out.has_temperature);
    EXPECT_EQ(out.error, MotorError::kOvertemp) << ToString(family);
  }
}

TEST(MotorProtocol, AClassicAkReplyHasNoTemperatureNorFault) {
  MotorModel m;
  m.reply = ReplyFormat::kClassic6Byte;
  const MotorProtocol p = ProtocolOf(m);
  MotorReply r;
  r.motor_id = 2;
  r.temperature_c = 70;
  const can_frame f = EncodeReplyFrame(p, 0, r);
  EXPECT_EQ(f.len, 6);
  MotorReply out;
  ASSERT_TRUE(DecodeReplyFrame(p, f, &out));
  EXPECT_FALSE(out.has_temperature);
  EXPECT_EQ(out.error, MotorError::kNone);
}

TEST(MotorProtocol, ADamiaoReplySaysWhetherTheMotorIsEnabled) {
  const MotorProtocol p = Protocol(MotorFamily::kDamiao);
  MotorReply r;
  r.motor_id = 3;
  r.enabled = false;
  MotorReply out;
  ASSERT_TRUE(DecodeReplyFrame(p, EncodeReplyFrame(p, 0, r), &out));
  EXPECT_FALSE(out.enabled);
  r.enabled = true;
  ASSERT_TRUE(DecodeReplyFrame(p, EncodeReplyFrame(p, 0, r), &out));
  EXPECT_TRUE(out.enabled);
  EXPECT_EQ(out.raw_fault, 1u);
}

// The CAN-loss timeout: golden frames from the vendors' layouts (Damiao register 9 in 50 µs
// units at id 0x7FF, the reply on MST_ID; Robstride parameter 0x7028 in 20 counts a ms, types 17
// and 18), and the motor's side decoding what the host's side encodes.
TEST(CanTimeout, DamiaoWritesRegisterNineIn50MicrosecondUnits) {
  const MotorProtocol p = Protocol(MotorFamily::kDamiao);
  can_frame f{};
  ASSERT_TRUE(EncodeCanTimeoutWrite(p, 4, 0x10, 100, &f));
  EXPECT_EQ(f.can_id, 0x7FFu);  // standard id, no flags
  EXPECT_EQ(f.len, 8);
  // id 4 (LE), write 0x55, RID 9, 100 ms = 2000 = 0x07D0 (LE).
  const std::uint8_t want[] = {0x04, 0x00, 0x55, 0x09, 0xD0, 0x07, 0x00, 0x00};
  EXPECT_TRUE(std::equal(want, want + 8, f.data));
  ASSERT_TRUE(EncodeCanTimeoutRead(p, 4, 0x10, &f));
  EXPECT_EQ(f.data[2], 0x33);
  EXPECT_EQ(f.data[3], 0x09);
}

TEST(CanTimeout, RobstrideWritesParameter7028In20CountsAMillisecond) {
  const MotorProtocol p = Protocol(MotorFamily::kRobstride);
  can_frame f{};
  ASSERT_TRUE(EncodeCanTimeoutWrite(p, 0x7F, 0xFD, 100, &f));
  // Type 18, data area 2 = host 0xFD, target 0x7F; index 0x7028 LE; 2000 counts LE in bytes 4-7.
  EXPECT_EQ(f.can_id, CAN_EFF_FLAG | 0x1200FD7Fu);
  const std::uint8_t want[] = {0x28, 0x70, 0x00, 0x00, 0xD0, 0x07, 0x00, 0x00};
  EXPECT_TRUE(std::equal(want, want + 8, f.data));
  ASSERT_TRUE(EncodeCanTimeoutRead(p, 0x7F, 0xFD, &f));
  EXPECT_EQ(f.can_id, CAN_EFF_FLAG | 0x1100FD7Fu);
  EXPECT_EQ(f.data[4], 0);  // a read carries no value
}

TEST(CanTimeout, AkFirmwareTakesNoTimeoutOverCan) {
  can_frame f{};
  EXPECT_FALSE(HasCanTimeoutSetting(MotorFamily::kAk));
  EXPECT_FALSE(EncodeCanTimeoutWrite(Protocol(MotorFamily::kAk), 1, 0, 100, &f));
}

TEST(CanTimeout, EachFamilysMotorSideDecodesTheRequestAndTheHostDecodesTheReply) {
  for (auto family : {MotorFamily::kDamiao, MotorFamily::kRobstride}) {
    const MotorProtocol p = Protocol(family);
    can_frame request{};
    ASSERT_TRUE(EncodeCanTimeoutWrite(p, 5, 0x01, 250, &request));
    std::uint32_t motor_id = 0;
    ASSERT_TRUE(Addressee(family, request, &motor_id));
    EXPECT_EQ(motor_id, 5u);
    HostFrame host;
    EXPECT_FALSE(DecodeHostFrame(p, request, &host)) << "a register write is not a command";
    CanTimeoutRequest decoded;
    ASSERT_TRUE(DecodeCanTimeoutRequest(p, 5, request, &decoded));
    EXPECT_TRUE(decoded.write);
    EXPECT_EQ(decoded.timeout_ms, 250u);
    EXPECT_FALSE(DecodeCanTimeoutRequest(p, 6, request, &decoded)) << "another motor's";

    can_frame reply{};
    ASSERT_TRUE(EncodeCanTimeoutReply(p, 5, 0x01, /*to_write=*/false, 250, &reply));
    std::uint32_t ms = 0;
    ASSERT_TRUE(DecodeCanTimeoutReply(family, 0x01, reply, &motor_id, &ms));
    EXPECT_EQ(motor_id, 5u);
    EXPECT_EQ(ms, 250u);
    EXPECT_FALSE(DecodeCanTimeoutReply(family, 0x02, reply, &motor_id, &ms))
        << "a reply to another master";
  }
}

}  // namespace
}  // namespace robot_edge::can
