// Command builders: the right oneof, the command-side Mode numbering, and client-side refusal of
// what the robot would silently drop or change (seed 000, "Command Validation").
#include "client/commands.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/config.hpp"

namespace robot_edge::client {
namespace {

template <typename F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<float> Joints(float value = 0.1f) { return std::vector<float>(25, value); }

TEST(Limits, SameAsTheDaemonsApiLimits) {
  EXPECT_EQ(kVxMax, static_cast<float>(config::kApiVxMax));
  EXPECT_EQ(kVyMax, static_cast<float>(config::kApiVyMax));
  EXPECT_EQ(kVyawMax, static_cast<float>(config::kApiVyawMax));
  EXPECT_EQ(kKpMax, static_cast<float>(config::kApiKpMax));
  EXPECT_EQ(kKdMax, static_cast<float>(config::kApiKdMax));
}

TEST(MakeVelocity, SetsOnlyTheVelocity) {
  const auto c = MakeVelocity(0.5f, -0.25f, 1.0f);
  ASSERT_EQ(c.command_case(), edge::CloudCommand::kVelocity);
  EXPECT_FLOAT_EQ(c.velocity().vx(), 0.5f);
  EXPECT_FLOAT_EQ(c.velocity().vy(), -0.25f);
  EXPECT_FLOAT_EQ(c.velocity().vyaw(), 1.0f);
  EXPECT_EQ(c.sequence(), 0u);
  EXPECT_EQ(c.timestamp_us(), 0u);
}

TEST(MakeMode, UsesTheCommandNumberingNotFirmwareMode) {
  const auto damp = MakeMode(edge::MODE_DAMP);
  ASSERT_EQ(damp.command_case(), edge::CloudCommand::kMode);
  EXPECT_EQ(static_cast<int>(damp.mode().mode()), 1);  // MODE_DAMP = 1, FW_MODE_DAMP = 0
  EXPECT_EQ(static_cast<int>(MakeMode(edge::MODE_STAND).mode().mode()), 0);
  // proto3 drops a 0 field on the wire, but the oneof itself is still present.
  edge::CloudCommand parsed;
  ASSERT_TRUE(parsed.ParseFromString(MakeMode(edge::MODE_STAND).SerializeAsString()));
  EXPECT_EQ(parsed.command_case(), edge::CloudCommand::kMode);
}

TEST(CheckVelocity, AcceptsTheRangeBoundsAndNamesTheAxisOutside) {
  EXPECT_EQ(CheckVelocity(2.0f, -1.0f, -2.0f), "");
  EXPECT_EQ(CheckVelocity(0, 0, 0), "");
  EXPECT_EQ(CheckVelocity(2.5f, 0, 0), "vx 2.5 m/s is outside -2..2 m/s");
  EXPECT_EQ(CheckVelocity(0, -1.5f, 0), "vy -1.5 m/s is outside -1..1 m/s");
  EXPECT_EQ(CheckVelocity(0, 0, 3.0f), "vyaw 3 rad/s is outside -2..2 rad/s");
  EXPECT_EQ(CheckVelocity(std::nanf(""), 0, 0), "vx is not a finite number");
  EXPECT_EQ(CheckVelocity(0, 0, std::numeric_limits<float>::infinity()),
            "vyaw is not a finite number");
}

TEST(MakeTrajectory, OneSegmentWithoutGainsLeavesTheRobotsDefaults) {
  const auto c = MakeTrajectory(Joints(0.3f));
  ASSERT_EQ(c.command_case(), edge::CloudCommand::kTrajectory);
  ASSERT_TRUE(c.trajectory().has_full());
  ASSERT_EQ(c.trajectory().full().segments_size(), 1);
  const auto& s = c.trajectory().full().segments(0);
  EXPECT_EQ(s.positions_size(), 25);
  EXPECT_FLOAT_EQ(s.positions(24), 0.3f);
  EXPECT_EQ(s.kp_size(), 0);
  EXPECT_EQ(s.kd_size(), 0);
}

TEST(MakeTrajectory, GainsOnePerJoint) {
  const auto kp = Joints(100.0f), kd = Joints(2.0f);
  const auto c = MakeTrajectory(Joints(), kp, kd);
  const auto& s = c.trajectory().full().segments(0);
  EXPECT_EQ(s.kp_size(), 25);
  EXPECT_EQ(s.kd_size(), 25);
  EXPECT_FLOAT_EQ(s.kp(0), 100.0f);
  EXPECT_FLOAT_EQ(s.kd(24), 2.0f);
}

TEST(MakeTrajectory, RefusesWhatTheRobotWouldDropOrIgnore) {
  const auto joints = Joints();
  const auto kp24 = std::vector<float>(24, 100.0f);
  EXPECT_EQ(ErrorOf([&] { MakeTrajectory(joints, kp24); }),
            "kp has 24 values for 25 joints: give one per joint or none (the robot's defaults)");
  auto kd = Joints(2.0f);
  kd[3] = 5.5f;
  EXPECT_EQ(ErrorOf([&] { MakeTrajectory(joints, {}, kd); }), "kd[3] = 5.5 is outside 0..5");
  auto kp = Joints(100.0f);
  kp[0] = -1.0f;
  EXPECT_EQ(ErrorOf([&] { MakeTrajectory(joints, kp); }), "kp[0] = -1 is outside 0..500");
  auto bad = Joints();
  bad[2] = std::nanf("");
  EXPECT_EQ(ErrorOf([&] { MakeTrajectory(bad); }), "position[2] is not a finite number");
  EXPECT_EQ(ErrorOf([&] { MakeTrajectory(std::vector<float>{}); }),
            "a trajectory segment needs positions");
}

TEST(MakeTrajectory, SeveralSegmentsInOrderWithTheSameGains) {
  const std::vector<std::vector<float>> segments = {Joints(0.1f), Joints(0.2f), Joints(0.3f)};
  const auto kp = Joints(50.0f);
  const auto c = MakeTrajectory(segments, kp);
  ASSERT_EQ(c.trajectory().full().segments_size(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_FLOAT_EQ(c.trajectory().full().segments(i).positions(0), 0.1f * (i + 1));
    EXPECT_EQ(c.trajectory().full().segments(i).kp_size(), 25);
  }
  const std::vector<std::vector<float>> ragged = {Joints(), std::vector<float>(24, 0.0f)};
  EXPECT_EQ(ErrorOf([&] { MakeTrajectory(ragged); }), "segment 1 has 24 positions, segment 0 25");
  EXPECT_EQ(ErrorOf([&] { MakeTrajectory(std::span<const std::vector<float>>()); }),
            "a trajectory needs at least one segment");
}

TEST(Sequencer, StampsMonotonicSequencesAndTheTimestamp) {
  Sequencer sequencer;
  auto a = MakeMode(edge::MODE_DAMP), b = MakeVelocity(0, 0, 0);
  EXPECT_EQ(sequencer.Stamp(&a, 1000), 1u);
  EXPECT_EQ(sequencer.Stamp(&b, 2000), 2u);
  EXPECT_EQ(a.sequence(), 1u);
  EXPECT_EQ(b.sequence(), 2u);
  EXPECT_EQ(b.timestamp_us(), 2000u);
  EXPECT_EQ(sequencer.last(), 2u);
}

}  // namespace
}  // namespace robot_edge::client

namespace robot_edge::client {
namespace {

TEST(MakeJointCommand, CarriesEveryField) {
  const std::vector<float> q(25, 0.1f), dq(25, 0.5f), tau(25, -0.2f), kp(25, 40.0f), kd(25, 1.0f);
  JointCommandFields f{.position = q, .velocity = dq, .torque = tau, .kp = kp, .kd = kd};
  f.end_time_us = 900;
  f.reference_time_us = 800;
  f.extrapolation_duration_us = 50;
  f.user_command_key = 7;
  f.velocity_safety_limit = 2.5f;
  const edge::JointCommand c = MakeJointCommand(f);
  EXPECT_EQ(c.position_size(), 25);
  EXPECT_FLOAT_EQ(c.velocity(3), 0.5f);
  EXPECT_FLOAT_EQ(c.torque(3), -0.2f);
  EXPECT_FLOAT_EQ(c.kp(3), 40.0f);
  EXPECT_FLOAT_EQ(c.kd(3), 1.0f);
  EXPECT_EQ(c.end_time_us(), 900);
  EXPECT_EQ(c.reference_time_us(), 800);
  EXPECT_EQ(c.extrapolation_duration_us(), 50u);
  EXPECT_EQ(c.user_command_key(), 7u);
  EXPECT_FLOAT_EQ(c.velocity_safety_limit(), 2.5f);
  Sequencer s(41);
  edge::JointCommand stamped = c;
  EXPECT_EQ(s.Stamp(&stamped, 123), 41u);
  EXPECT_EQ(stamped.sequence(), 41u);
  EXPECT_EQ(stamped.timestamp_us(), 123u);
}

TEST(MakeJointCommand, RefusesWhatTheRobotWouldDrop) {
  const std::vector<float> q(25, 0.1f), three(3, 1.0f), kp(25, 40.0f), kd(25, 1.0f);
  const std::vector<float> kp600(25, 600.0f);
  std::vector<float> nan_q = q;
  nan_q[4] = std::numeric_limits<float>::quiet_NaN();
  const auto make = [](JointCommandFields f) {
    if (f.end_time_us == 0) f.end_time_us = 10;
    return MakeJointCommand(f);
  };
  EXPECT_NO_THROW(make({.position = q}));
  EXPECT_THROW(make({.position = {}}), std::invalid_argument);
  EXPECT_THROW(make({.position = nan_q}), std::invalid_argument);
  EXPECT_THROW(make({.position = q, .velocity = three}), std::invalid_argument);
  EXPECT_THROW(make({.position = q, .kp = kp}), std::invalid_argument);  // kp without kd
  JointCommandFields no_end{.position = q};
  EXPECT_THROW(MakeJointCommand(no_end), std::invalid_argument);
  JointCommandFields bad_limit{.position = q};
  bad_limit.end_time_us = 10;
  bad_limit.velocity_safety_limit = -1.0f;
  EXPECT_THROW(MakeJointCommand(bad_limit), std::invalid_argument);
  try {
    make({.position = q, .kp = kp600, .kd = kd});
    FAIL() << "kp 600 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("kp[0]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace robot_edge::client
