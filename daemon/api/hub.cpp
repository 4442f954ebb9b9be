#include "daemon/api/hub.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <type_traits>

#include "daemon/api/apply_config.hpp"
#include "daemon/api/battery_sysfs.hpp"
#include "daemon/channels/clock.hpp"
#include "daemon/channels/injected_throw.hpp"
#include "proto/framing.hpp"

namespace robot_edge::daemon {
namespace {

Frame FrameOf(const edge::ServerMessage& message) {
  auto frame = std::make_shared<std::string>();
  proto::AppendDelimited(message, frame.get());
  return frame;
}

std::chrono::microseconds PeriodOf(double rate_hz) {
  return std::chrono::microseconds(static_cast<std::int64_t>(1e6 / rate_hz));
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

Hub::Hub(asio::io_context& io, const config::Config& config, ControlChannels* channels,
         BusHealth* bus_health, int wake_fd, std::string version, const AccessPolicy* access,
         policy::InferenceStats* inference, FlightRecorder* recorder, std::string live_url)
    : io_(io),
      config_(config),
      channels_(channels),
      bus_health_(bus_health),
      access_(access),
      inference_(inference),
      recorder_(recorder),
      version_(std::move(version)),
      live_url_(std::move(live_url)),
      start_us_(SteadyMicros()),
      wake_(io, wake_fd),
      telemetry_timer_(io),
      diagnostics_timer_(io),
      controller_timer_(io),
      battery_timer_(io),
      intake_(config, channels),
      maintenance_(config, channels, &intake_),
      events_(config.api.event_history),
      telemetry_(config),
      stream_(config, channels) {
  command_bytes_.reserve(proto::kMaxMessageBytes);
}

void Hub::Start() {
  WaitForControlEvents();
  Schedule(telemetry_timer_, PeriodOf(config_.telemetry.rate_hz), &Hub::EveryTelemetryPeriod);
  Schedule(diagnostics_timer_, PeriodOf(config_.telemetry.diagnostics_rate_hz),
           &Hub::EveryDiagnosticsPeriod);
  Schedule(controller_timer_, std::chrono::milliseconds(100), &Hub::EveryControllerCheck);
  if (config_.battery.source == config::BatteryConfig::Source::kSysfs) {
    PollBattery();
    Schedule(battery_timer_, std::chrono::seconds(1), &Hub::PollBattery);
  }
}

// Every `period` on absolute deadlines (no drift by the handlers' own time); after a stall the
// missed periods are skipped, not run in a burst.
void Hub::Schedule(asio::steady_timer& timer, std::chrono::microseconds period,
                   void (Hub::*what)()) {
  timer.expires_after(period);
  RunAtExpiry(timer, period, what);
}

void Hub::RunAtExpiry(asio::steady_timer& timer, std::chrono::microseconds period,
                      void (Hub::*what)()) {
  timer.async_wait([this, &timer, period, what](const std::error_code& ec) {
    if (ec || stopped_) return;
    (this->*what)();
    const auto now = asio::steady_timer::clock_type::now();
    const auto next = timer.expiry() + period;
    timer.expires_at(next > now ? next : now + period);
    RunAtExpiry(timer, period, what);
  });
}

void Hub::Stop(const std::string& reason) {
  stopped_ = true;
  std::error_code ignored;
  telemetry_timer_.cancel();
  diagnostics_timer_.cancel();
  controller_timer_.cancel();
  battery_timer_.cancel();
  wake_.cancel(ignored);
  DrainControlEvents();
  const auto sessions = sessions_;  // Close() may remove entries
  for (const auto& [id, session] : sessions) session->Close(reason);
}

Clocks Hub::Now() const { return {SteadyMicros(), WallMicros()}; }

// ---- Connections ----

void Hub::Accept(Stream stream, Peer peer) {
  auto session =
      std::make_shared<Session>(std::move(stream), this, next_session_id_++, std::move(peer),
                                static_cast<std::size_t>(config_.api.client_backlog_kib) * 1024);
  sessions_.emplace(session->id(), session);
  session->Start();
  if (stopped_) {
    session->Close("robot-edged is shutting down");
  } else if (OpenSessions() > config_.api.max_clients && !ClosePendingSession(*session) &&
             !CloseOldestObserver(*session)) {
    session->Close("too many clients (api.max_clients is " +
                   std::to_string(config_.api.max_clients) + ")");
  } else {
    // Logged at info once welcomed (its Hello line): a peer that never gets in writes nothing.
    spdlog::debug("client {} connected ({})", session->id(), session->peer());
  }
}

std::size_t Hub::OpenSessions() const {
  return static_cast<std::size_t>(std::count_if(
      sessions_.begin(), sessions_.end(), [](const auto& s) { return !s.second->closing(); }));
}

// Connections that have not sent their Hello yet (up to Session::kHelloTimeout) must not lock
// the operator out: at the limit the oldest of them makes room for `newcomer`.
bool Hub::ClosePendingSession(const Session& newcomer) {
  for (const auto& [id, s] : sessions_) {  // ordered by id: oldest first
    if (s.get() != &newcomer && !s->welcomed() && !s->closing()) {
      s->Close("making room for a new connection: no Hello yet");
      return true;
    }
  }
  return false;
}

bool Hub::CloseOldestObserver(const Session& newcomer) {
  for (const auto& [id, s] : sessions_) {  // ordered by id: oldest first
    if (s.get() != &newcomer && s->welcomed() && !s->closing() && s->controller().empty()) {
      s->Close("making room for a new connection: api.max_clients reached, oldest observer");
      return true;
    }
  }
  return false;
}

std::optional<std::string> Hub::Refusal(const Session& session, const edge::Hello& hello) const {
  if (!hello.controller().empty() && !intake_.arbiter().IsController(hello.controller())) {
    return "unknown controller '" + hello.controller() +
           "' (configured: " + Join(config_.api.controllers) + "; \"\" to observe)";
  }
  return access_->Refusal(hello.controller(), session.peer_identity(), hello.token());
}

void Hub::OnHello(const std::shared_ptr<Session>& session, const edge::Hello& hello) {
  if (const auto refusal = Refusal(*session, hello)) {
    std::uint64_t suppressed = 0;
    if (hello_refusal_log_.Allow(std::chrono::steady_clock::now(), &suppressed)) {
      spdlog::warn("client {} ({}): Hello as '{}' refused: {}{}", session->id(), session->peer(),
                   hello.controller().empty() ? config::kObserver : hello.controller(), *refusal,
                   suppressed == 0 ? std::string()
                                   : " (" + std::to_string(suppressed) +
                                         " more refused since the last such line)");
    }
    session->Close(*refusal, /*log=*/false);
    return;
  }
  session->Welcome(hello);
  SendWelcome(session, hello);
  if (recorder_ != nullptr)
    recorder_->FeedClient(session->id(), session->peer(), hello.controller());
  spdlog::info("client {} ({}): hello as {}", session->id(), session->peer(),
               hello.controller().empty() ? "observer" : "controller '" + hello.controller() + "'");
  if (hello.resume_after_event() > 0) {
    for (const Frame& frame : events_.Since(hello.resume_after_event())) session->Send(frame);
  }
}

void Hub::SendWelcome(const std::shared_ptr<Session>& session, const edge::Hello&) {
  const ControlSnapshot& s = channels_->snapshots.Latest();
  edge::ServerMessage message;
  edge::Welcome* w = message.mutable_welcome();
  w->set_version(version_);
  for (const auto& j : config_.joints) w->add_joint_names(j.name);
  w->set_control_rate_hz(static_cast<float>(config_.control.rate_hz));
  w->set_mode(ToFirmwareProto(s.mode));
  w->set_control_mode(ToProto(s.mode));
  w->set_telemetry_rate_hz(static_cast<float>(config_.telemetry.rate_hz));
  w->set_last_event_sequence(events_.last_sequence());
  w->set_robot_name(config_.robot_name);
  w->set_controller(intake_.arbiter().current());
  for (const auto& c : config_.api.controllers) w->add_controllers(c);
  w->set_live_url(live_url_);
  w->set_simulated(bus_health_ != nullptr && bus_health_->simulated());
  w->set_config_digest(config_.digest);
  session->Send(FrameOf(message));
}

void Hub::OnClosed(Session& session) {
  const std::uint64_t id = session.id();
  if (const auto change = intake_.Disconnect(id, SteadyMicros())) EmitControllerChange(*change);
  maintenance_.Disconnect(id);
  stream_.Remove(session);
  if (session.welcomed()) spdlog::info("client {} ({}) disconnected", id, session.peer());
  // The session may be destroyed by this erase: post it so that the caller's frame unwinds first.
  asio::post(io_, [this, id] { sessions_.erase(id); });
}

// ---- Commands ----

template <class Command>
void Hub::Intake(Session& session, const Command& command) {
  // The flight recorder wants every verdict, asked for or not.
  const CommandIntake::Client client{session.id(), session.controller(),
                                     session.wants_results() || recorder_ != nullptr,
                                     session.peer(), session.transport() == Transport::kUnix};
  auto outcome = intake_.Submit(client, command, SteadyMicros());
  if (recorder_ != nullptr) RecordCommand(session, command, outcome);
  AfterIntake(session, command.sequence(), std::move(outcome));
}

void Hub::OnCommand(Session& session, const edge::CloudCommand& command) {
  Intake(session, command);
}

void Hub::OnJointCommand(Session& session, const edge::JointCommand& command) {
  Intake(session, command);
}

void Hub::AfterIntake(Session& session, std::uint32_t sequence, CommandIntake::Outcome outcome) {
  if (outcome.change) EmitControllerChange(*outcome.change);
  if (outcome.error) BroadcastError(std::move(*outcome.error));
  switch (outcome.kind) {
    case CommandIntake::Outcome::Kind::kQueued: break;  // its result comes from the control thread
    case CommandIntake::Outcome::Kind::kAccepted:
      SendResult(session, sequence, true, sm::Reason::kCount, sm::Mode::kDamp);
      break;
    case CommandIntake::Outcome::Kind::kDropped:
      SendResult(session, sequence, false, outcome.reason, channels_->snapshots.Latest().mode);
      break;
  }
}

void Hub::OnTimeSync(Session& session, const edge::TimeSyncRequest& request) {
  const std::int64_t received_us = SteadyMicros();
  edge::ServerMessage message;
  edge::TimeSyncResult* r = message.mutable_time_sync_result();
  r->set_request_id(request.request_id());
  r->set_client_send_us(request.client_send_us());
  r->set_robot_receive_us(received_us);
  r->set_robot_send_us(SteadyMicros());
  session.Send(FrameOf(message));
}

void Hub::OnMaintenance(Session& session, const edge::MaintenanceRequest& request) {
  if (request.op_case() == edge::MaintenanceRequest::kApplyConfig) {
    OnApplyConfig(session, request);
    return;
  }
  const CommandIntake::Client client{session.id(), session.controller(), session.wants_results(),
                                     session.peer(), session.transport() == Transport::kUnix};
  auto answer = maintenance_.Handle(client, request, SteadyMicros());
  if (answer.change) EmitControllerChange(*answer.change);
  if (!answer.result) return;  // a scan: answered by PollMaintenance()
  if (!answer.result->ok()) spdlog::warn("bring-up request refused: {}", answer.result->error());
  SendMaintenanceResult(session, *answer.result);
}

template <typename Message>
void Hub::RecordCommand(const Session& session, const Message& command,
                        const CommandIntake::Outcome& outcome) {
  CommandNote note;
  note.client_id = session.id();
  note.time_us = Now().wall_us;
  note.sequence = command.sequence();
  note.decided = outcome.kind != CommandIntake::Outcome::Kind::kQueued;
  note.accepted = outcome.kind == CommandIntake::Outcome::Kind::kAccepted;
  note.reason = static_cast<std::uint8_t>(outcome.reason);
  note.mode = static_cast<std::uint8_t>(channels_->snapshots.Latest().mode);
  command_bytes_.resize(command.ByteSizeLong());  // within the reserved capacity: 64 KiB at most
  command.SerializeToArray(command_bytes_.data(), static_cast<int>(command_bytes_.size()));
  constexpr RecordTag kTag =
      std::is_same_v<Message, edge::JointCommand> ? RecordTag::kJointCommand : RecordTag::kCommand;
  recorder_->FeedCommand(
      kTag, note,
      {reinterpret_cast<const std::uint8_t*>(command_bytes_.data()), command_bytes_.size()});
}

void Hub::OnStateStream(Session& session, const edge::StateStreamRequest& request) {
  const std::uint32_t granted = stream_.Subscribe(session.shared_from_this(), request.rate_hz());
  spdlog::info("client {} ({}): state stream {}", session.id(), session.peer(),
               granted > 0 ? std::to_string(granted) + " Hz" : std::string("stopped"));
  edge::ServerMessage message;
  message.mutable_state_stream_result()->set_rate_hz(granted);
  session.Send(FrameOf(message));
}

bool Hub::IsMaintenanceController(const Session& session) const {
  const auto& names = config_.api.maintenance_controllers;
  return std::find(names.begin(), names.end(), session.controller()) != names.end();
}

void Hub::OnApplyConfig(Session& session, const edge::MaintenanceRequest& request) {
  const edge::MaintenanceResult result =
      CheckApplyConfig(config_, session.controller(), channels_->snapshots.Latest(), request);
  SendMaintenanceResult(session, result);
  if (!result.ok()) {
    spdlog::warn("restart to apply the configuration refused ({}): {}", session.controller(),
                 result.error());
    for (const auto& p : result.apply_config().problems()) spdlog::warn("  {}", p.message());
    return;
  }
  spdlog::info("restart to apply {} (digest {}) asked by '{}'", result.apply_config().path(),
               result.apply_config().digest(), session.controller());
  if (restart_to_apply_) restart_to_apply_();
}

void Hub::OnRecorder(Session& session, const edge::RecorderRequest& request) {
  const bool changes = request.op() != edge::RecorderRequest::OP_STATUS &&
                       request.op() != edge::RecorderRequest::OP_BLACKBOX_LIST;
  std::string refusal;
  if (recorder_ == nullptr) {
    refusal = "this robot-edged has no flight recorder";
  } else if (changes && session.controller().empty()) {
    refusal = "an observer may only ask for the status and the list: say Hello as a controller";
  } else if (request.op() == edge::RecorderRequest::OP_STOP && !IsMaintenanceController(session)) {
    refusal =
        "stopping the recording is for the maintenance controllers (api.maintenance_controllers)";
  }
  if (refusal.empty()) {
    recorder_->Ask(session.id(), request);  // answered by PollRecorder()
    return;
  }
  edge::ServerMessage message;
  edge::RecorderResult* r = message.mutable_recorder_result();
  r->set_request_id(request.request_id());
  r->set_error(refusal);
  session.Send(FrameOf(message));
}

void Hub::PollRecorder() {
  if (recorder_ == nullptr) return;
  for (auto& [client, result] : recorder_->TakeAnswers()) {
    const auto it = sessions_.find(client);
    if (it == sessions_.end()) continue;
    edge::ServerMessage message;
    *message.mutable_recorder_result() = std::move(result);
    it->second->Send(FrameOf(message));
  }
}

void Hub::SendMaintenanceResult(Session& session, const edge::MaintenanceResult& result) {
  edge::ServerMessage message;
  *message.mutable_maintenance_result() = result;
  session.Send(FrameOf(message));
}

void Hub::PollMaintenance() {
  auto done = maintenance_.Poll(SteadyMicros());
  if (!done) return;
  const auto it = sessions_.find(done->first);
  if (it != sessions_.end()) SendMaintenanceResult(*it->second, done->second);
}

void Hub::BroadcastError(edge::EdgeError error) {
  spdlog::warn("{}: {}", error.code(), error.message());
  edge::EdgeEvent out;
  *out.mutable_error() = std::move(error);
  Broadcast(std::move(out));
}

void Hub::SendResult(Session& session, std::uint32_t sequence, bool accepted, sm::Reason reason,
                     sm::Mode mode) {
  if (!session.wants_results()) return;
  edge::ServerMessage message;
  edge::CommandResult* r = message.mutable_command_result();
  r->set_sequence(sequence);
  r->set_accepted(accepted);
  if (!accepted) r->set_reason(sm::ToString(reason));
  r->set_control_mode(ToProto(mode));
  session.Send(FrameOf(message));
}

// ---- From the control thread ----

void Hub::WaitForControlEvents() {
  wake_.async_read_some(asio::buffer(&wake_value_, sizeof(wake_value_)),
                        [this](const std::error_code& ec, std::size_t) {
                          if (ec || stopped_) return;
                          DrainControlEvents();
                          WaitForControlEvents();
                        });
}

void Hub::DrainControlEvents() {
  ControlEvent e;
  while (channels_->events.Pop(&e)) {
    if (e.kind == ControlEvent::Kind::kStateMachine) {
      OnStateMachineEvent(e.event);
    } else {
      OnCommandResult(e);
    }
  }
  const std::uint64_t lost = channels_->events_lost.load(std::memory_order_relaxed);
  if (lost != events_lost_reported_) {
    spdlog::error("{} control events were lost (queue full)", lost - events_lost_reported_);
    events_lost_reported_ = lost;
  }
  stream_.Drain(Now());
  KeepStopLatchOnDisk();
}

void Hub::KeepStopLatchOnDisk() {
  if (!stop_latch_) return;
  const ControlSnapshot& s = channels_->snapshots.Latest();
  if (s.tick_us < 0) return;  // before the first tick: what is on disk stands
  using Kind = StopLatchKeeper::Change::Kind;
  const StopLatchKeeper::Change change = stop_latch_->Observe(s.stop_latch);
  if (change.kind == Kind::kFailed && change.error != stop_latch_error_) {
    spdlog::error("the latched stop cannot be kept across restarts: {}", change.error);
    edge::EdgeError e;
    e.set_subsystem(edge::SUBSYSTEM_FIRMWARE);  // robot-edged itself
    e.set_code("STOP_NOT_KEPT");
    e.set_message("the latched stop is in force but cannot be kept across a restart: " +
                  change.error);
    BroadcastError(std::move(e));
  }
  stop_latch_error_ = change.kind == Kind::kFailed ? change.error : std::string();
  if (change.kind == Kind::kWritten) {
    spdlog::warn("stop latched by {}: kept in {} until released", s.stop_latch.stopped_by.data(),
                 stop_latch_->path());
  } else if (change.kind == Kind::kRemoved) {
    spdlog::info("the latched stop was released");
  }
}

void Hub::OnStateMachineEvent(const sm::Event& event) {
  const std::string failure = event.kind == sm::EventKind::kPolicyFault && inference_ != nullptr
                                  ? inference_->LastFailure()
                                  : std::string();
  auto error = ErrorFor(event, config_, intake_.arbiter().current(), failure);
  if (error) {  // alerts, trajectory timeout, blocked modes, policy faults
    BroadcastError(std::move(*error));
  } else {
    spdlog::info("{}", Describe(event, config_));
  }
}

void Hub::OnCommandResult(const ControlEvent& e) {
  if (recorder_ != nullptr) {
    CommandNote note;
    note.client_id = e.client_id;
    note.time_us = Now().wall_us;
    note.sequence = e.sequence;
    note.decided = 1;
    note.accepted = e.result.accepted;
    note.reason = static_cast<std::uint8_t>(e.result.reason);
    note.mode = static_cast<std::uint8_t>(e.result.mode);
    recorder_->FeedCommand(RecordTag::kResult, note, {});
  }
  const auto it = sessions_.find(e.client_id);
  if (it == sessions_.end()) return;  // the client has gone
  SendResult(*it->second, e.sequence, e.result.accepted, e.result.reason, e.result.mode);
}

void Hub::EmitControllerChange(const ControllerChange& change) {
  spdlog::info("controller '{}' -> '{}' ({})", change.previous, change.current, change.reason);
  edge::EdgeEvent out;
  edge::ControllerEvent* c = out.mutable_controller();
  c->set_previous(change.previous);
  c->set_current(change.current);
  c->set_reason(change.reason);
  Broadcast(std::move(out));
}

void Hub::Broadcast(edge::EdgeEvent event,
                    const edge::DiagnosticsExtension* diagnostics_extension) {
  const Frame frame = events_.Append(std::move(event), Now().wall_us, diagnostics_extension);
  if (recorder_ != nullptr) recorder_->FeedFrame(RecordTag::kEvent, frame);
  for (const auto& [id, session] : sessions_) {
    if (session->welcomed()) session->Send(frame);
  }
}

// ---- Periodic ----

void Hub::PollBattery() {
  std::string error;
  const sm::BatteryMeasurement b = ReadPowerSupply(config_.battery.path, SteadyMicros(), &error);
  if (error != battery_error_) {
    if (error.empty()) {
      spdlog::info("battery: {} reads again", config_.battery.path);
    } else {
      spdlog::warn("battery: {}", error);
    }
    battery_error_ = error;
  }
  if (b.last_update_us < 0) return;  // the last good reading stays, and ages
  channels_->battery.back() = b;
  channels_->battery.Publish();
}

void Hub::EveryTelemetryPeriod() {
  DrainControlEvents();  // in case a wake-up was missed
  PollMaintenance();
  PollRecorder();
  const ControlSnapshot& s = channels_->snapshots.Latest();
  if (s.tick_us < 0) return;  // the control loop has not ticked yet
  const Frame frame = telemetry_.Build(s, ++telemetry_sequence_, Now());
  if (recorder_ != nullptr) recorder_->FeedFrame(RecordTag::kTelemetry, frame);
  for (const auto& [id, session] : sessions_) {
    if (session->welcomed() && session->wants_telemetry()) session->SendTelemetry(frame);
  }
}

void Hub::EveryDiagnosticsPeriod() {
  const ControlSnapshot& s = channels_->snapshots.Latest();
  const Clocks now = Now();
  edge::EdgeEvent event;
  edge::EdgeDiagnostics* d = event.mutable_diagnostics();
  edge::DiagnosticsExtension x;
  if (bus_health_ != nullptr) {
    bus_health_->Fill(now.steady_us, d->mutable_can_health(), x.mutable_can_buses());
  }
  if (inference_ != nullptr) {
    const policy::InferenceWindow w = inference_->TakeWindow();
    d->set_onnx_count(w.total);
    d->set_onnx_avg_ms(static_cast<float>(w.avg_ms));
    d->set_onnx_max_ms(static_cast<float>(w.max_ms));
    x.set_onnx_nonfinite_outputs(w.nonfinite_total);
  }
  d->set_controller(intake_.arbiter().current());
  d->set_provisioned(config_.provisioned);
  std::uint32_t clients = 0;
  for (const auto& [id, session] : sessions_) {
    if (!session->welcomed() || session->closing()) continue;
    ++clients;
    if (session->controller() == "cloud") d->set_cloud_connected(true);
    if (session->controller() == "ble") d->set_ble_connected(true);
  }
  x.set_connected_clients(clients);
  x.set_uptime_s(static_cast<std::uint64_t>((now.steady_us - start_us_) / 1'000'000));
  FillLoopDiagnostics(s, intake_.counters(), &x);
  if (s.stop_latch.latched) {
    x.set_stop_latched_by(s.stop_latch.stopped_by.data());
    x.set_stop_release_holder(s.stop_latch.holder.data());
  }
  spdlog::debug(
      "loop {:.1f} Hz, max period {} us, max latency {} us, max work {} us, "
      "overruns {}, mode {}, {} clients",
      s.loop.rate_hz, s.loop.max_period_us, s.loop.max_latency_us, s.loop.max_work_us, s.overruns,
      sm::ToString(s.mode), clients);
  Broadcast(std::move(event), &x);
}

void Hub::EveryControllerCheck() {
  ThrowIfCued(InjectedThread::kApi);  // a test only (daemon/channels/injected_throw.hpp)
  if (const auto change = intake_.CheckIdle(SteadyMicros())) EmitControllerChange(*change);
}

}  // namespace robot_edge::daemon
