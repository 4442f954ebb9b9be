// The control thread's scheduling, as robot-edged reports it at start
// (daemon/control/realtime.hpp): a thread at normal scheduling is warned about plainly, naming what
// the stall detector will do; a SCHED_FIFO one is not.
#include "daemon/control/realtime.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <optional>
#include <string>
#include <thread>

namespace robot_edge::daemon {
namespace {

TEST(Realtime, ANormalThreadIsWarnedAboutWithWhatTheStallDetectorDoes) {
  std::optional<std::string> w;
  std::thread([&] { w = NotRealtimeWarning(50); }).join();
  ASSERT_TRUE(w);
  EXPECT_NE(w->find("normal scheduling, not real-time"), std::string::npos) << *w;
  EXPECT_NE(w->find("DAMPs the robot after 50 ms without a tick (safety.control_stall_ms)"),
            std::string::npos)
      << *w;
  std::thread([&] { w = NotRealtimeWarning(0); }).join();
  ASSERT_TRUE(w);
  EXPECT_NE(w->find("the stall detector is off"), std::string::npos) << *w;
}

// Where SCHED_FIFO is granted (root, or RLIMIT_RTPRIO as the unit gives): ApplyRealtime takes it
// and nothing is warned. Where it is refused, ApplyRealtime says so and the warning stands.
TEST(Realtime, AFifoThreadIsNotWarnedAbout) {
  std::vector<std::string> refused;
  std::optional<std::string> w;
  std::thread([&] {
    config::RealtimeConfig rt;
    rt.priority = 10;
    refused = ApplyRealtime(rt);
    w = NotRealtimeWarning(50);
  }).join();
  if (refused.empty()) {
    EXPECT_FALSE(w) << *w;
  } else {
    std::printf("SCHED_FIFO refused here (%s): the warning must stand\n", refused[0].c_str());
    EXPECT_TRUE(w);
  }
}

}  // namespace
}  // namespace robot_edge::daemon
