// The control thread's side for API-thread tests without one: the state machine's view after a
// tick, as ControlLoop publishes it (ControlSnapshot::admission), with its motors and IMU ready.
#pragma once

#include "daemon/channels/control_channels.hpp"
#include "statemachine/admission.hpp"

namespace robot_edge::daemon::test {

inline void PublishView(ControlChannels* channels, sm::Mode mode = sm::Mode::kDamp,
                        bool latched = false, const char* latch_holder = "") {
  sm::AdmissionView& v = channels->snapshots.back().admission;
  v = sm::AdmissionView{};
  v.mode = mode;
  v.policy_available = true;
  v.motors_replied = true;
  v.imu_received = true;
  v.stop_latched = latched;
  v.latch_holder = sm::MakeSenderLabel(latch_holder);
  channels->snapshots.Publish();
}

}  // namespace robot_edge::daemon::test
