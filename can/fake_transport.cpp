#include "can/fake_transport.hpp"

#include "can/error_frame.hpp"

namespace robot_edge::can {

FakeTransport::FakeTransport(std::vector<std::string> interfaces, std::size_t capacity) {
  for (auto& name : interfaces) {
    buses_.push_back(std::make_unique<Bus>());
    buses_.back()->name = std::move(name);
    buses_.back()->sent.reserve(capacity);
  }
  inbox_.reserve(capacity);
}

std::size_t FakeTransport::Send(std::span<const BusFrame> frames) {
  ++send_calls_;
  for (auto& b : buses_) b->accepted_this_call = 0;
  std::size_t sent = 0;
  for (const BusFrame& f : frames) {
    Bus& bus = *buses_[f.bus];
    if (bus.counters.link_up.load() && bus.accepted_this_call < bus.send_limit) {
      bus.sent.push_back(f.frame);
      ++bus.accepted_this_call;
      BusCounters::Add(bus.counters.frames_sent, 1);
      ++sent;
    } else {
      BusCounters::Add(bus.counters.send_failures, 1);
    }
  }
  return sent;
}

std::size_t FakeTransport::Receive(std::span<BusFrame> out) {
  std::size_t count = 0;
  while (count < out.size() && inbox_read_ < inbox_.size()) {
    const BusFrame& f = inbox_[inbox_read_++];
    BusCounters& c = buses_[f.bus]->counters;
    if (IsErrorFrame(f.frame)) {
      CountErrorFrame(f.frame, &c);
      continue;
    }
    out[count++] = f;
    BusCounters::Add(c.frames_received, 1);
    c.bus_off.store(false, std::memory_order_relaxed);
  }
  if (inbox_read_ == inbox_.size()) {
    inbox_.clear();
    inbox_read_ = 0;
  }
  return count;
}

void FakeTransport::Inject(std::uint32_t bus, const can_frame& frame) {
  inbox_.push_back({bus, frame});
}

std::size_t FakeTransport::sent_count() const {
  std::size_t n = 0;
  for (const auto& b : buses_) n += b->sent.size();
  return n;
}

void FakeTransport::ClearSent() {
  for (auto& b : buses_) b->sent.clear();
}

}  // namespace robot_edge::can
