// The control thread's sleep: until its absolute deadline, or until woken for an emergency stop.
#include "daemon/channels/control_wake.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "daemon/control/control_loop.hpp"

namespace robot_edge::daemon {
namespace {

TEST(ControlWake, SleepsUntilTheDeadlineWhenNobodyWakesIt) {
  ControlWake wake;
  const std::int64_t start = SteadyMicros();
  EXPECT_FALSE(wake.SleepUntil(start + 20'000));
  EXPECT_GE(SteadyMicros(), start + 20'000) << "never before the deadline";
}

TEST(ControlWake, AWakeBeforeTheSleepEndsItAtOnceAndIsConsumed) {
  ControlWake wake;
  wake.Wake();
  wake.Wake();  // several count as one
  const std::int64_t start = SteadyMicros();
  EXPECT_TRUE(wake.SleepUntil(start + 5'000'000));
  EXPECT_LT(SteadyMicros() - start, 1'000'000);
  EXPECT_FALSE(wake.SleepUntil(SteadyMicros() + 10'000)) << "consumed";
}

TEST(ControlWake, AnotherThreadWakesASleeperLongBeforeItsDeadline) {
  ControlWake wake;
  const std::int64_t start = SteadyMicros();
  std::thread waker([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    wake.Wake();
  });
  EXPECT_TRUE(wake.SleepUntil(start + 10'000'000));
  EXPECT_LT(SteadyMicros() - start, 5'000'000) << "woken, not timed out (10 s)";
  waker.join();
}

TEST(ControlWake, APastDeadlineReturnsAtOnce) {
  ControlWake wake;
  EXPECT_FALSE(wake.SleepUntil(SteadyMicros() - 1000));
}

}  // namespace
}  // namespace robot_edge::daemon
