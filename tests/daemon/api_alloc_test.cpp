// The API thread's hot paths allocate nothing in steady state, under a counting global
// allocator: a command from received bytes to the control thread's queue (MessageReader's arena,
// CommandIntake), the telemetry frame of each period (TelemetryFrames), and the state stream's
// frame of each tick (StateStream).
#include <gtest/gtest.h>

#include "published_view.hpp"

#include <string>
#include <vector>

#include "allocation_counter.hpp"
#include "daemon/api/command_intake.hpp"
#include "daemon/api/message_reader.hpp"
#include "daemon/api/state_stream.hpp"
#include "daemon/api/telemetry_frames.hpp"
#include "proto/framing.hpp"

namespace robot_edge::daemon {
namespace {

const config::Config& Config() {
  static const config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  return c;
}

// The client's wall clock and robot-edged's: steady time + this.
constexpr std::int64_t kClientClock = 1'800'000'000'000'000;

// A framed trajectory command at the stand pose with gains, sequence `s`, sent at `t_us`.
std::string TrajectoryBytes(std::uint32_t s, std::int64_t t_us) {
  edge::ClientMessage m;
  edge::CloudCommand& c = *m.mutable_command();
  c.set_sequence(s);
  c.set_timestamp_us(static_cast<std::uint64_t>(kClientClock + t_us));
  auto* segment = c.mutable_trajectory()->mutable_full()->add_segments();
  for (const auto& j : Config().joints) {
    segment->add_positions(static_cast<float>(j.stand_rad));
    segment->add_kp(static_cast<float>(j.kp));
    segment->add_kd(static_cast<float>(j.kd));
  }
  std::string bytes;
  proto::AppendDelimited(m, &bytes);
  return bytes;
}

TEST(ApiAllocation, ACommandFromBytesToTheControlThreadAllocatesNothing) {
  ControlChannels channels(Config(), 8, 64);
  test::PublishView(&channels);
  std::int64_t wall_us = kClientClock;
  CommandIntake intake(Config(), &channels, [&wall_us] { return wall_us; });
  MessageReader reader;
  const CommandIntake::Client client{1, "cloud", true, ""};
  std::vector<std::string> commands;
  for (std::uint32_t s = 1; s <= 1200; ++s) commands.push_back(TrajectoryBytes(s, 20'000 * s));
  std::size_t queued = 0;
  const auto feed = [&](std::size_t i) {
    const std::int64_t now_us = 20'000 * static_cast<std::int64_t>(i + 1) + 500;
    wall_us = kClientClock + now_us;
    reader.Feed(
        std::span(reinterpret_cast<const std::uint8_t*>(commands[i].data()), commands[i].size()),
        [&](const edge::ClientMessage& m) {
          queued += intake.Submit(client, m.command(), now_us).kind ==
                    CommandIntake::Outcome::Kind::kQueued;
          return true;
        });
    while (CommandSlot* slot = channels.commands.Receive()) channels.commands.Release(slot);
  };
  for (std::size_t i = 0; i < 200; ++i) feed(i);  // warm up: every slot used once
  std::size_t allocations = 0;
  {
    robot_edge::test::AllocationCounter counter;
    for (std::size_t i = 200; i < commands.size(); ++i) feed(i);
    allocations = counter.count();
  }
  EXPECT_EQ(queued, commands.size()) << "every command went through";
  EXPECT_EQ(allocations, 0u);
}

TEST(ApiAllocation, TheTelemetryFrameOfEachPeriodAllocatesNothing) {
  ControlSnapshot snapshot(Config().joints.size());
  snapshot.tick_us = 1000;
  snapshot.alert_count = 2;  // alerts too: repeated messages
  TelemetryFrames frames(Config());
  std::vector<Frame> held;  // sessions still sending some frames
  const auto build = [&](std::uint32_t sequence) {
    Frame f = frames.Build(snapshot, sequence, {2000, 1'800'000'000'000'000ull});
    if (sequence % 3 == 0) held.push_back(f);
    if (held.size() > 4) held.erase(held.begin());
    return f;
  };
  for (std::uint32_t s = 1; s <= 20; ++s) build(s);
  std::size_t allocations = 0;
  std::size_t bytes = 0;
  {
    robot_edge::test::AllocationCounter counter;
    for (std::uint32_t s = 21; s <= 1020; ++s) bytes = build(s)->size();
    allocations = counter.count();
  }
  EXPECT_GT(bytes, 500u);
  EXPECT_EQ(allocations, 0u);
}

TEST(ApiAllocation, TheStateStreamsFrameOfEachTickAllocatesNothing) {
  ControlChannels channels(Config(), 8, 64);
  StateStream stream(Config(), &channels);
  StateSample sample(Config().joints.size());
  sample.imu.has_accel = true;
  std::vector<Frame> held;  // slow sessions still sending some frames
  const auto build = [&](std::uint64_t tick) {
    sample.tick = tick;
    sample.tick_us = static_cast<std::int64_t>(tick) * 2000;
    Frame f = stream.Build(sample, {sample.tick_us, 1'800'000'000'000'000ull});
    if (tick % 2 == 0) held.push_back(f);
    if (held.size() > 8) held.erase(held.begin());
    return f;
  };
  for (std::uint64_t t = 1; t <= 40; ++t) build(t);
  std::size_t allocations = 0;
  std::size_t bytes = 0;
  {
    robot_edge::test::AllocationCounter counter;
    for (std::uint64_t t = 41; t <= 5040; ++t) bytes = build(t)->size();
    allocations = counter.count();
  }
  EXPECT_GT(bytes, 1000u) << "25 joints' state";
  EXPECT_EQ(allocations, 0u);
}

}  // namespace
}  // namespace robot_edge::daemon
