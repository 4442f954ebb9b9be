// Seed 000's "Allowed Transitions" table, row by row: first the pure table (Decide), then the
// same rows through the state machine from each real mode.
#include "statemachine/transitions.hpp"

#include <gtest/gtest.h>

#include "fixture.hpp"

namespace robot_edge::sm {
namespace {

using test::kMs;
using test::Machine;

struct Row {
  const char* name;
  Mode from;
  CommandKind kind;
  ModeRequest request;
  bool policy;
  bool allowed;
  Mode next;       // when allowed
  Reason refused;  // when not
};

constexpr auto V = CommandKind::kVelocity;
constexpr auto T = CommandKind::kTrajectory;
constexpr auto M = CommandKind::kMode;
constexpr auto G = CommandKind::kJog;
constexpr auto JC = CommandKind::kJointStream;
constexpr auto Stand = ModeRequest::kStand;
constexpr auto Damp = ModeRequest::kDamp;
constexpr auto D = Mode::kDamp;
constexpr auto S = Mode::kStand;
constexpr auto P = Mode::kMovePolicy;
constexpr auto J = Mode::kMoveTrajectory;
constexpr auto JS = Mode::kMoveJointStream;
constexpr auto None = Reason::kCount;

const Row kRows[] = {
    // Any -> DAMP, ModeCommand(DAMP): always allowed, emergency stop.
    {"damp_from_damp", D, M, Damp, true, true, D, None},
    {"damp_from_stand", S, M, Damp, true, true, D, None},
    {"damp_from_policy", P, M, Damp, true, true, D, None},
    {"damp_from_trajectory", J, M, Damp, true, true, D, None},
    // DAMP -> STAND, ModeCommand(STAND).
    {"stand_from_damp", D, M, Stand, true, true, S, None},
    // STAND -> MOVE/POLICY, VelocityCommand.
    {"velocity_from_stand", S, V, Stand, true, true, P, None},
    {"velocity_from_stand_without_policy", S, V, Stand, false, false, D, Reason::kVelocityNoPolicy},
    // STAND -> MOVE/TRAJECTORY and DAMP -> MOVE/TRAJECTORY, TrajectoryRequest.
    {"trajectory_from_stand", S, T, Stand, true, true, J, None},
    {"trajectory_from_damp", D, T, Stand, true, true, J, None},
    // MOVE -> STAND, ModeCommand(STAND).
    {"stand_from_policy", P, M, Stand, true, true, S, None},
    {"stand_from_trajectory", J, M, Stand, true, true, S, None},
    // Staying put.
    {"stand_in_stand", S, M, Stand, true, true, S, None},
    {"velocity_in_policy", P, V, Stand, true, true, P, None},
    {"trajectory_in_trajectory", J, T, Stand, true, true, J, None},
    // Not in the table: refused.
    {"velocity_in_damp", D, V, Stand, true, false, D, Reason::kVelocityInDamp},
    {"velocity_in_trajectory", J, V, Stand, true, false, D, Reason::kVelocityInTrajectory},
    {"trajectory_in_policy", P, T, Stand, true, false, D, Reason::kTrajectoryInPolicy},
    // Bring-up: a jog moves one joint out of DAMP only.
    {"jog_in_damp", D, G, Stand, true, true, D, None},
    {"jog_in_stand", S, G, Stand, true, false, D, Reason::kJogNotInDamp},
    {"jog_in_policy", P, G, Stand, true, false, D, Reason::kJogNotInDamp},
    {"jog_in_trajectory", J, G, Stand, true, false, D, Reason::kJogNotInDamp},
    {"jog_in_joint_stream", JS, G, Stand, true, false, D, Reason::kJogNotInDamp},
    // robot-edge's extension: MOVE/JOINT_STREAM, entered like MOVE/TRAJECTORY.
    {"joint_stream_from_damp", D, JC, Stand, true, true, JS, None},
    {"joint_stream_from_stand", S, JC, Stand, true, true, JS, None},
    {"joint_stream_in_joint_stream", JS, JC, Stand, true, true, JS, None},
    {"joint_stream_in_policy", P, JC, Stand, true, false, D, Reason::kJointStreamInMove},
    {"joint_stream_in_trajectory", J, JC, Stand, true, false, D, Reason::kJointStreamInMove},
    {"damp_from_joint_stream", JS, M, Damp, true, true, D, None},
    {"stand_from_joint_stream", JS, M, Stand, true, true, S, None},
    {"velocity_in_joint_stream", JS, V, Stand, true, false, D, Reason::kVelocityInJointStream},
    {"trajectory_in_joint_stream", JS, T, Stand, true, false, D, Reason::kTrajectoryInJointStream},
};

class TransitionTable : public testing::TestWithParam<Row> {};

TEST_P(TransitionTable, Decide) {
  const Row& r = GetParam();
  const Transition t = Decide(r.from, r.kind, r.request, r.policy);
  EXPECT_EQ(t.allowed, r.allowed);
  if (r.allowed) {
    EXPECT_EQ(t.next, r.next);
  } else {
    EXPECT_EQ(t.refused, r.refused);
  }
}

TEST_P(TransitionTable, ThroughTheStateMachine) {
  const Row& r = GetParam();
  Machine m(r.policy);
  if (r.from == Mode::kMovePolicy && !r.policy) GTEST_FAIL() << "bad row";
  m.BringTo(r.from, 10 * kMs);
  Command c;
  switch (r.kind) {
    case CommandKind::kMode: c = test::ModeCmd(r.request, 20 * kMs); break;
    case CommandKind::kVelocity: c = test::VelocityCmd(0.3f, 0, 0, 20 * kMs); break;
    case CommandKind::kTrajectory: c = m.traj.Zero(20 * kMs); break;
    case CommandKind::kJointStream: c = m.joint.Zero(20 * kMs); break;
    case CommandKind::kStopWalking:
    case CommandKind::kZeroSet:
    case CommandKind::kReleaseStop: break;
    case CommandKind::kJog:
      c.kind = CommandKind::kJog;
      c.jog = {3, 0.5f, 0.2f};
      c.received_us = c.sent_us = 20 * kMs;
      break;
  }
  const SubmitResult result = m.sm.Submit(20 * kMs, c);
  EXPECT_EQ(result.accepted, r.allowed);
  m.Step(22 * kMs);
  if (r.allowed) {
    EXPECT_EQ(m.sm.mode(), r.next);
    EXPECT_EQ(result.mode, r.next);
  } else {
    EXPECT_EQ(m.sm.mode(), r.from) << "a refused command must not change the mode";
    EXPECT_EQ(result.reason, r.refused);
    EXPECT_EQ(m.sm.counters()[r.refused], 1u) << "every drop is counted by reason";
  }
}

std::string RowName(const testing::TestParamInfo<Row>& row) { return row.param.name; }

INSTANTIATE_TEST_SUITE_P(Seed000, TransitionTable, testing::ValuesIn(kRows), RowName);

TEST(Transitions, StopWalkingNeverChangesTheMode) {
  for (Mode m : {D, S, P, J, JS}) {
    const Transition t = Decide(m, CommandKind::kStopWalking, Stand, true);
    EXPECT_TRUE(t.allowed);
    EXPECT_EQ(t.next, m);
  }
}

TEST(Transitions, FirmwareModeNumbering) {
  EXPECT_EQ(ToFirmwareMode(Mode::kDamp), 0u);
  EXPECT_EQ(ToFirmwareMode(Mode::kStand), 1u);
  EXPECT_EQ(ToFirmwareMode(Mode::kMovePolicy), 2u);
  EXPECT_EQ(ToFirmwareMode(Mode::kMoveTrajectory), 2u);
  EXPECT_EQ(ToFirmwareMode(Mode::kMoveJointStream), 2u);
}

TEST(Reasons, EveryReasonHasASnakeCaseName) {
  for (std::size_t i = 0; i < kReasonCount; ++i) {
    const std::string name = ToString(static_cast<Reason>(i));
    EXPECT_NE(name, "?");
    for (char c : name)
      EXPECT_TRUE(std::islower(static_cast<unsigned char>(c)) || c == '_') << name;
  }
  EXPECT_TRUE(IsDrop(Reason::kVelocityInDamp));
  EXPECT_FALSE(IsDrop(Reason::kGainsDefaulted));
}

}  // namespace
}  // namespace robot_edge::sm
