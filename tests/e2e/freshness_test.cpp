// End to end on vcan: stale, replayed and reordered commands never move the robot, measured on
// the buses (the frames robot-edged sends), not from its own log.
#include <gtest/gtest.h>

#include "harness.hpp"

namespace robot_edge::e2e {
namespace {

// A trajectory packet at the stand pose, stamped as sent at wall-clock `sent_us`.
edge::CloudCommand Packet(const Robot& robot, std::uint32_t sequence, std::uint64_t sent_us) {
  edge::CloudCommand c = Trajectory(StandPose(robot.config()));
  c.set_sequence(sequence);
  c.set_timestamp_us(sent_us);
  return c;
}

// Frames with stiffness (kp > 0) sent to any motor since `t_us`: the motors re-engaged.
std::size_t StiffFrames(Robot& robot, std::int64_t t_us) {
  std::size_t n = 0;
  for (const auto& f : robot.monitor().Since(t_us)) n += !f.special && f.command.kp > 0.0f;
  return n;
}

// A WiFi drop: the stream's packets are held back for 3 s, the watchdog DAMPs, then the network
// delivers them in a burst. None re-engages the motors; the burst is reported once; a fresh
// stream takes the robot again on its first packet (seed 000).
TEST(Freshness, AStaleBurstAfterANetworkStallNeverReengagesTheMotors) {
  Robot robot;
  auto c = robot.Connect("cloud");
  auto observer = robot.Connect("");
  WaitMotorsReady(c);
  std::uint32_t sequence = 0;
  for (int i = 0; i < 25; ++i) {  // 0.5 s at 50 Hz
    c.Send(Packet(robot, ++sequence, client::WallClockMicros()));
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_TRUE(WaitTelemetry(
      c, [](const auto& t) { return t.fw_mode() == edge::FW_MODE_MOVE; }, 2s));
  const std::uint64_t stall_began = client::WallClockMicros();
  ASSERT_TRUE(WaitError(observer, "TRAJECTORY_TIMEOUT", 2s)) << "the watchdog fires";
  std::this_thread::sleep_for(3s);
  // The burst: everything the client sent during the stall but its last 300 ms (those would be
  // fresh, a new stream), delivered at once.
  const std::int64_t delivered = NowUs();
  const std::uint64_t last_stale = client::WallClockMicros() - 300'000;
  std::uint32_t last = 0;
  for (std::uint64_t sent = stall_began; sent < last_stale; sent += 20'000) {
    c.Send(Packet(robot, last = ++sequence, sent));
  }
  const auto result = c.WaitCommandResult(last, 3s);
  ASSERT_TRUE(result);
  EXPECT_FALSE(result->accepted());
  EXPECT_EQ(result->reason(), "command_stale");
  const auto error = WaitError(observer, "COMMAND_STALE", 3s);
  ASSERT_TRUE(error) << "the burst is reported";
  EXPECT_EQ(error->error().subsystem(), edge::SUBSYSTEM_CLOUD);
  EXPECT_FALSE(WaitError(observer, "COMMAND_STALE", 500ms)) << "once per burst";
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(StiffFrames(robot, delivered), 0u) << "a stale packet re-engaged the motors";

  const auto fresh = Command(c, Packet(robot, ++sequence, client::WallClockMicros()));
  EXPECT_TRUE(fresh.accepted()) << fresh.reason();
  EXPECT_EQ(fresh.control_mode(), edge::CONTROL_MODE_MOVE_TRAJECTORY);
  ASSERT_TRUE(robot.monitor().WaitFor(
      delivered, [](const SeenFrame& f) { return !f.special && f.command.kp > 0.0f; }, 2s))
      << "the fresh stream drives the motors";
}

TEST(Freshness, ReplayedDuplicatedAndReorderedPacketsAreDropped) {
  Robot robot;
  auto c = robot.Connect("cloud");
  auto observer = robot.Connect("");
  WaitMotorsReady(c);
  const std::uint64_t now = client::WallClockMicros();
  ASSERT_TRUE(Command(c, Packet(robot, 10, now)).accepted());
  auto r = Command(c, Packet(robot, 10, now));
  EXPECT_EQ(r.reason(), "sequence_not_increasing") << "a duplicate";
  const auto error = WaitError(observer, "COMMAND_OUT_OF_ORDER", 3s);
  ASSERT_TRUE(error);
  EXPECT_TRUE(Command(c, Packet(robot, 12, client::WallClockMicros())).accepted());
  r = Command(c, Packet(robot, 11, client::WallClockMicros()));
  EXPECT_EQ(r.reason(), "sequence_not_increasing") << "overtaken by 12";
  EXPECT_EQ(Command(c, Mode(edge::MODE_DAMP)).reason(), "") << "DAMP is never dropped";
  // Replayed after the DAMP (say, by a broken gateway): it cannot leave DAMP.
  r = Command(c, Packet(robot, 12, client::WallClockMicros()));
  EXPECT_FALSE(r.accepted());
  EXPECT_EQ(r.reason(), "sequence_not_increasing");
  EXPECT_TRUE(WaitTelemetry(
      c, [](const auto& t) { return t.fw_mode() == edge::FW_MODE_DAMP; }, 1s));
}

TEST(Freshness, ACommandWithoutTimestampIsDroppedAndSaysWhy) {
  Robot robot;
  auto c = robot.Connect("cloud");
  WaitMotorsReady(c);
  edge::CloudCommand stand = Mode(edge::MODE_STAND);
  stand.set_sequence(5);
  c.Send(stand);  // timestamp_us 0
  const auto r = c.WaitCommandResult(5, 3s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->reason(), "no_timestamp");
}

}  // namespace
}  // namespace robot_edge::e2e
