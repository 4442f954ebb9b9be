// The robot's clock as a client sees it (edge_api.proto TimeSyncRequest / TimeSyncResult; the
// model: Spot's TimeSync). Robot time is robot-edged's monotonic clock in µs, the time base of
// JointCommand.end_time_us and reference_time_us. Pure arithmetic here; Client::SyncClock does
// the exchanges.
#pragma once

#include <cstdint>
#include <span>

namespace robot_edge::client {

// One exchange: the client's clock when it sent the request and when it read the answer, the
// robot's when it read the request and when it wrote the answer (µs).
struct TimeSyncSample {
  std::int64_t client_send_us = 0;
  std::int64_t robot_receive_us = 0;
  std::int64_t robot_send_us = 0;
  std::int64_t client_receive_us = 0;
};

struct ClockOffset {
  std::int64_t offset_us = 0;      // robot time = client time + offset_us
  std::int64_t round_trip_us = 0;  // of the exchange it comes from: the offset's uncertainty is
                                   // at most half of it
  std::int64_t ToRobot(std::int64_t client_us) const { return client_us + offset_us; }
};

// The offset of one exchange (NTP's): the round trip without the robot's own time, and the mean
// of the two one-way differences.
ClockOffset Estimate(const TimeSyncSample& sample);
// The estimate of the exchange with the shortest round trip (the least queueing); `samples` is
// not empty.
ClockOffset BestEstimate(std::span<const TimeSyncSample> samples);

// The client's clock for time sync: its monotonic clock in µs.
std::int64_t MonotonicMicros();

}  // namespace robot_edge::client
