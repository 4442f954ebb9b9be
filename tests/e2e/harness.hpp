// The end-to-end tests' view of the robot rig (tests/common/robot_rig.hpp): the same Robot, which
// shows both programs' logs when the test that used it failed.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "robot_rig.hpp"

namespace robot_edge::e2e {

using namespace test;  // the rig: Robot, BusMonitor, Command, WaitTelemetry, ...

class Robot : public test::Robot {
 public:
  using test::Robot::Robot;
  // A daemon that does not exit within 10 s of SIGTERM fails the test (systemd would kill it;
  // a restart would wait that long).
  ~Robot() override {
    if (DaemonRunning() && StopDaemon(10s) == -1) {
      ADD_FAILURE() << "robot-edged did not exit within 10 s of SIGTERM";
    }
    if (testing::Test::HasFailure()) DumpLogs();
  }
};

// Waits until every motor has replied recently (the daemon accepts STAND only then).
inline void WaitMotorsReady(client::Client& c) {
  ASSERT_TRUE(MotorsReady(c)) << "the motors never all replied";
}

// An alert with this id and source is active in `t`.
inline bool HasAlert(const edge::EdgeTelemetry& t, std::uint32_t id, std::uint32_t source) {
  for (const auto& a : t.active_alerts()) {
    if (a.id() == id && a.source_id() == source) return true;
  }
  return false;
}

// Every joint of `t` within `tolerance_rad` of `pose`.
inline bool AtPose(const edge::EdgeTelemetry& t, const std::vector<float>& pose,
                   float tolerance_rad) {
  for (std::size_t j = 0; j < pose.size(); ++j) {
    if (static_cast<int>(j) >= t.joint_pos_size() ||
        !(std::fabs(t.joint_pos(static_cast<int>(j)) - pose[j]) <= tolerance_rad)) {
      return false;
    }
  }
  return true;
}

}  // namespace robot_edge::e2e
