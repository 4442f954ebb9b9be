// End to end on vcan: MOVE/POLICY. robot-edged runs an ONNX policy against robot-edge-sim:
// STAND, a velocity command enters MOVE/POLICY, the motor frames carry the targets the network
// computes, a new velocity changes them, STAND and DAMP leave the mode, diagnostics report the
// inference statistics. The network's output depends on the command only (its other weights
// are 0), so the expected frame is exact; and the demonstration model swings the simulated legs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "command_policy.hpp"
#include "harness.hpp"

namespace robot_edge::e2e {
namespace {

constexpr int kLegJoints = kPolicyJoints;

// Waits until every leg joint has been sent the policy's target for the command (policy gains,
// position within the MIT encoding's resolution); fails naming the first joint that was not.
void ExpectPolicyFrames(Robot& robot, std::int64_t since, float vx, float vy, float vyaw) {
  for (int j = 0; j < kLegJoints; ++j) {
    const float want = PolicyTarget(robot.config(), j, vx, vy, vyaw);
    const auto f = robot.monitor().WaitFor(
        since,
        [&](const SeenFrame& s) {
          return !s.special && robot.monitor().JointOf(s) == j &&
                 std::fabs(s.command.kp - kPolicyKp) < 0.2f &&
                 std::fabs(s.command.position_rad - want) < 1e-3f;
        },
        3s);
    ASSERT_TRUE(f) << robot.config().joints[j].name << ": no frame with the policy's target "
                   << want << " for (" << vx << ", " << vy << ", " << vyaw << ")";
    EXPECT_NEAR(f->command.kd, kPolicyKd, 0.01f);
    EXPECT_NEAR(f->command.velocity_rad_s, 0.0f, 0.05f);
  }
}

TEST(Policy, VelocityInStandWalksWithTheNetworksTargetsUntilStandOrDamp) {
  CommandPolicy model;
  RobotOptions options;
  options.config_edits = {model.ConfigEdit()};
  Robot robot(options);
  auto c = robot.Connect("cloud");
  WaitMotorsReady(c);
  ASSERT_TRUE(Command(c, Mode(edge::MODE_STAND)).accepted());

  // STAND -> MOVE/POLICY.
  std::int64_t t = NowUs();
  auto r = Command(c, Velocity(0.4f, 0.0f, 0.0f));
  ASSERT_TRUE(r.accepted()) << r.reason();
  EXPECT_EQ(r.control_mode(), edge::CONTROL_MODE_MOVE_POLICY);
  ExpectPolicyFrames(robot, t, 0.4f, 0.0f, 0.0f);
  // Joints the policy does not drive hold the stand pose with their own gains.
  const auto elbow = robot.monitor().WaitFor(
      NowUs(), [&](const SeenFrame& s) { return !s.special && robot.monitor().JointOf(s) == 15; },
      1s);
  ASSERT_TRUE(elbow);
  EXPECT_NEAR(elbow->command.position_rad, robot.config().joints[15].stand_rad, 1e-3);
  EXPECT_NEAR(elbow->command.kp, robot.config().joints[15].kp, 0.2);
  const auto walking = WaitTelemetryMessage(
      c,
      [](const auto& m) {
        return m.telemetry_extension().control_mode() == edge::CONTROL_MODE_MOVE_POLICY;
      },
      2s);
  ASSERT_TRUE(walking);
  EXPECT_EQ(walking->telemetry().fw_mode(), edge::FW_MODE_MOVE);

  // A new velocity: new observation, new targets.
  t = NowUs();
  r = Command(c, Velocity(-0.3f, 0.2f, 0.5f));
  ASSERT_TRUE(r.accepted()) << r.reason();
  EXPECT_EQ(r.control_mode(), edge::CONTROL_MODE_MOVE_POLICY);
  ExpectPolicyFrames(robot, t, -0.3f, 0.2f, 0.5f);

  // Diagnostics report the inferences.
  const auto diag = WaitEvent(
      c, [](const auto& e) { return e.has_diagnostics() && e.diagnostics().onnx_count() > 0; }, 3s);
  ASSERT_TRUE(diag) << "no diagnostics with onnx_count > 0";
  const auto& d = diag->diagnostics();
  EXPECT_GT(d.onnx_avg_ms(), 0.0f);
  EXPECT_GE(d.onnx_max_ms(), d.onnx_avg_ms());
  EXPECT_LT(d.onnx_avg_ms(), 20.0f)
      << "a 45 -> 12 linear layer (user-mode-linux is slow, not that slow)";
  EXPECT_LT(d.onnx_max_ms(), 200.0f);
  RecordProperty("onnx_avg_ms", std::to_string(d.onnx_avg_ms()));
  RecordProperty("onnx_max_ms", std::to_string(d.onnx_max_ms()));

  // STAND leaves MOVE/POLICY: the legs get their stand gains again.
  t = NowUs();
  r = Command(c, Mode(edge::MODE_STAND));
  ASSERT_TRUE(r.accepted()) << r.reason();
  EXPECT_EQ(r.control_mode(), edge::CONTROL_MODE_STAND);
  ASSERT_TRUE(robot.monitor().WaitFor(
      t,
      [&](const SeenFrame& s) {
        return !s.special && robot.monitor().JointOf(s) == 0 &&
               std::fabs(s.command.kp - 150.0f) < 0.2f;
      },
      2s))
      << "no STAND frame for L_Hip_Pitch";

  // Again into MOVE/POLICY (a fresh start), then DAMP leaves it.
  t = NowUs();
  r = Command(c, Velocity(0.2f, -0.1f, 0.0f));
  ASSERT_TRUE(r.accepted()) << r.reason();
  EXPECT_EQ(r.control_mode(), edge::CONTROL_MODE_MOVE_POLICY);
  ExpectPolicyFrames(robot, t, 0.2f, -0.1f, 0.0f);
  t = NowUs();
  r = Command(c, Mode(edge::MODE_DAMP));
  ASSERT_TRUE(r.accepted());
  EXPECT_EQ(r.control_mode(), edge::CONTROL_MODE_DAMP);
  ASSERT_TRUE(robot.monitor().WaitFor(
      t,
      [&](const SeenFrame& s) {
        return !s.special && robot.monitor().JointOf(s) == 0 && s.command.kp == 0.0f;
      },
      2s))
      << "no DAMP frame";
  EXPECT_EQ(Command(c, Velocity(0.4f, 0, 0)).reason(), "velocity_in_damp");
}

TEST(Policy, TheDemonstrationModelSwingsTheSimulatedLegs) {
  // config/examples/sim-with-policy.yaml's section, with the model's absolute path.
  RobotOptions options;
  options.config_edits = {
      PolicyConfigEdit(ROBOT_EDGE_DEMO_POLICY,
                       "kp: [120, 120, 80, 120, 50, 50, 120, 120, 80, 120, 50, 50]\n  kd: 3.0"),
      // One velocity command, watched for 4 s: the walking dead-man off (the seed's rule).
      {"walking_silence_ms: 1000", "walking_silence_ms: 0"}};
  Robot robot(options);
  auto c = robot.Connect("cloud");
  WaitMotorsReady(c);
  ASSERT_TRUE(Command(c, Mode(edge::MODE_STAND)).accepted());
  std::this_thread::sleep_for(2500ms);  // the stand ramp
  const auto r = Command(c, Velocity(0.3f, 0.0f, 0.0f));
  ASSERT_TRUE(r.accepted()) << r.reason();
  const float stand = static_cast<float>(robot.config().joints[0].stand_rad);
  float low = stand, high = stand;
  const auto deadline = std::chrono::steady_clock::now() + 4s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (const auto t = c.WaitTelemetry(200ms)) {
      low = std::min(low, t->joint_pos(0));
      high = std::max(high, t->joint_pos(0));
    }
  }
  EXPECT_LT(low, stand - 0.08f) << "L_Hip_Pitch did not swing back";
  EXPECT_GT(high, stand + 0.08f) << "L_Hip_Pitch did not swing forward";
  ASSERT_TRUE(Command(c, Mode(edge::MODE_STAND)).accepted());
}

// The first STAND frame (the stand gains) for L_Hip_Pitch after `t_us`: MOVE/POLICY ended.
std::optional<SeenFrame> StandFrameAfter(Robot& robot, std::int64_t t_us) {
  return robot.monitor().WaitFor(
      t_us,
      [&](const SeenFrame& s) {
        return !s.special && robot.monitor().JointOf(s) == 0 &&
               std::fabs(s.command.kp - robot.config().joints[0].kp) < 0.2f;
      },
      3s);
}

// A robot walking at 0.4 m/s with `model`: `c` commands, `observer` watches.
struct Walking {
  explicit Walking(const CommandPolicy& model)
      : robot([&] {
          RobotOptions options;
          options.config_edits = {model.ConfigEdit()};
          return options;
        }()),
        c(robot.Connect("cloud")),
        observer(robot.Connect("")) {}
  void Start() {
    WaitMotorsReady(c);
    ASSERT_TRUE(Command(c, Mode(edge::MODE_STAND)).accepted());
    ASSERT_TRUE(Command(c, Velocity(0.4f, 0.0f, 0.0f)).accepted());
    ExpectPolicyFrames(robot, NowUs(), 0.4f, 0.0f, 0.0f);
  }
  Robot robot;
  client::Client c;
  client::Client observer;
};

// Proves the walking dead-man (api.walking_silence_ms, 1000): a controller that walks the robot
// and then falls silent without leaving (frozen, its socket open) has its walk stopped, no
// sooner than the bound; it keeps control and walks again with its next command.
TEST(Policy, AWalkStopsWhenItsControllerFallsSilent) {
  CommandPolicy model;
  Walking w(model);
  ASSERT_NO_FATAL_FAILURE(w.Start());
  Robot& robot = w.robot;
  client::Client& c = w.c;
  const std::int64_t t = NowUs();
  ASSERT_TRUE(Command(c, Velocity(0.3f, 0.0f, 0.0f)).accepted());
  const float stopped = PolicyTarget(robot.config(), 0, 0, 0, 0);
  ASSERT_GT(std::fabs(stopped - PolicyTarget(robot.config(), 0, 0.3f, 0, 0)), 1e-2f);
  const auto f = robot.monitor().WaitFor(
      t,
      [&](const SeenFrame& s) {
        return !s.special && robot.monitor().JointOf(s) == 0 &&
               std::fabs(s.command.position_rad - stopped) < 1e-3f;
      },
      4s);
  ASSERT_TRUE(f) << "still walking 4 s after the controller fell silent";
  RecordProperty("silence_to_stop_ms", std::to_string((f->t_us - t) / 1000));
  EXPECT_GE(f->t_us - t, 950'000) << "stopped before walking_silence_ms (1000)";
  // The contract (docs/safety.md): 1100 ms, the bound and its 100 ms check. Allowed on top: the
  // frame's way to the bus, and under user-mode Linux its late wake-ups (tens of ms each, a
  // few hundred when the host is busy).
  const char* harness = std::getenv("ROBOT_EDGE_VCAN_HARNESS");
  const bool emulated = harness != nullptr && std::string_view(harness) == "uml";
  const std::int64_t allowance_us = emulated ? 500'000 : 100'000;
  EXPECT_LE(f->t_us - t, 1'100'000 + allowance_us)
      << "walked on past the contract's 1100 ms plus " << allowance_us / 1000 << " ms";
  const auto again = Command(c, Velocity(0.2f, 0.0f, 0.0f));
  EXPECT_TRUE(again.accepted()) << again.reason() << ": control was kept";
  ExpectPolicyFrames(robot, NowUs(), 0.2f, 0.0f, 0.0f);
}

// The API thread (which would notice the controller's silence) stops while the robot walks: the
// supervisor thread sees the stall (500 ms) and stops walking itself, before the controller's own
// 1000 ms silence bound, which nobody is left to measure.
TEST(Policy, AnApiThreadStallStopsWalking) {
  CommandPolicy model;
  Walking w(model);
  ASSERT_NO_FATAL_FAILURE(w.Start());
  Robot& robot = w.robot;
  client::Client& c = w.c;
  ASSERT_TRUE(Command(c, Velocity(0.3f, 0.0f, 0.0f)).accepted());
  ExpectPolicyFrames(robot, NowUs(), 0.3f, 0.0f, 0.0f);
  const float stopped = PolicyTarget(robot.config(), 0, 0, 0, 0);
  std::int64_t t = 0;
  std::optional<SeenFrame> f;
  {
    StoppedThread api(robot.daemon_pid(), "robot-edged");
    t = NowUs();
    f = robot.monitor().WaitFor(
        t,
        [&](const SeenFrame& s) {
          return !s.special && robot.monitor().JointOf(s) == 0 &&
                 std::fabs(s.command.position_rad - stopped) < 1e-3f;
        },
        4s);
  }
  ASSERT_TRUE(f) << "still walking 4 s after the API thread stopped";
  RecordProperty("api_stall_to_stop_ms", std::to_string((f->t_us - t) / 1000));
  EXPECT_GE(f->t_us - t, 400'000) << "stopped before the supervisor's 500 ms stall bound";
  EXPECT_NE(robot.DaemonLog().find("API thread stalled for"), std::string::npos);
}

TEST(PolicyFault, ANonFiniteOutputEndsWalkingAndTheRobotStands) {
  CommandPolicy model(/*infinite_above_vx1=*/true);
  Walking w(model);
  ASSERT_NO_FATAL_FAILURE(w.Start());
  Robot& robot = w.robot;
  client::Client& c = w.c;
  client::Client& observer = w.observer;

  const std::int64_t t = NowUs();
  ASSERT_TRUE(Command(c, Velocity(1.5f, 0.0f, 0.0f)).accepted());
  const auto error = WaitError(observer, "POLICY_FAULT", 3s);
  ASSERT_TRUE(error);
  EXPECT_EQ(static_cast<int>(error->error().subsystem()), edge::SUBSYSTEM_POLICY);
  EXPECT_NE(error->error().message().find("non-finite action (NaN or infinity) for L_Hip_Pitch"),
            std::string::npos)
      << error->error().message();
  const auto stand = StandFrameAfter(robot, t);
  ASSERT_TRUE(stand) << "MOVE/POLICY did not end";
  RecordProperty("nan_to_stand_frame_ms", std::to_string((stand->t_us - t) / 1000));
  for (const auto& f : robot.monitor().Since(t)) {
    if (f.special || robot.monitor().JointOf(f) != 0 || f.t_us >= stand->t_us) continue;
    EXPECT_NEAR(f.command.position_rad, PolicyTarget(robot.config(), 0, 0.4f, 0, 0), 1e-3)
        << "only the last good targets until STAND: nothing of the bad output";
  }
  const auto t_stand = WaitTelemetryMessage(
      c,
      [](const auto& m) {
        return m.telemetry_extension().control_mode() == edge::CONTROL_MODE_STAND;
      },
      2s);
  ASSERT_TRUE(t_stand);
  // Walking stopped: a new, sane velocity walks again.
  ASSERT_TRUE(Command(c, Velocity(0.2f, 0.0f, 0.0f)).accepted());
  ExpectPolicyFrames(robot, NowUs(), 0.2f, 0.0f, 0.0f);
}

TEST(PolicyFault, AStalledInferenceThreadEndsWalking) {
  CommandPolicy model;
  Walking w(model);
  ASSERT_NO_FATAL_FAILURE(w.Start());
  Robot& robot = w.robot;
  client::Client& observer = w.observer;
  std::int64_t t = 0;
  {
    StoppedThread inference(robot.daemon_pid(), "re-inference");
    t = NowUs();
    const auto error = WaitError(observer, "POLICY_FAULT", 3s);
    ASSERT_TRUE(error);
    EXPECT_NE(error->error().message().find("the inference stalled"), std::string::npos)
        << error->error().message();
    const auto stand = StandFrameAfter(robot, t);
    ASSERT_TRUE(stand) << "MOVE/POLICY did not end";
    RecordProperty("stall_to_stand_frame_ms", std::to_string((stand->t_us - t) / 1000));
    EXPECT_LT(stand->t_us - t, 2'000'000) << "stall_timeout_ms 300 + user-mode-linux";
  }
  EXPECT_TRUE(robot.DaemonRunning());
}

}  // namespace
}  // namespace robot_edge::e2e
