// After construction the state machine and the validator's hand-off target never allocate:
// Step() and Submit() run on the control thread. Counts heap allocations over many ticks with a
// replaced global allocator (the model: ros2_control's test_rt_allocation).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "fixture.hpp"

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

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

  counting = true;
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
    m.robot.joints[3].temperature_c = 90;                   // alert raised and cleared
    m.Step(t += 2 * kMs);
    m.robot.joints[3].temperature_c = 30;
    m.Step(t += 2 * kMs);
    m.sm.Submit(t, damp);
  }
  counting = false;
  EXPECT_EQ(allocations.load(), 0);
  EXPECT_EQ(m.sm.mode(), Mode::kDamp);
}

}  // namespace
}  // namespace robot_edge::sm
