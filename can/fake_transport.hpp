// A Transport for unit tests of logic: records what is sent, per bus; delivers frames a test
// injects; can refuse frames like a full transmit queue or a link that is down. Never use it to
// test SocketCAN itself (the vcan tests do that on real interfaces).
//
// After construction it does not allocate unless more than `capacity` frames pile up.
#pragma once

#include <memory>
#include <vector>

#include "can/transport.hpp"

namespace robot_edge::can {

class FakeTransport final : public Transport {
 public:
  explicit FakeTransport(std::vector<std::string> interfaces, std::size_t capacity = 4096);

  std::size_t bus_count() const override { return buses_.size(); }
  std::size_t Send(std::span<const BusFrame> frames) override;
  std::size_t Receive(std::span<BusFrame> out) override;
  const BusCounters& counters(std::size_t bus) const override { return buses_[bus]->counters; }
  const std::string& interface(std::size_t bus) const override { return buses_[bus]->name; }

  // Test side.
  void Inject(std::uint32_t bus, const can_frame& frame);  // received by the next Receive()
  const std::vector<can_frame>& sent(std::size_t bus) const { return buses_[bus]->sent; }
  std::size_t sent_count() const;  // all buses
  void ClearSent();
  // Accept at most `frames` per Send() call on `bus` (the rest count as send failures).
  void set_send_limit(std::size_t bus, std::size_t frames) { buses_[bus]->send_limit = frames; }
  // A link that is down refuses every frame.
  void set_link_up(std::size_t bus, bool up) { buses_[bus]->counters.link_up.store(up); }
  std::size_t send_calls() const { return send_calls_; }

 private:
  struct Bus {
    std::string name;
    BusCounters counters;
    std::vector<can_frame> sent;
    std::size_t send_limit = static_cast<std::size_t>(-1);
    std::size_t accepted_this_call = 0;
  };
  std::vector<std::unique_ptr<Bus>> buses_;
  std::vector<BusFrame> inbox_;
  std::size_t inbox_read_ = 0;
  std::size_t send_calls_ = 0;
};

}  // namespace robot_edge::can
