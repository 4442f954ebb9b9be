#include "daemon/api/state_stream.hpp"

#include <algorithm>
#include <cmath>

#include "daemon/api/record_messages.hpp"
#include "proto/framing.hpp"

namespace robot_edge::daemon {

RateDivider::RateDivider(std::uint32_t rate_hz, std::uint32_t control_rate_hz)
    : rate_(rate_hz),
      control_rate_(std::max<std::uint32_t>(control_rate_hz, 1)),
      credit_(control_rate_) {}

bool RateDivider::Due(std::uint64_t tick) {
  if (started_) {
    const std::uint64_t passed = std::min<std::uint64_t>(tick - last_tick_, control_rate_);
    credit_ = std::min(credit_ + rate_ * passed, control_rate_ + rate_ - 1);
  }
  started_ = true;
  last_tick_ = tick;
  if (credit_ < control_rate_) return false;
  credit_ -= control_rate_;
  return true;
}

StateStream::StateStream(const config::Config& config, ControlChannels* channels)
    : channels_(channels),
      control_rate_hz_(static_cast<std::uint32_t>(std::lround(config.control.rate_hz))),
      reply_timeout_us_(ReplyTimeoutUs(config)) {
  subscribers_.reserve(config.api.max_clients);
}

std::uint32_t StateStream::Subscribe(const std::shared_ptr<Session>& session,
                                     std::uint32_t rate_hz) {
  Remove(*session);
  const std::uint32_t granted = std::min(rate_hz, control_rate_hz_);
  if (granted > 0) subscribers_.push_back({session, RateDivider(granted, control_rate_hz_)});
  channels_->stream_states_on.store(!subscribers_.empty(), std::memory_order_relaxed);
  return granted;
}

void StateStream::Remove(const Session& session) {
  std::erase_if(subscribers_, [&](const Subscriber& s) { return s.session.get() == &session; });
  channels_->stream_states_on.store(!subscribers_.empty(), std::memory_order_relaxed);
}

void StateStream::Drain(const Clocks& clocks) {
  while (const StateSample* sample = channels_->stream_states.Peek()) {
    Frame frame;
    for (Subscriber& s : subscribers_) {
      if (!s.divider.Due(sample->tick)) continue;
      if (!frame) frame = Build(*sample, clocks);
      s.session->SendState(frame);
    }
    channels_->stream_states.Release();
  }
}

Frame StateStream::Build(const StateSample& sample, const Clocks& clocks) {
  FillJointState(sample, clocks, reply_timeout_us_, message_.mutable_joint_state());
  std::shared_ptr<std::string> frame = frames_.Take();
  proto::AppendDelimited(message_, frame.get());
  ++frames_built_;
  return frame;
}

}  // namespace robot_edge::daemon
