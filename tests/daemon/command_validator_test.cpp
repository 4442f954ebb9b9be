// Seed 000's "Command Validation" table, row by row, and the KP/KD all-or-nothing rule.
#include "daemon/api/command_validator.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace robot_edge::daemon {
namespace {

using sm::CommandKind;
using sm::ModeRequest;
using sm::Reason;

const config::Config& DefaultConfig() {
  static const config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  return c;
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

class Validation : public testing::Test {
 protected:
  std::optional<Reason> Run(const edge::CloudCommand& in) {
    return validator_.Validate(in, 1234, 1200, &trajectory_, &out_, &counters_);
  }
  static edge::CloudCommand Velocity(float vx, float vy, float vyaw) {
    edge::CloudCommand c;
    c.set_sequence(7);
    c.mutable_velocity()->set_vx(vx);
    c.mutable_velocity()->set_vy(vy);
    c.mutable_velocity()->set_vyaw(vyaw);
    return c;
  }
  // A trajectory whose segments each hold `n` positions equal to `value`.
  static edge::CloudCommand Trajectory(int segments, int n, float value = 0.0f) {
    edge::CloudCommand c;
    auto* full = c.mutable_trajectory()->mutable_full();
    for (int s = 0; s < segments; ++s) {
      auto* seg = full->add_segments();
      for (int j = 0; j < n; ++j) seg->add_positions(value);
    }
    return c;
  }
  static void SetGains(edge::CloudCommand* c, int kp_count, float kp, int kd_count, float kd) {
    auto* seg = c->mutable_trajectory()->mutable_full()->mutable_segments(0);
    for (int j = 0; j < kp_count; ++j) seg->add_kp(kp);
    for (int j = 0; j < kd_count; ++j) seg->add_kd(kd);
  }

  CommandValidator validator_{DefaultConfig(), config::BuildJointTable(DefaultConfig())};
  sm::Trajectory trajectory_{25, 256};
  sm::Command out_;
  sm::Counters counters_;
};

// ---- VelocityCommand: dropped when any of vx, vy, vyaw is non-finite. ----

TEST_F(Validation, VelocityWithAnyNonFiniteComponentIsDropped) {
  for (const auto& c : {Velocity(kNaN, 0, 0), Velocity(0, kNaN, 0), Velocity(0, 0, kNaN),
                        Velocity(kInf, 0, 0), Velocity(0, -kInf, 0), Velocity(0, 0, kInf)}) {
    EXPECT_EQ(Run(c), Reason::kVelocityNonFinite);
  }
  EXPECT_EQ(counters_[Reason::kVelocityNonFinite], 6u);
}

TEST_F(Validation, VelocityOutsideTheRangesIsClampedNotDropped) {
  ASSERT_EQ(Run(Velocity(3.0f, -1.5f, 9.0f)), std::nullopt);
  EXPECT_EQ(out_.kind, CommandKind::kVelocity);
  EXPECT_FLOAT_EQ(out_.velocity.vx, 2.0f);
  EXPECT_FLOAT_EQ(out_.velocity.vy, -1.0f);
  EXPECT_FLOAT_EQ(out_.velocity.vyaw, 2.0f);
  EXPECT_EQ(counters_[Reason::kVelocityClamped], 1u);
  ASSERT_EQ(Run(Velocity(-2.5f, 0, -2.01f)), std::nullopt);
  EXPECT_FLOAT_EQ(out_.velocity.vx, -2.0f);
  EXPECT_FLOAT_EQ(out_.velocity.vyaw, -2.0f);
}

TEST_F(Validation, VelocityInsideTheRangesIsUntouched) {
  ASSERT_EQ(Run(Velocity(2.0f, -1.0f, 0.3f)), std::nullopt);
  EXPECT_FLOAT_EQ(out_.velocity.vx, 2.0f);
  EXPECT_FLOAT_EQ(out_.velocity.vy, -1.0f);
  EXPECT_FLOAT_EQ(out_.velocity.vyaw, 0.3f);
  EXPECT_EQ(counters_[Reason::kVelocityClamped], 0u);
  EXPECT_EQ(out_.sequence, 7u);
  EXPECT_EQ(out_.received_us, 1234);
}

TEST_F(Validation, VelocityLimitsComeFromTheConfig) {
  config::Config c = DefaultConfig();
  c.velocity.vx_max = 0.5;
  CommandValidator v(c, config::BuildJointTable(c));
  ASSERT_EQ(v.Validate(Velocity(1.0f, 0, 0), 0, 0, &trajectory_, &out_, &counters_), std::nullopt);
  EXPECT_FLOAT_EQ(out_.velocity.vx, 0.5f);
}

// ---- TrajectoryRequest: dropped on length != 25, non-finite, no segments, `id` source. ----

TEST_F(Validation, TrajectoryOfTwentyFivePositionsIsAccepted) {
  ASSERT_EQ(Run(Trajectory(3, 25, 0.1f)), std::nullopt);
  EXPECT_EQ(out_.kind, CommandKind::kTrajectory);
  EXPECT_EQ(out_.trajectory, &trajectory_);
  EXPECT_EQ(trajectory_.segments(), 3u);
  EXPECT_FLOAT_EQ(trajectory_.positions(2)[24], 0.1f);
}

TEST_F(Validation, TrajectoryWithPositionsNotTwentyFiveLongIsDropped) {
  for (int n : {0, 1, 24, 26, 50})
    EXPECT_EQ(Run(Trajectory(1, n)), Reason::kTrajectoryBadLength) << n;
  auto mixed = Trajectory(2, 25);
  mixed.mutable_trajectory()->mutable_full()->mutable_segments(1)->add_positions(0);  // 26
  EXPECT_EQ(Run(mixed), Reason::kTrajectoryBadLength) << "one bad segment drops the request";
  EXPECT_EQ(counters_[Reason::kTrajectoryBadLength], 6u);
}

TEST_F(Validation, TrajectoryWithANonFinitePositionIsDropped) {
  for (float bad : {kNaN, kInf, -kInf}) {
    auto c = Trajectory(2, 25);
    c.mutable_trajectory()->mutable_full()->mutable_segments(1)->set_positions(13, bad);
    EXPECT_EQ(Run(c), Reason::kTrajectoryNonFinite);
  }
}

TEST_F(Validation, TrajectoryWithoutSegmentsIsDropped) {
  EXPECT_EQ(Run(Trajectory(0, 25)), Reason::kTrajectoryNoSegments);
}

TEST_F(Validation, TrajectoryUsingTheLutIdSourceIsDropped) {
  edge::CloudCommand c;
  c.mutable_trajectory()->set_id("wave");
  EXPECT_EQ(Run(c), Reason::kTrajectoryLutId);
  edge::CloudCommand none;
  none.mutable_trajectory();
  EXPECT_EQ(Run(none), Reason::kTrajectoryNoSource);
}

TEST_F(Validation, TrajectoryLongerThanMaxSegmentsIsDropped) {
  ASSERT_EQ(DefaultConfig().control.max_segments, 100u);  // 200 ms at 500 Hz: the watchdog's
  EXPECT_EQ(Run(Trajectory(101, 25)), Reason::kTrajectoryTooLong);
  EXPECT_EQ(Run(Trajectory(100, 25)), std::nullopt);
}

TEST_F(Validation, TrajectoryPositionsAreClampedToTheJointLimits) {
  auto c = Trajectory(1, 25);
  c.mutable_trajectory()->mutable_full()->mutable_segments(0)->set_positions(3, 5.0f);  // knee
  c.mutable_trajectory()->mutable_full()->mutable_segments(0)->set_positions(3 + 6, -1.0f);
  ASSERT_EQ(Run(c), std::nullopt);
  EXPECT_FLOAT_EQ(trajectory_.positions(0)[3], 2.4f);
  EXPECT_FLOAT_EQ(trajectory_.positions(0)[9], 0.0f);
  EXPECT_EQ(counters_[Reason::kPositionClamped], 1u);
}

// ---- KP/KD: exactly 25 values or the edge defaults (all-or-nothing). ----

TEST_F(Validation, GainsOmittedUseTheDefaultsSilently) {
  ASSERT_EQ(Run(Trajectory(1, 25)), std::nullopt);
  for (std::size_t j = 0; j < 25; ++j) {
    EXPECT_FLOAT_EQ(trajectory_.kp(0)[j], DefaultConfig().joints[j].kp);
    EXPECT_FLOAT_EQ(trajectory_.kd(0)[j], DefaultConfig().joints[j].kd);
  }
  EXPECT_EQ(counters_[Reason::kGainsDefaulted], 0u);
}

TEST_F(Validation, TwentyFiveGainsAreUsed) {
  auto c = Trajectory(1, 25);
  SetGains(&c, 25, 123.0f, 25, 1.5f);
  ASSERT_EQ(Run(c), std::nullopt);
  for (std::size_t j = 0; j < 25; ++j) {
    EXPECT_FLOAT_EQ(trajectory_.kp(0)[j], 123.0f);
    EXPECT_FLOAT_EQ(trajectory_.kd(0)[j], 1.5f);
  }
}

TEST_F(Validation, PartialGainsFallBackToTheDefaults) {
  for (int n : {1, 23, 24, 26}) {
    auto c = Trajectory(1, 25);
    SetGains(&c, n, 321.0f, n, 4.9f);
    ASSERT_EQ(Run(c), std::nullopt) << "partial gains never drop the trajectory";
    for (std::size_t j = 0; j < 25; ++j) {
      EXPECT_FLOAT_EQ(trajectory_.kp(0)[j], DefaultConfig().joints[j].kp) << n;
      EXPECT_FLOAT_EQ(trajectory_.kd(0)[j], DefaultConfig().joints[j].kd) << n;
    }
  }
  EXPECT_EQ(counters_[Reason::kGainsDefaulted], 8u);
}

TEST_F(Validation, KpAndKdAreJudgedSeparately) {
  auto c = Trajectory(1, 25);
  SetGains(&c, 25, 90.0f, 24, 4.0f);
  ASSERT_EQ(Run(c), std::nullopt);
  EXPECT_FLOAT_EQ(trajectory_.kp(0)[0], 90.0f);
  EXPECT_FLOAT_EQ(trajectory_.kd(0)[0], DefaultConfig().joints[0].kd);
}

TEST_F(Validation, GainsAreClampedToTheirRanges) {
  auto c = Trajectory(1, 25);
  SetGains(&c, 25, 700.0f, 25, -1.0f);
  ASSERT_EQ(Run(c), std::nullopt);
  EXPECT_FLOAT_EQ(trajectory_.kp(0)[0], 500.0f);
  EXPECT_FLOAT_EQ(trajectory_.kd(0)[0], 0.0f);
  auto d = Trajectory(1, 25);
  SetGains(&d, 25, -5.0f, 25, 6.0f);
  ASSERT_EQ(Run(d), std::nullopt);
  EXPECT_FLOAT_EQ(trajectory_.kp(0)[0], 0.0f);
  EXPECT_FLOAT_EQ(trajectory_.kd(0)[0], 5.0f);
  EXPECT_EQ(counters_[Reason::kGainsClamped], 4u);
}

TEST_F(Validation, NonFiniteGainsFallBackToTheDefaults) {
  auto c = Trajectory(1, 25);
  SetGains(&c, 25, 100.0f, 0, 0);
  c.mutable_trajectory()->mutable_full()->mutable_segments(0)->set_kp(4, kNaN);
  ASSERT_EQ(Run(c), std::nullopt);
  EXPECT_FLOAT_EQ(trajectory_.kp(0)[0], DefaultConfig().joints[0].kp);
  EXPECT_EQ(counters_[Reason::kGainsNonFinite], 1u);
}

TEST_F(Validation, GainsApplyPerSegment) {
  auto c = Trajectory(2, 25);
  auto* seg1 = c.mutable_trajectory()->mutable_full()->mutable_segments(1);
  for (int j = 0; j < 25; ++j) seg1->add_kp(77.0f);
  ASSERT_EQ(Run(c), std::nullopt);
  EXPECT_FLOAT_EQ(trajectory_.kp(0)[0], DefaultConfig().joints[0].kp);
  EXPECT_FLOAT_EQ(trajectory_.kp(1)[0], 77.0f);
}

// ---- ModeCommand: never dropped. ----

TEST_F(Validation, ModeCommandIsAlwaysAccepted) {
  edge::CloudCommand c;
  c.mutable_mode()->set_mode(edge::MODE_STAND);
  ASSERT_EQ(Run(c), std::nullopt);
  EXPECT_EQ(out_.mode, ModeRequest::kStand);
  c.mutable_mode()->set_mode(edge::MODE_DAMP);
  ASSERT_EQ(Run(c), std::nullopt);
  EXPECT_EQ(out_.mode, ModeRequest::kDamp);
  c.mutable_mode()->Clear();  // unset field reads as MODE_STAND = 0
  ASSERT_EQ(Run(c), std::nullopt);
  EXPECT_EQ(out_.mode, ModeRequest::kStand);
}

TEST_F(Validation, UnknownModeValueIsReadAsDamp) {
  edge::CloudCommand c;
  c.mutable_mode()->set_mode(static_cast<edge::Mode>(7));
  ASSERT_EQ(Run(c), std::nullopt);
  EXPECT_EQ(out_.mode, ModeRequest::kDamp);
  EXPECT_EQ(counters_[Reason::kModeUnknown], 1u);
}

TEST_F(Validation, EmptyCommandIsDropped) {
  EXPECT_EQ(Run(edge::CloudCommand()), Reason::kEmptyCommand);
  EXPECT_EQ(counters_[Reason::kEmptyCommand], 1u);
}

}  // namespace
}  // namespace robot_edge::daemon

namespace robot_edge::daemon {
namespace {

// ---- JointCommand (edge_api.proto): robot-edge's joint stream.

class JointValidation : public testing::Test {
 protected:
  JointValidation() : stream_(25) {}
  std::optional<sm::Reason> Run(const edge::JointCommand& in) {
    return validator_.Validate(in, 1234, 1200, &stream_, &out_, &counters_);
  }
  // 25 positions, velocities, torques, kp and kd; end_time 5000.
  static edge::JointCommand Full() {
    edge::JointCommand c;
    c.set_sequence(9);
    for (int j = 0; j < 25; ++j) {
      c.add_position(0.0f);
      c.add_velocity(0.25f);
      c.add_torque(-1.0f);
      c.add_kp(60.0f);
      c.add_kd(2.0f);
    }
    c.set_end_time_us(5000);
    c.set_reference_time_us(4000);
    c.set_extrapolation_duration_us(300);
    c.set_user_command_key(12);
    c.set_velocity_safety_limit(3.0f);
    return c;
  }
  sm::JointStreamCommand stream_;
  sm::Command out_;
  sm::Counters counters_;
  CommandValidator validator_{DefaultConfig(), config::BuildJointTable(DefaultConfig())};
};

TEST_F(JointValidation, AValidCommandIsCopiedWhole) {
  ASSERT_FALSE(Run(Full()));
  EXPECT_EQ(out_.kind, CommandKind::kJointStream);
  EXPECT_EQ(out_.joint_stream, &stream_);
  EXPECT_EQ(out_.sequence, 9u);
  EXPECT_EQ(out_.received_us, 1234);
  EXPECT_EQ(out_.sent_us, 1200);
  EXPECT_TRUE(stream_.has_gains);
  EXPECT_FLOAT_EQ(stream_.velocity_rad_s[4], 0.25f);
  EXPECT_FLOAT_EQ(stream_.torque_nm[4], -1.0f);
  EXPECT_FLOAT_EQ(stream_.kp[4], 60.0f);
  EXPECT_FLOAT_EQ(stream_.kd[4], 2.0f);
  EXPECT_EQ(stream_.end_us, 5000);
  EXPECT_EQ(stream_.reference_us, 4000);
  EXPECT_EQ(stream_.extrapolation_us, 300);
  EXPECT_EQ(stream_.key, 12u);
  EXPECT_FLOAT_EQ(stream_.velocity_limit_rad_s, 3.0f);
}

TEST_F(JointValidation, VelocityTorqueAndGainsMayBeOmitted) {
  edge::JointCommand c = Full();
  c.clear_velocity();
  c.clear_torque();
  c.clear_kp();
  c.clear_kd();
  ASSERT_FALSE(Run(c));
  EXPECT_FALSE(stream_.has_gains);
  EXPECT_EQ(stream_.velocity_rad_s[0], 0.0f);
  EXPECT_EQ(stream_.torque_nm[0], 0.0f);
}

TEST_F(JointValidation, PositionsAndGainsAreClampedAndCounted) {
  edge::JointCommand c = Full();
  c.set_position(3, 9.0f);  // L_Knee: max 2.4
  c.set_kp(0, 900.0f);
  c.set_kd(1, -1.0f);
  ASSERT_FALSE(Run(c));
  EXPECT_FLOAT_EQ(stream_.position_rad[3], 2.4f);
  EXPECT_FLOAT_EQ(stream_.kp[0], 500.0f);
  EXPECT_FLOAT_EQ(stream_.kd[1], 0.0f);
  EXPECT_EQ(counters_[Reason::kPositionClamped], 1u);
  EXPECT_EQ(counters_[Reason::kGainsClamped], 1u);
}

TEST_F(JointValidation, WhatIsDroppedAndWhy) {
  struct Case {
    const char* name;
    void (*edit)(edge::JointCommand*);
    Reason reason;
  };
  const Case cases[] = {
      {"too few positions", [](edge::JointCommand* c) { c->mutable_position()->RemoveLast(); },
       Reason::kJointStreamBadLength},
      {"no positions", [](edge::JointCommand* c) { c->clear_position(); },
       Reason::kJointStreamBadLength},
      {"velocity of 3", [](edge::JointCommand* c) { c->mutable_velocity()->Truncate(3); },
       Reason::kJointStreamBadLength},
      {"kp without kd", [](edge::JointCommand* c) { c->clear_kd(); },
       Reason::kJointStreamBadLength},
      {"NaN position", [](edge::JointCommand* c) { c->set_position(5, kNaN); },
       Reason::kJointStreamNonFinite},
      {"infinite torque", [](edge::JointCommand* c) { c->set_torque(5, kInf); },
       Reason::kJointStreamNonFinite},
      {"NaN kd", [](edge::JointCommand* c) { c->set_kd(5, kNaN); }, Reason::kJointStreamNonFinite},
      {"NaN limit", [](edge::JointCommand* c) { c->set_velocity_safety_limit(kNaN); },
       Reason::kJointStreamNonFinite},
      {"no end time", [](edge::JointCommand* c) { c->set_end_time_us(0); },
       Reason::kJointStreamNoEndTime},
      {"negative end time", [](edge::JointCommand* c) { c->set_end_time_us(-5); },
       Reason::kJointStreamBadValue},
      {"negative reference", [](edge::JointCommand* c) { c->set_reference_time_us(-5); },
       Reason::kJointStreamBadValue},
      {"negative limit", [](edge::JointCommand* c) { c->set_velocity_safety_limit(-1.0f); },
       Reason::kJointStreamBadValue},
  };
  for (const Case& k : cases) {
    edge::JointCommand c = Full();
    k.edit(&c);
    sm::Counters before = counters_;
    EXPECT_EQ(Run(c), k.reason) << k.name;
    EXPECT_EQ(counters_[k.reason], before[k.reason] + 1) << k.name;
  }
}

}  // namespace
}  // namespace robot_edge::daemon
