// The end-to-end tests' view of the robot rig (tests/common/robot_rig.hpp): the same Robot, which
// shows both programs' logs when the test that used it failed.
#pragma once

#include <gtest/gtest.h>

#include "robot_rig.hpp"

namespace robot_edge::e2e {

using namespace test;  // the rig: Robot, BusMonitor, Command, WaitTelemetry, ...

class Robot : public test::Robot {
 public:
  using test::Robot::Robot;
  ~Robot() override {
    if (testing::Test::HasFailure()) DumpLogs();
  }
};

// Waits until every motor has replied recently (the daemon accepts STAND only then).
inline void WaitMotorsReady(client::Client& c) {
  ASSERT_TRUE(MotorsReady(c)) << "the motors never all replied";
}

}  // namespace robot_edge::e2e
