// cli::StopSignals: SIGTERM and SIGINT turn its flag, and nothing else does.
#include "cli/stop_signals.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace robot_edge::cli {
namespace {

using namespace std::chrono_literals;

bool TurnsWithin(const std::atomic<bool>& flag, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!flag.load() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  return flag.load();
}

TEST(StopSignals, SigtermStopsAndTheProcessLives) {
  const StopSignals signals;
  EXPECT_FALSE(TurnsWithin(signals.stop(), 300ms)) << "nothing asked it to stop";
  ASSERT_EQ(::kill(::getpid(), SIGTERM), 0);
  EXPECT_TRUE(TurnsWithin(signals.stop(), 3000ms)) << "SIGTERM was not taken";
}

TEST(StopSignals, SigintStopsToo) {
  const StopSignals signals;
  ASSERT_EQ(::kill(::getpid(), SIGINT), 0);
  EXPECT_TRUE(TurnsWithin(signals.stop(), 3000ms));
}

}  // namespace
}  // namespace robot_edge::cli
