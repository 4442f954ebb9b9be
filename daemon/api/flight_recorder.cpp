#include "daemon/api/flight_recorder.hpp"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <map>

#include "daemon/channels/clock.hpp"
#include "daemon/channels/injected_throw.hpp"
#include "live/robot_document.hpp"
#include "proto/framing.hpp"
#include "proto/schema.hpp"
#include "recorder/black_box.hpp"
#include "recorder/file_system.hpp"
#include "recorder/rotating_recorder.hpp"

namespace robot_edge::daemon {
namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;
// The thread sleeps this long when it found nothing to do: states come in batches of ~5 at
// 500 Hz (the queue holds 2 s), and an emulated kernel (tests under user-mode-linux) is spared
// 500 wake-ups a second.
constexpr auto kIdle = std::chrono::milliseconds(10);

recorder::Compression CompressionOf(const std::string& name) {
  if (name == "lz4") return recorder::Compression::kLz4;
  if (name == "none") return recorder::Compression::kNone;
  return recorder::Compression::kZstd;
}

std::vector<recorder::ChannelInfo> ChannelInfos() {
  std::vector<recorder::ChannelInfo> out;
  for (std::size_t i = 0; i < kRecordChannelCount; ++i) {
    const RecordChannelSpec& spec = SpecOf(static_cast<RecordChannel>(i));
    recorder::ChannelInfo c;
    c.topic = spec.topic;
    c.schema_name = spec.descriptor->full_name();
    c.schema = proto::FileDescriptorSetOf(spec.descriptor);
    out.push_back(std::move(c));
  }
  return out;
}

// What every file says about the run it records: "run" (robot, daemon, config), and
// "robot_document" (json: the live view's /robot.json, joint names and limits, so that
// robot-edge-replay shows a file with the dashboard without the robot's config).
recorder::FileMetadata RunMetadata(const config::Config& config, const std::string& version) {
  return {{"run",
           {{"robot", config.robot_name},
            {"robot_edged", version},
            {"config", config.source},
            {"joints", std::to_string(config.joints.size())},
            {"control_rate_hz", std::to_string(config.control.rate_hz)}}},
          {"robot_document", {{"json", live::RobotDocument(config)}}}};
}

std::uint64_t Ns(std::uint64_t us) { return us * 1000; }

}  // namespace

// The recorder thread's own state. Every method runs on it (Open/Close on the owner's thread
// while the recorder thread is not running).
class FlightRecorder::Worker {
 public:
  Worker(const config::Config& config, ControlChannels* channels, std::string version,
         ByteRing* ring, can::FrameTap* can_tap)
      : config_(config), channels_(channels), ring_(ring), can_tap_(can_tap) {
    for (const config::BusConfig& bus : config.buses) can_frames_.add_interfaces(bus.interface);
    const std::vector<recorder::ChannelInfo> infos = ChannelInfos();
    const config::RecorderConfig& c = config.recorder;
    recorder::McapWriterOptions mcap;
    mcap.profile = "robot-edge";
    mcap.library = "robot-edged " + version;
    mcap.compression = CompressionOf(c.compression);
    const auto metadata = RunMetadata(config, version);

    recorder::RotatingRecorderOptions r;
    r.directory = c.directory_path;
    r.max_file_bytes = static_cast<std::uint64_t>(c.max_file_mb) * kMiB;
    r.max_file_seconds = static_cast<std::uint64_t>(c.max_file_minutes) * 60;
    r.retention_bytes = static_cast<std::uint64_t>(c.retention_gb * 1024.0 * kMiB);
    r.min_free_bytes = static_cast<std::uint64_t>(c.min_free_mb) * kMiB;
    r.mcap = mcap;
    r.metadata = metadata;
    recording_ = std::make_unique<recorder::RotatingRecorder>(r, infos, fs_);
    for (const std::string& name : c.channels) {
      for (std::size_t i = 0; i < kRecordChannelCount; ++i) {
        if (name == SpecOf(static_cast<RecordChannel>(i)).name) recorded_[i] = true;
      }
    }
    if (c.black_box) {
      recorder::BlackBoxOptions b;
      b.directory = c.directory_path;
      b.pre_ns = static_cast<std::uint64_t>(c.black_box_seconds * 1e9);
      b.post_ns = static_cast<std::uint64_t>(c.black_box_after_seconds * 1e9);
      b.capacity_bytes = static_cast<std::size_t>(c.black_box_memory_mb) * kMiB;
      b.max_files = c.black_box_files;
      b.mcap.profile = mcap.profile;  // its own chunk size: what one Poll writes at most
      b.mcap.library = mcap.library;
      b.mcap.compression = mcap.compression;
      b.metadata = metadata;
      black_box_ = std::make_unique<recorder::BlackBox>(b, infos, fs_);
    }
  }

  std::vector<std::string> Open() {
    std::vector<std::string> warnings;
    if (config_.recorder.record_on_start && !recording_->Start(Ns(WallMicros()))) {
      warnings.push_back("recorder: not recording: " + recording_->status().error);
    }
    return warnings;
  }

  void Close() {
    recording_->Stop();
    // A pending dump, with what there is (its window may reach past now: it ends short).
    while (black_box_ && black_box_->dumping()) Report(black_box_->Poll(UINT64_MAX));
  }

  // One pass: every queued state and record, the requests; false when there was nothing.
  bool RunOnce(std::deque<std::pair<std::uint64_t, edge::RecorderRequest>>* requests,
               std::deque<std::pair<std::uint64_t, edge::RecorderResult>>* answers) {
    const std::int64_t before_us = SteadyMicros();
    clocks_ = {before_us, WallMicros()};
    clocks_read_us_ = SteadyMicros() - before_us;
    bool worked = false;
    while (const StateSample* s = channels_->states.Peek()) {
      OnSample(*s);
      channels_->states.Release();
      worked = true;
    }
    if (can_tap_ != nullptr) worked |= DrainCanFrames();
    std::uint32_t tag = 0;
    std::span<const std::uint8_t> payload;
    while (ring_->Peek(&tag, &payload)) {
      OnRecord(static_cast<RecordTag>(tag), payload);
      ring_->Pop();
      worked = true;
    }
    for (auto& [client, request] : *requests) answers->emplace_back(client, Handle(request));
    requests->clear();
    if (black_box_) Report(black_box_->Poll(Ns(clocks_.wall_us)));
    return worked;
  }

 private:
  void Emit(RecordChannel channel, std::uint64_t time_ns, const std::string& bytes) {
    const auto i = static_cast<std::size_t>(channel);
    const std::span<const std::uint8_t> data{reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                             bytes.size()};
    if (recorded_[i] && recording_->recording() && !recording_->Write(i, time_ns, data)) {
      spdlog::error("recorder: recording stopped: {}", recording_->status().error);
    }
    if (black_box_) black_box_->Add(i, time_ns, data);
  }

  void OnSample(const StateSample& s) {
    if (s.mode != sm::Mode::kDamp) last_active_us_ = s.tick_us;
    FillJointState(s, StateClock(), ReplyTimeoutUs(config_), &joint_state_);
    joint_state_.SerializeToString(&bytes_);
    Emit(RecordChannel::kJointState, Ns(joint_state_.timestamp_us()), bytes_);
  }

  // The tapped frames, in messages of at most kFramesPerMessage, each logged at its first
  // frame's time. False when there was none.
  bool DrainCanFrames() {
    const Clocks clock = StateClock();
    bool any = false;
    while (const can::TappedFrame* f = can_tap_->frames().Peek()) {
      edge::CanFrame* out = can_frames_.add_frames();
      out->set_timestamp_us(clock.ToWall(f->time_us));
      out->set_bus(f->frame.bus);
      out->set_id(f->frame.frame.can_id &
                  (f->frame.frame.can_id & CAN_EFF_FLAG ? CAN_EFF_MASK : CAN_SFF_MASK));
      out->set_extended((f->frame.frame.can_id & CAN_EFF_FLAG) != 0);
      out->set_rtr((f->frame.frame.can_id & CAN_RTR_FLAG) != 0);
      out->set_sent(f->sent);
      out->set_data(f->frame.frame.data, std::min<std::size_t>(f->frame.frame.len, CAN_MAX_DLEN));
      can_tap_->frames().Release();
      any = true;
      if (can_frames_.frames_size() == kFramesPerMessage) EmitCanFrames();
    }
    if (can_frames_.frames_size() > 0) EmitCanFrames();
    return any;
  }

  void EmitCanFrames() {
    can_frames_.set_lost(can_tap_->lost());
    can_frames_.SerializeToString(&bytes_);
    Emit(RecordChannel::kCan, Ns(can_frames_.frames(0).timestamp_us()), bytes_);
    can_frames_.clear_frames();
  }

  void OnRecord(RecordTag tag, std::span<const std::uint8_t> payload) {
    switch (tag) {
      case RecordTag::kTelemetry:
      case RecordTag::kEvent: OnFrame(payload); break;
      case RecordTag::kCommand:
      case RecordTag::kResult: OnCommand(payload, /*joint=*/false); break;
      case RecordTag::kJointCommand: OnCommand(payload, /*joint=*/true); break;
      case RecordTag::kClient: {
        std::uint64_t id = 0;
        ClientInfo info;
        if (ParseClientPayload(payload, &id, &info)) clients_[id] = std::move(info);
        break;
      }
    }
  }

  void OnFrame(std::span<const std::uint8_t> payload) {
    if (!message_.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) return;
    if (message_.has_telemetry()) {
      message_.telemetry().SerializeToString(&bytes_);
      Emit(RecordChannel::kTelemetry, Ns(message_.telemetry().timestamp_us()), bytes_);
    }
    if (!message_.has_event()) return;
    const edge::EdgeEvent& event = message_.event();
    event.SerializeToString(&bytes_);
    Emit(RecordChannel::kEvents, Ns(event.timestamp_us()), bytes_);
    if (message_.has_diagnostics_extension()) {
      message_.diagnostics_extension().SerializeToString(&bytes_);
      Emit(RecordChannel::kDiagnostics, Ns(event.timestamp_us()), bytes_);
    }
    if (event.has_error()) MaybeTrigger(event.error());
  }

  // The steady -> wall conversion of the states' times. Each pass reads both clocks, and two
  // readings disagree by the time between them (milliseconds on a loaded machine, more when the
  // thread is preempted between them): states from two passes would go backwards in time. So the
  // offset is kept, and taken again only when the wall clock has stepped (by more than
  // kClockStepUs: an NTP correction, a date set by hand) and the reading was not interrupted
  // (both clocks read within kClockReadUs).
  Clocks StateClock() {
    const std::int64_t offset = static_cast<std::int64_t>(clocks_.wall_us) - clocks_.steady_us;
    const bool tight = clocks_read_us_ <= kClockReadUs;
    if (!anchored_ || (tight && std::abs(offset - wall_offset_us_) > kClockStepUs)) {
      wall_offset_us_ = offset;
      anchored_ = true;
    }
    return {0, static_cast<std::uint64_t>(wall_offset_us_)};
  }

  // A critical alert or a policy fault while the robot was out of DAMP within the black box's
  // window writes it: what led there is what someone will want to see.
  void MaybeTrigger(const edge::EdgeError& error) {
    if (!black_box_ || !TriggersBlackBox(error.code())) return;
    const auto window_us = static_cast<std::int64_t>(config_.recorder.black_box_seconds * 1e6);
    if (last_active_us_ < 0 || clocks_.steady_us - last_active_us_ > window_us) return;
    black_box_->Trigger(Ns(clocks_.wall_us), error.code());
    spdlog::warn("black box: {} ({}): writing the last {:g} s and the next {:g} s", error.code(),
                 error.message(), config_.recorder.black_box_seconds,
                 config_.recorder.black_box_after_seconds);
  }

  void OnCommand(std::span<const std::uint8_t> payload, bool joint) {
    CommandNote note;
    if (payload.size() < sizeof(note)) return;
    std::memcpy(&note, payload.data(), sizeof(note));
    const auto it = clients_.find(note.client_id);
    FillCommandRecord(note, payload.subspan(sizeof(note)),
                      it != clients_.end() ? it->second : ClientInfo{}, &command_, joint);
    command_.SerializeToString(&bytes_);
    Emit(RecordChannel::kCommands, Ns(note.time_us), bytes_);
  }

  void Report(const std::optional<recorder::DumpResult>& dump) {
    if (!dump) return;
    if (dump->ok) {
      spdlog::info("black box written: {} ({} messages)", dump->path, dump->messages);
    } else {
      spdlog::error("black box not written: {}", dump->error);
    }
    for (const std::string& name : dump->deleted) {
      spdlog::info("black box retention (recorder.black_box_files {}): deleted {}",
                   config_.recorder.black_box_files, name);
    }
  }

  edge::RecorderStatus Status() const {
    const recorder::RecorderStatus r = recording_->status();
    edge::RecorderStatus s;
    s.set_recording(r.recording);
    s.set_file(r.file);
    s.set_file_bytes(r.file_bytes);
    s.set_messages_written(r.messages_written);
    s.set_messages_lost(r.messages_lost + channels_->states_lost.load(std::memory_order_relaxed) +
                        (can_tap_ != nullptr ? can_tap_->lost() : 0));
    s.set_free_bytes(r.free_bytes);
    s.set_error(r.error);
    s.set_files_kept(static_cast<std::uint32_t>(r.files_kept));
    s.set_bytes_kept(r.kept_bytes);
    s.set_black_box(black_box_ != nullptr);
    if (black_box_) {
      const recorder::BlackBoxStatus b = black_box_->status();
      s.set_black_box_writing(b.dumping);
      s.set_black_box_written(static_cast<std::uint32_t>(b.dumps_written));
    }
    s.set_directory(config_.recorder.directory_path);
    return s;
  }

  edge::RecorderResult Handle(const edge::RecorderRequest& request) {
    edge::RecorderResult r;
    r.set_request_id(request.request_id());
    r.set_ok(true);
    const std::uint64_t now_ns = Ns(clocks_.wall_us);
    switch (request.op()) {
      case edge::RecorderRequest::OP_START:
        if (!recording_->recording() && !recording_->Start(now_ns)) {
          r.set_ok(false);
          r.set_error(recording_->status().error);
        }
        break;
      case edge::RecorderRequest::OP_STOP: recording_->Stop(); break;
      case edge::RecorderRequest::OP_BLACKBOX_SAVE:
        if (!black_box_) {
          r.set_ok(false);
          r.set_error("the black box is off (recorder.black_box)");
          break;
        }
        // "manual-": kept apart from the alerts' dumps (recorder::BlackBox::ApplyRetention).
        black_box_->Trigger(now_ns, std::string(recorder::kManualDumpPrefix) +
                                        (request.reason().empty() ? "operator" : request.reason()));
        r.set_saving(config_.recorder.directory_path);
        break;
      case edge::RecorderRequest::OP_BLACKBOX_LIST:
        if (black_box_) {
          std::string error;
          for (const recorder::BlackBoxFile& f : black_box_->List(&error)) {
            edge::RecordingFile* out = r.add_black_box_files();
            out->set_path(config_.recorder.directory_path + "/" + f.name);
            out->set_bytes(f.bytes);
            out->set_reason(f.reason);
            out->set_trigger_time_us(f.trigger_time_ns / 1000);
          }
        }
        for (const recorder::RotatingRecorder::File& f : recording_->List()) {
          edge::RecordingFile* out = r.add_recording_files();
          out->set_path(config_.recorder.directory_path + "/" + f.name);
          out->set_bytes(f.bytes);
        }
        break;
      case edge::RecorderRequest::OP_STATUS:
      default: break;
    }
    *r.mutable_status() = Status();
    return r;
  }

  const config::Config& config_;
  ControlChannels* channels_;
  ByteRing* ring_;
  can::FrameTap* can_tap_;  // null: no /can channel
  static constexpr int kFramesPerMessage = 256;
  recorder::PosixFileSystem fs_;
  std::unique_ptr<recorder::RotatingRecorder> recording_;
  std::unique_ptr<recorder::BlackBox> black_box_;  // null: recorder.black_box off
  std::array<bool, kRecordChannelCount> recorded_{};
  Clocks clocks_;
  std::int64_t last_active_us_ = -1;  // steady µs of the last state out of DAMP
  static constexpr std::int64_t kClockStepUs = 100'000;
  static constexpr std::int64_t kClockReadUs = 2'000;
  std::int64_t clocks_read_us_ = 0;  // how long the last pass took to read both clocks
  bool anchored_ = false;
  std::int64_t wall_offset_us_ = 0;  // wall - steady (µs), for the states' times
  std::map<std::uint64_t, ClientInfo> clients_;
  edge::JointState joint_state_;
  edge::ServerMessage message_;
  edge::CommandRecord command_;
  edge::CanFrames can_frames_;
  std::string bytes_;
};

FlightRecorder::FlightRecorder(const config::Config& config, ControlChannels* channels,
                               std::string version, can::FrameTap* can_tap)
    : config_(config),
      channels_(channels),
      can_tap_(can_tap),
      worker_(std::make_unique<Worker>(config, channels, std::move(version), &ring_, can_tap)) {}

FlightRecorder::~FlightRecorder() { Stop(); }

std::vector<std::string> FlightRecorder::Start() {
  std::vector<std::string> warnings = worker_->Open();
  channels_->record_states.store(true, std::memory_order_relaxed);
  if (can_tap_ != nullptr) can_tap_->set_enabled(true);
  thread_ = std::thread([this] {
    std::deque<std::pair<std::uint64_t, edge::RecorderRequest>> requests;
    std::deque<std::pair<std::uint64_t, edge::RecorderResult>> answers;
    while (!stop_.load(std::memory_order_relaxed)) {
      {
        std::lock_guard lock(mutex_);
        requests.swap(requests_);
      }
      ThrowIfCued(InjectedThread::kRecorder);  // a test only (daemon/channels/injected_throw.hpp)
      const bool worked = worker_->RunOnce(&requests, &answers);
      if (!answers.empty()) {
        std::lock_guard lock(mutex_);
        for (auto& a : answers) answers_.push_back(std::move(a));
        answers.clear();
      }
      if (!worked) std::this_thread::sleep_for(kIdle);
    }
  });
  pthread_setname_np(thread_.native_handle(), "re-record");
  return warnings;
}

void FlightRecorder::Stop() {
  if (!thread_.joinable()) return;
  channels_->record_states.store(false, std::memory_order_relaxed);
  if (can_tap_ != nullptr) can_tap_->set_enabled(false);
  stop_.store(true, std::memory_order_relaxed);
  thread_.join();
  // What was queued after the thread's last pass (the shutdown's DAMP ticks) still goes in.
  std::deque<std::pair<std::uint64_t, edge::RecorderRequest>> none;
  std::deque<std::pair<std::uint64_t, edge::RecorderResult>> unanswered;
  worker_->RunOnce(&none, &unanswered);
  worker_->Close();
}

void FlightRecorder::FeedFrame(RecordTag tag, const Frame& frame) {
  std::uint64_t length = 0;
  const std::span<const std::uint8_t> bytes{reinterpret_cast<const std::uint8_t*>(frame->data()),
                                            frame->size()};
  const int prefix = proto::DecodeVarint(bytes, &length);
  if (prefix <= 0 || !ring_.Push(static_cast<std::uint32_t>(tag), bytes.subspan(prefix))) {
    feed_lost_.fetch_add(1, std::memory_order_relaxed);
  }
}

void FlightRecorder::FeedCommand(RecordTag tag, const CommandNote& note,
                                 std::span<const std::uint8_t> command) {
  const std::span<const std::uint8_t> head{reinterpret_cast<const std::uint8_t*>(&note),
                                           sizeof(note)};
  if (!ring_.Push(static_cast<std::uint32_t>(tag), head, command)) {
    feed_lost_.fetch_add(1, std::memory_order_relaxed);
  }
}

void FlightRecorder::FeedClient(std::uint64_t id, std::string_view peer,
                                std::string_view controller) {
  client_scratch_ = ClientPayload(id, peer, controller);
  if (!ring_.Push(static_cast<std::uint32_t>(RecordTag::kClient),
                  {reinterpret_cast<const std::uint8_t*>(client_scratch_.data()),
                   client_scratch_.size()})) {
    feed_lost_.fetch_add(1, std::memory_order_relaxed);
  }
}

void FlightRecorder::Ask(std::uint64_t client, const edge::RecorderRequest& request) {
  std::lock_guard lock(mutex_);
  requests_.emplace_back(client, request);
}

std::vector<std::pair<std::uint64_t, edge::RecorderResult>> FlightRecorder::TakeAnswers() {
  std::vector<std::pair<std::uint64_t, edge::RecorderResult>> out;
  std::lock_guard lock(mutex_);
  for (auto& a : answers_) out.push_back(std::move(a));
  answers_.clear();
  return out;
}

}  // namespace robot_edge::daemon
