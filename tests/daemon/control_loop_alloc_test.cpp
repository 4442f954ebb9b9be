// The control thread never allocates in steady state: thousands of ticks with commands streaming
// through the hand-off, mode changes, alerts and events, and every tick's state queued for the
// flight recorder, under a counting global allocator (the model: ros2_control's
// test_rt_allocation). The simulated robot answering runs inside the count too, and allocates
// nothing either.
#include <gtest/gtest.h>

#include "allocation_counter.hpp"
#include "daemon/control/control_loop.hpp"
#include "sim/in_memory_robot.hpp"

namespace robot_edge::daemon {
namespace {

TEST(ControlLoopAllocation, SteadyStateTicksAllocateNothing) {
  const config::Config config = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  sim::InMemoryRobot robot(config);
  ControlChannels channels(config, 8, 4096);
  ControlLoop loop(config, robot.transport(), nullptr, &channels);
  channels.record_states.store(true);  // as when the flight recorder runs

  std::int64_t t = 0;
  const auto tick = [&] {
    robot.Answer(t);
    loop.Tick(t);
    t += 2000;
    ControlEvent e;
    while (channels.events.Pop(&e)) {
    }
    channels.snapshots.Latest();
    while (channels.states.Peek() != nullptr) channels.states.Release();  // the recorder's side
  };
  const auto send = [&](sm::CommandKind kind, sm::ModeRequest mode) {
    CommandSlot* slot = channels.commands.Acquire();
    slot->command = sm::Command{};
    slot->command.kind = kind;
    slot->command.mode = mode;
    slot->command.received_us = slot->command.sent_us = t;
    slot->command.trajectory = &slot->trajectory;
    slot->want_result = true;
    if (kind == sm::CommandKind::kTrajectory && slot->trajectory.segments() == 0) {
      const std::vector<float> pose(25, 0.1f), kp(25, 60.0f), kd(25, 2.0f);
      slot->trajectory.Append(pose, kp, kd);  // slots keep their storage: filled before counting
    }
    channels.commands.Send(slot);
  };
  // Warm up: every path once, and fill every slot's trajectory while allocation is allowed.
  for (int i = 0; i < 8; ++i) send(sm::CommandKind::kTrajectory, sm::ModeRequest::kStand);
  for (int i = 0; i < 300; ++i) tick();

  std::size_t allocations = 0;
  {
    robot_edge::test::AllocationCounter counter;
    for (int cycle = 0; cycle < 3; ++cycle) {
      send(sm::CommandKind::kMode, sm::ModeRequest::kStand);
      for (int i = 0; i < 500; ++i) tick();
      for (int i = 0; i < 500; ++i) {
        if (i % 10 == 0) send(sm::CommandKind::kTrajectory, sm::ModeRequest::kStand);
        tick();
      }
      for (int i = 0; i < 150; ++i) tick();       // trajectory timeout -> DAMP
      robot.robot().motor(4).PinTemperature(90);  // alert raised ...
      for (int i = 0; i < 5; ++i) tick();
      robot.robot().motor(4).PinTemperature(30);  // ... and cleared
      for (int i = 0; i < 5; ++i) tick();
    }
    allocations = counter.count();
  }
  EXPECT_EQ(allocations, 0u) << "heap allocations on the control thread";
}

}  // namespace
}  // namespace robot_edge::daemon
