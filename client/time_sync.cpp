#include "client/time_sync.hpp"

#include <algorithm>
#include <chrono>

namespace robot_edge::client {

ClockOffset Estimate(const TimeSyncSample& s) {
  ClockOffset out;
  out.round_trip_us =
      (s.client_receive_us - s.client_send_us) - (s.robot_send_us - s.robot_receive_us);
  // Halved separately: the sum of two large offsets cannot overflow.
  out.offset_us =
      (s.robot_receive_us - s.client_send_us) / 2 + (s.robot_send_us - s.client_receive_us) / 2;
  return out;
}

ClockOffset BestEstimate(std::span<const TimeSyncSample> samples) {
  ClockOffset best = Estimate(samples.front());
  for (const TimeSyncSample& s : samples.subspan(1)) {
    const ClockOffset e = Estimate(s);
    if (e.round_trip_us < best.round_trip_us) best = e;
  }
  return best;
}

std::int64_t MonotonicMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace robot_edge::client
