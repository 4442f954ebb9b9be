// After construction the state machine and the validator's hand-off target never allocate:
// Step() and Submit() run on the control thread. Counts heap allocations over many ticks with a
// replaced global allocator (the model: ros2_control's test_rt_allocation).
#include <gtest/gtest.h>

#include "allocation_counter.hpp"
#include "fixture.hpp"

namespace robot_edge::sm {
namespace {

using test::kMs;

TEST(Allocation, ThousandsOfTicksThroughEveryModeAllocateNothing) {
  test::Machine m;
  test::TrajectoryMaker stream;
  std::vector<float> pose(25, 0.1f);
  Command t0 = stream.Make(pose, 0);  // built before counting
  Command stand = test::ModeCmd(ModeRequest::kStand);
  Command damp = test::ModeCmd(ModeRequest::kDamp);
  Command walk = test::VelocityCmd(0.5f, 0, 0);
  Command joint = m.joint.Zero(0);

  std::size_t allocations = 0;
  {
    robot_edge::test::AllocationCounter counter;
    std::int64_t t = 0;
    for (int cycle = 0; cycle < 5; ++cycle) {
      m.sm.Submit(t, stand);
      for (int i = 0; i < 500; ++i, t += 2 * kMs) m.Step(t);
      m.sm.Submit(t, walk);
      for (int i = 0; i < 500; ++i, t += 2 * kMs) m.Step(t);
      m.sm.Submit(t, stand);
      m.Step(t);
      for (int i = 0; i < 500; ++i, t += 2 * kMs) {
        if (i % 10 == 0) {
          t0.received_us = t;
          m.sm.Submit(t, t0);
        }
        m.Step(t);
      }
      for (int i = 0; i < 150; ++i, t += 2 * kMs) m.Step(t);  // watchdog -> DAMP
      for (int i = 0; i < 500; ++i, t += 2 * kMs) {           // a joint stream from DAMP
        joint.received_us = joint.sent_us = t;
        m.joint.command().end_us = t + 10 * kMs;
        m.sm.Submit(t, joint);
        m.Step(t);
      }
      for (int i = 0; i < 150; ++i, t += 2 * kMs) m.Step(t);  // watchdog -> DAMP
      m.robot.joints[3].temperature_c = 90;                   // alert raised and cleared
      m.Step(t += 2 * kMs);
      m.robot.joints[3].temperature_c = 30;
      m.Step(t += 2 * kMs);
      m.sm.Submit(t, damp);
    }
    allocations = counter.count();
  }
  EXPECT_EQ(allocations, 0u);
  EXPECT_EQ(m.sm.mode(), Mode::kDamp);
}

}  // namespace
}  // namespace robot_edge::sm
