// robot-edge-replay compare (tools/replay/compare.hpp) on runs built in memory: two runs are
// aligned at their first command whatever their clock; identical commands compare equal; a
// replay whose q_des differs, or whose mode changes late, says by how much.
#include "tools/replay/compare.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "edge_api.pb.h"

namespace robot_edge::replay {
namespace {

constexpr std::uint64_t kMs = 1'000'000;  // ns

// A run of `ticks` 2 ms states from `t0_ns`; its one command at `command_ms`; joint 0 held at
// q(tick) by kp 100 from `stand_tick` on (DAMP, kp 0, before).
Recording MakeRun(std::uint64_t t0_ns, int ticks, int command_ms, int stand_tick,
                  float (*q)(int tick)) {
  Recording r;
  r.channels = {{"/joint_state", "protobuf", "edge.JointState", "protobuf", ""},
                {"/commands", "protobuf", "edge.CommandRecord", "protobuf", ""}};
  edge::CommandRecord command;
  command.mutable_command()->mutable_mode()->set_mode(edge::MODE_STAND);
  r.messages.push_back(
      {1, t0_ns + static_cast<std::uint64_t>(command_ms) * kMs, command.SerializeAsString()});
  for (int i = 0; i < ticks; ++i) {
    edge::JointState s;
    const bool standing = i >= stand_tick;
    s.set_control_mode(standing ? edge::CONTROL_MODE_STAND : edge::CONTROL_MODE_DAMP);
    for (int j = 0; j < 2; ++j) {
      s.add_q_des(j == 0 ? q(i) : 0.0f);
      s.add_kp(standing ? 100.0f : 0.0f);
      s.add_kd(standing ? 4.0f : 1.0f);
    }
    r.messages.push_back(
        {0, t0_ns + static_cast<std::uint64_t>(i) * 2 * kMs, s.SerializeAsString()});
  }
  return r;
}

float Ramp(int tick) { return 0.001f * static_cast<float>(tick); }
float RampPlusTenth(int tick) { return 0.001f * static_cast<float>(tick) + 0.1f; }

TEST(Compare, IdenticalRunsOnDifferentClocksAreTheSame) {
  // The command at 100 ms in both; the second run recorded an hour later.
  const Comparison c =
      Compare(MakeRun(0, 1000, 100, 50, Ramp), MakeRun(3600'000 * kMs, 1000, 100, 50, Ramp));
  EXPECT_GT(c.states, 500u);
  EXPECT_DOUBLE_EQ(c.mode_agreement, 1.0);
  EXPECT_NEAR(c.q_des_rms_rad, 0.0, 1e-9);
  EXPECT_EQ(c.kp_max_diff, 0.0);
}

TEST(Compare, AlignsAtTheFirstCommandNotAtTheFileStart) {
  // The replay's command came 40 ms (20 ticks) later in its file, and so did everything after.
  const Comparison c = Compare(MakeRun(0, 1000, 100, 50, Ramp),
                               MakeRun(0, 1020, 140, 70, [](int t) { return Ramp(t - 20); }));
  EXPECT_DOUBLE_EQ(c.mode_agreement, 1.0);
  EXPECT_NEAR(c.q_des_rms_rad, 0.0, 1e-6);
}

TEST(Compare, SaysByHowMuchTheTargetsDiffer) {
  const Comparison c = Compare(MakeRun(0, 1000, 0, 0, Ramp), MakeRun(0, 1000, 0, 0, RampPlusTenth));
  EXPECT_NEAR(c.q_des_rms_rad, 0.1 / std::sqrt(2.0), 1e-4) << "joint 1 held at 0 in both";
  EXPECT_NEAR(c.q_des_max_rad, 0.1, 1e-4);
  EXPECT_EQ(c.q_des_max_joint, "joint 0");
}

TEST(Compare, AModeThatChangesLateLowersTheAgreement) {
  // STAND 100 ticks later in the replay: 100 of the ~550 compared states disagree.
  const Comparison c = Compare(MakeRun(0, 1000, 0, 50, Ramp), MakeRun(0, 1000, 0, 150, Ramp));
  EXPECT_NEAR(c.mode_agreement, 1.0 - 100.0 / static_cast<double>(c.states), 1e-9);
  EXPECT_EQ(c.kp_max_diff, 100.0);
  EXPECT_NEAR(c.mode_differs_at_s, 0.1, 1e-9);
  EXPECT_NEAR(c.mode_differs_for_s, 0.2, 1e-9);
  EXPECT_EQ(c.mode_recorded, edge::CONTROL_MODE_STAND);
  EXPECT_EQ(c.mode_replayed, edge::CONTROL_MODE_DAMP);
  EXPECT_NE(FormatComparison(c).find("0.200 s from 0.100 s: STAND recorded, DAMP replayed"),
            std::string::npos)
      << FormatComparison(c);
}

TEST(Compare, AModeDifferenceThatLastsToTheEndIsMeasuredToTheWindowsEnd) {
  // The replay never leaves DAMP: from the recorded STAND (100 ms) to the window's end, 1 s
  // after the command at 0.
  const Comparison c = Compare(MakeRun(0, 1000, 0, 50, Ramp), MakeRun(0, 1000, 0, 5000, Ramp));
  EXPECT_NEAR(c.mode_differs_at_s, 0.1, 1e-9);
  EXPECT_NEAR(c.mode_differs_for_s, 0.9, 1e-9);
  EXPECT_NE(ComparisonJson(c).find("\"mode_recorded\": \"STAND\", \"mode_replayed\": \"DAMP\""),
            std::string::npos)
      << ComparisonJson(c);
}

TEST(Compare, ARunWithoutCommandsIsAnError) {
  Recording none = MakeRun(0, 10, 0, 0, Ramp);
  none.messages.erase(none.messages.begin());
  EXPECT_THROW(Compare(none, MakeRun(0, 10, 0, 0, Ramp)), std::runtime_error);
}

}  // namespace
}  // namespace robot_edge::replay
