// Every family behind one interface: what the host sends, what the motor answers, and that each
// side decodes the other's frames (the scheduler and the simulator share nothing else).
#include "can/motor_protocol.hpp"

#include <gtest/gtest.h>

namespace robot_edge::can {
namespace {

MotorProtocol Protocol(config::MotorFamily family) {
  config::MotorModel m;
  m.family = family;
  m.t_max_nm = 12;
  m.v_max_rad_s = 30;
  return ProtocolOf(m);
}

constexpr config::MotorFamily kFamilies[] = {config::MotorFamily::kAk, config::MotorFamily::kDamiao,
                                             config::MotorFamily::kRobstride};

TEST(MotorProtocol, CommandsReachTheMotorOfEveryFamily) {
  for (const auto family : kFamilies) {
    const MotorProtocol p = Protocol(family);
    const can_frame f = EncodeCommandFrame(p, 5, 0, {0.4f, -1.0f, 30.0f, 1.5f, 2.0f});
    std::uint32_t id = 0;
    ASSERT_TRUE(Addressee(family, f, &id)) << config::ToString(family);
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
      if (family == config::MotorFamily::kAk && request == MotorRequest::kClearFault) {
        EXPECT_FALSE(exists) << "AK motors have no clear-fault frame";
        continue;
      }
      ASSERT_TRUE(exists);
      HostFrame host;
      ASSERT_TRUE(DecodeHostFrame(p, f, &host))
          << config::ToString(family) << " " << ToString(request);
      EXPECT_FALSE(host.is_command);
      EXPECT_EQ(host.request, request) << config::ToString(family);
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
    ASSERT_TRUE(ReplySender(family, 0x10, f, &sender)) << config::ToString(family);
    EXPECT_EQ(sender, 6u);
    EXPECT_FALSE(ReplySender(family, 0x11, f, &sender)) << "another master's";
    MotorReply out;
    ASSERT_TRUE(DecodeReplyFrame(p, f, &out));
    EXPECT_NEAR(out.position_rad, -0.75f, 1e-3f);
    EXPECT_NEAR(out.velocity_rad_s, 2.0f, 0.02f);
    EXPECT_NEAR(out.torque_nm, -1.0f, 0.01f);
    EXPECT_NEAR(out.temperature_c, 55.0f, 0.1f);
    EXPECT_TRUE(out.has_temperature);
    EXPECT_EQ(out.error, MotorError::kOvertemp) << config::ToString(family);
  }
}

TEST(MotorProtocol, AClassicAkReplyHasNoTemperatureNorFault) {
  config::MotorModel m;
  m.reply = config::ReplyFormat::kClassic6Byte;
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
  const MotorProtocol p = Protocol(config::MotorFamily::kDamiao);
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

}  // namespace
}  // namespace robot_edge::can
