// The flight recorder's thread ("re-record"): every control tick's StateSample (from the control
// thread, ControlChannels::states) and what the API thread hands it (telemetry and event frames,
// commands and their verdicts, clients) become protobuf messages on the recording channels
// (record_messages.hpp); with the /can channel, so do the frames the control thread's transport
// copies (can/frame_tap.hpp). They go to the continuous recording when it is on
// (recorder.channels), to the black box when it is on (every channel: the last
// recorder.black_box_seconds in memory). (The live view is robot-edge-live, a client of the API:
// it takes the state stream, telemetry and events, not the recorder's channels.) The black box is
// written when a critical alert or a policy fault is raised while the robot was out of DAMP within
// its window (a robot lying in DAMP, or just booted, writes nothing), or when an operator asks.
//
// Threads: the owner (the API thread) constructs, Start()s, Stop()s, feeds and asks; the recorder
// thread owns the files, the black box and the protobuf messages. Nothing here waits on the
// control thread or makes it wait: it fills `states` in place and loses a tick's state when the
// queue is full (a slow disk loses recording, never control). The Feed*() calls copy into a
// preallocated ring and never allocate or wait; a full ring loses the record (counted).
// Requests and their answers pass through a small mutex-guarded queue (API and recorder threads
// only, each holding it for a push or a pop).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "can/frame_tap.hpp"
#include "config/config.hpp"
#include "daemon/api/event_log.hpp"
#include "daemon/api/record_messages.hpp"
#include "daemon/channels/control_channels.hpp"
#include "edge_api.pb.h"
#include "handoff/byte_ring.hpp"

namespace robot_edge::recorder {
class BlackBox;
class RotatingRecorder;
}  // namespace robot_edge::recorder

namespace robot_edge::daemon {

class FlightRecorder {
 public:
  // Bytes of the API thread's hand-off ring: ~2 s of commands, telemetry and events.
  static constexpr std::size_t kRingBytes = 4 << 20;

  // `channels` and `can_tap` (null: no /can channel; else the control thread's transport,
  // copying while the recorder runs) outlive the recorder.
  // `version`: the daemon's, written into every file's metadata. Throws nothing: a directory it
  // cannot use is reported by Start() and recording stays off.
  FlightRecorder(const config::Config& config, ControlChannels* channels, std::string version,
                 can::FrameTap* can_tap = nullptr);
  ~FlightRecorder();
  FlightRecorder(const FlightRecorder&) = delete;
  FlightRecorder& operator=(const FlightRecorder&) = delete;

  // Starts the thread, the black box, and the continuous recording with
  // recorder.record_on_start. Returns warnings for the log (a recording that could not start).
  std::vector<std::string> Start();
  // Stops the thread; what was queued is recorded, an open recording is closed (its summary
  // written), a pending black box written.
  void Stop();

  // API thread. A frame the hub built: telemetry, or an event.
  void FeedFrame(RecordTag tag, const Frame& frame);
  // API thread. A command as it arrived (with the API thread's verdict when it decided), or the
  // control thread's verdict on a queued one (`command` empty).
  void FeedCommand(RecordTag tag, const CommandNote& note, std::span<const std::uint8_t> command);
  // API thread. A client said Hello: its description for the command records.
  void FeedClient(std::uint64_t id, std::string_view peer, std::string_view controller);

  // API thread. A RecorderRequest of client `client`; its answer comes from TakeAnswers().
  void Ask(std::uint64_t client, const edge::RecorderRequest& request);
  std::vector<std::pair<std::uint64_t, edge::RecorderResult>> TakeAnswers();

  // Records the API thread could not hand over (the ring was full).
  std::uint64_t feed_lost() const { return feed_lost_.load(std::memory_order_relaxed); }

 private:
  class Worker;  // the recorder thread's state (flight_recorder.cpp)

  const config::Config& config_;
  ControlChannels* channels_;
  can::FrameTap* can_tap_;
  ByteRing ring_{kRingBytes};
  std::atomic<std::uint64_t> feed_lost_{0};
  std::mutex mutex_;  // guards requests_ and answers_
  std::deque<std::pair<std::uint64_t, edge::RecorderRequest>> requests_;
  std::deque<std::pair<std::uint64_t, edge::RecorderResult>> answers_;
  std::unique_ptr<Worker> worker_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::string client_scratch_;  // API thread: a kClient payload being built
};

}  // namespace robot_edge::daemon
