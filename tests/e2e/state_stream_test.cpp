// End to end on vcan: the state stream (edge_api.proto StateStreamRequest / JointState,
// daemon/api/state_stream.hpp): every tick's measured state at the rate each client chose, from the
// simulated motors and IMU, with the last joint command's key.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "client/commands.hpp"
#include "harness.hpp"

namespace robot_edge::e2e {
namespace {

constexpr int kJoints = 25;

// The JointStates `c` receives within `duration` (other messages are dropped).
std::vector<edge::JointState> ReadStates(client::Client& c, Millis duration) {
  std::vector<edge::JointState> states;
  const auto deadline = std::chrono::steady_clock::now() + duration;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<Millis>(deadline - std::chrono::steady_clock::now());
    if (left <= 0ms) return states;
    auto m = c.Read(left);
    if (m && m->has_joint_state()) states.push_back(std::move(*m->mutable_joint_state()));
  }
}

// The median of the tick gaps between consecutive states.
std::uint64_t MedianTickGap(const std::vector<edge::JointState>& states) {
  std::vector<std::uint64_t> gaps;
  for (std::size_t i = 1; i < states.size(); ++i) {
    gaps.push_back(states[i].tick() - states[i - 1].tick());
  }
  if (gaps.empty()) return 0;
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  return gaps[gaps.size() / 2];
}

// Proves: at the control rate, a client gets consecutive ticks' states, each with every joint's
// measurement from the simulated motors (all replying: MOTOR_STATUS_OK), the IMU's quaternion,
// yaw/pitch/roll and acceleration, in order; another client at 50 Hz gets every 10th tick at the
// same time. The emulator may hold the daemon, and a lossy stream skips states rather than send
// them late: counts allow for that, the gaps' median does not.
TEST(StateStream, EachClientGetsTheStateAtItsRate) {
  Robot robot;
  auto fast = robot.Connect("");
  auto slow = robot.Connect("cloud");
  WaitMotorsReady(fast);
  const auto rate = static_cast<std::uint32_t>(robot.config().control.rate_hz);
  ASSERT_EQ(fast.StreamState(5000, 2s), rate) << "granted at most the control rate";
  ASSERT_EQ(slow.StreamState(50, 2s), 50u);

  std::vector<edge::JointState> slow_states;
  std::thread slow_reader([&] { slow_states = ReadStates(slow, 2s); });
  const auto states = ReadStates(fast, 2s);
  slow_reader.join();
  ASSERT_GE(states.size(), rate / 4) << "2 s at " << rate << " Hz";
  EXPECT_EQ(MedianTickGap(states), 1u);
  for (std::size_t i = 1; i < states.size(); ++i) {
    ASSERT_GT(states[i].tick(), states[i - 1].tick()) << "out of order";
    ASSERT_GT(states[i].robot_time_us(), states[i - 1].robot_time_us());
  }
  for (const auto& s : states) {
    ASSERT_EQ(s.q_size(), kJoints);
    ASSERT_EQ(s.dq_size(), kJoints);
    ASSERT_EQ(s.tau_size(), kJoints);
    ASSERT_EQ(s.motor_status_size(), kJoints);
    ASSERT_EQ(s.imu_quat_size(), 4);
    ASSERT_EQ(s.imu_ypr_size(), 3);
    EXPECT_EQ(s.fw_mode(), edge::FW_MODE_DAMP);
  }
  const auto& last = states.back();
  for (int j = 0; j < kJoints; ++j) EXPECT_EQ(last.motor_status(j), edge::MOTOR_STATUS_OK) << j;
  EXPECT_NEAR(last.imu_quat(0), 1.0f, 0.05f) << "the simulated robot stands upright";
  EXPECT_NEAR(last.imu_ypr(1), 0.0f, 0.1f);
  EXPECT_NEAR(last.imu_ypr(2), 0.0f, 0.1f);
  if (robot.config().imu.accel_id != 0) {
    ASSERT_EQ(last.imu_accel_size(), 3);
    EXPECT_NEAR(last.imu_accel(2), 9.81f, 0.5f) << "specific force upright at rest";
  }

  ASSERT_GE(slow_states.size(), 25u) << "2 s at 50 Hz";
  EXPECT_LE(slow_states.size(), 105u);
  EXPECT_EQ(MedianTickGap(slow_states), rate / 50);
}

// Proves: rate 0 stops the stream (after what was already on its way), and the client can ask
// again; a client that streams keeps its telemetry.
TEST(StateStream, RateZeroStopsItAndItCanStartAgain) {
  Robot robot;
  auto c = robot.Connect("");
  WaitMotorsReady(c);
  ASSERT_EQ(c.StreamState(100, 2s), 100u);
  EXPECT_GE(ReadStates(c, 500ms).size(), 10u);
  ASSERT_EQ(c.StreamState(0, 2s), 0u);
  ReadStates(c, 200ms);  // what was already sent
  EXPECT_TRUE(ReadStates(c, 500ms).empty()) << "still streaming after rate 0";
  EXPECT_TRUE(WaitTelemetry(
      c, [](const auto&) { return true; }, 2s))
      << "telemetry stopped";
  ASSERT_EQ(c.StreamState(100, 2s), 100u);
  EXPECT_GE(ReadStates(c, 500ms).size(), 10u);
}

}  // namespace
}  // namespace robot_edge::e2e
