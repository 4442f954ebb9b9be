// The state stream (edge_api.proto StateStreamRequest): every subscribed session gets the
// JointState of `rate_hz` control ticks a second, spread evenly over the ticks. A tick's frame is
// built once, when a first session is due for it, and shared by all of them; the message is kept
// and the frames pooled, so that a frame costs no heap allocation in steady state.
//
// The control thread queues every tick's StateSample (ControlChannels::stream_states) while
// someone subscribes (`stream_states_on`), and wakes the API thread, which calls Drain().
//
// Threads: the API thread's.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "config/config.hpp"
#include "daemon/api/frame_pool.hpp"
#include "daemon/api/messages.hpp"
#include "daemon/api/session.hpp"
#include "daemon/channels/control_channels.hpp"
#include "edge_api.pb.h"

namespace robot_edge::daemon {

// Which ticks go out at `rate_hz` of a `control_rate_hz` loop: each tick adds rate_hz of credit,
// and a tick whose credit reaches control_rate_hz goes out. The average is exact, the gaps are
// whole ticks (at 200 of 500 Hz: 3, 2, 3, 2 ...), and the first tick goes out at once. Ticks the
// queue lost count as passed; credit never adds up to more than one state.
class RateDivider {
 public:
  RateDivider(std::uint32_t rate_hz, std::uint32_t control_rate_hz);
  bool Due(std::uint64_t tick);

 private:
  std::uint64_t rate_;
  std::uint64_t control_rate_;
  std::uint64_t credit_;
  std::uint64_t last_tick_ = 0;
  bool started_ = false;
};

class StateStream {
 public:
  // `channels` outlives the stream.
  StateStream(const config::Config& config, ControlChannels* channels);

  // Streams to `session` at `rate_hz` (0: stops), replacing its earlier request. Returns the
  // granted rate: rate_hz, at most the control rate.
  std::uint32_t Subscribe(const std::shared_ptr<Session>& session, std::uint32_t rate_hz);
  void Remove(const Session& session);
  // Sends the queued states to the sessions they are due for. `clocks` stamps wall time.
  void Drain(const Clocks& clocks);
  // The frame of one state, as Drain() sends it (a length-prefixed ServerMessage.joint_state).
  Frame Build(const StateSample& sample, const Clocks& clocks);

  std::size_t subscriber_count() const { return subscribers_.size(); }
  // Frames built since start (each shared by every session due for it).
  std::uint64_t frames_built() const { return frames_built_; }

 private:
  struct Subscriber {
    std::shared_ptr<Session> session;
    RateDivider divider;
  };

  ControlChannels* channels_;
  std::uint32_t control_rate_hz_;
  std::int64_t reply_timeout_us_;
  std::vector<Subscriber> subscribers_;
  edge::ServerMessage message_;
  FramePool frames_{16, 4096};  // 25 joints: ~1.3 KB a frame
  std::uint64_t frames_built_ = 0;
};

}  // namespace robot_edge::daemon
