// A Bus for unit tests of logic: records what is sent, delivers frames a test injects, and can
// refuse frames like a full transmit queue. Never use it to test SocketCAN itself (the vcan tests
// do that on real interfaces).
//
// After construction it does not allocate unless more than `capacity` frames pile up.
#pragma once

#include <deque>
#include <vector>

#include "can/bus.hpp"

namespace robot_edge::can {

class FakeBus final : public Bus {
 public:
  explicit FakeBus(std::string interface = "fake0", std::size_t capacity = 4096);

  std::size_t Send(std::span<const can_frame> frames) override;
  std::size_t Receive(std::span<can_frame> out) override;
  const BusCounters& counters() const override { return counters_; }
  const std::string& interface() const override { return interface_; }

  // Test side.
  void Inject(const can_frame& frame);  // received by the next Receive()
  const std::vector<can_frame>& sent() const { return sent_; }
  void ClearSent() { sent_.clear(); }
  // Accept at most `frames` per Send() (the rest count as send failures, as with ENOBUFS).
  void set_send_limit(std::size_t frames) { send_limit_ = frames; }
  // A link that is down refuses every frame.
  void set_link_up(bool up) { counters_.link_up.store(up); }

 private:
  std::string interface_;
  BusCounters counters_;
  std::vector<can_frame> sent_;
  std::vector<can_frame> inbox_;
  std::size_t inbox_read_ = 0;
  std::size_t send_limit_ = static_cast<std::size_t>(-1);
};

}  // namespace robot_edge::can
