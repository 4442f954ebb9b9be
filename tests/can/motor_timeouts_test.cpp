// SetMotorCanTimeouts over FakeTransport: which motors are told (damiao and robstride with a
// non-zero can_timeout_ms, never ak), what goes on each bus (the write before the read), how the
// answers are judged (confirmed, wrong value, silent), and that nothing is left for the scheduler.
#include "can/motor_timeouts.hpp"

#include <gtest/gtest.h>

#include "can/fake_transport.hpp"
#include "can/motor_protocol.hpp"
#include "config/library_options.hpp"
#include "test_config.hpp"

namespace robot_edge::can {
namespace {

constexpr std::size_t kLKnee = 3, kRKnee = 9;

// The default robot with a Damiao L_Knee (100 ms) and a Robstride R_Knee (40 ms).
config::Config MixedConfig() {
  config::Config c = test::DefaultConfig();
  config::MotorModel dm = c.motor_of(kLKnee), rs = c.motor_of(kRKnee);
  dm.name = "dm", dm.family = config::MotorFamily::kDamiao, dm.can_timeout_ms = 100;
  rs.name = "rs", rs.family = config::MotorFamily::kRobstride, rs.can_timeout_ms = 40;
  c.motors.push_back(dm);
  c.joints[kLKnee].motor = c.motors.size() - 1;
  c.motors.push_back(rs);
  c.joints[kRKnee].motor = c.motors.size() - 1;
  return c;
}

std::vector<std::string> Interfaces(const config::Config& c) {
  std::vector<std::string> names;
  for (const auto& bus : c.buses) names.push_back(bus.interface);
  return names;
}

// The motor of `joint` answering a read with `ms`.
void Answer(const config::Config& c, FakeTransport* t, std::size_t joint, std::uint32_t ms) {
  const auto& j = c.joints[joint];
  can_frame reply{};
  ASSERT_TRUE(EncodeCanTimeoutReply(ProtocolOf(c.motor_of(joint)), j.can_id,
                                    c.buses[j.bus].master_id, false, ms, &reply));
  t->Inject(static_cast<std::uint32_t>(j.bus), reply);
}

TEST(MotorCanTimeouts, TellsOnlyTheFamiliesThatTakeItWriteThenRead) {
  const config::Config c = MixedConfig();
  FakeTransport t(Interfaces(c));
  Answer(c, &t, kLKnee, 100);
  Answer(c, &t, kRKnee, 40);
  const auto results = SetMotorCanTimeouts(config::WiringOf(c), t, 50'000);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].confirmed()) << Describe(config::WiringOf(c), results[0]);
  EXPECT_TRUE(results[1].confirmed()) << Describe(config::WiringOf(c), results[1]);
  EXPECT_EQ(t.sent_count(), 4u) << "a write and a read for each, nothing to the AK motors";
  const auto& left = t.sent(c.joints[kLKnee].bus);
  ASSERT_EQ(left.size(), 2u);
  CanTimeoutRequest first, second;
  const auto dm = ProtocolOf(c.motor_of(kLKnee));
  ASSERT_TRUE(DecodeCanTimeoutRequest(dm, c.joints[kLKnee].can_id, left[0], &first));
  ASSERT_TRUE(DecodeCanTimeoutRequest(dm, c.joints[kLKnee].can_id, left[1], &second));
  EXPECT_TRUE(first.write);
  EXPECT_EQ(first.timeout_ms, 100u);
  EXPECT_FALSE(second.write);
  EXPECT_NE(Describe(config::WiringOf(c), results[0]).find("L_Knee"), std::string::npos);
}

TEST(MotorCanTimeouts, AWrongValueAndASilentMotorAreNotConfirmedAndNamed) {
  const config::Config c = MixedConfig();
  FakeTransport t(Interfaces(c));
  Answer(c, &t, kLKnee, 0);  // kept its factory setting: off
  const auto results = SetMotorCanTimeouts(config::WiringOf(c), t, 20'000);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_FALSE(results[0].confirmed());
  EXPECT_TRUE(results[0].answered);
  EXPECT_NE(Describe(config::WiringOf(c), results[0]).find("reports 0 ms"), std::string::npos)
      << Describe(config::WiringOf(c), results[0]);
  EXPECT_FALSE(results[1].answered);
  EXPECT_NE(Describe(config::WiringOf(c), results[1]).find("did not answer"), std::string::npos)
      << Describe(config::WiringOf(c), results[1]);
}

TEST(MotorCanTimeouts, LeavesNothingOnTheBusesForTheScheduler) {
  const config::Config c = MixedConfig();
  FakeTransport t(Interfaces(c));
  Answer(c, &t, kLKnee, 100);
  Answer(c, &t, kRKnee, 40);
  can_frame stray{};
  stray.can_id = c.buses[0].master_id;
  stray.len = 8;
  t.Inject(0, stray);
  (void)SetMotorCanTimeouts(config::WiringOf(c), t, 50'000);
  BusFrame rx[4];
  EXPECT_EQ(t.Receive(rx), 0u);
}

TEST(MotorCanTimeouts, AnAllAkRobotIsToldNothing) {
  const config::Config& c = test::DefaultConfig();
  FakeTransport t(Interfaces(c));
  EXPECT_TRUE(SetMotorCanTimeouts(config::WiringOf(c), t, 50'000).empty());
  EXPECT_EQ(t.sent_count(), 0u);
}

}  // namespace
}  // namespace robot_edge::can
