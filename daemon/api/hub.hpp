// The API thread's side of the daemon: the connected clients, who holds control, the commands
// going to the control thread, and what goes back out — telemetry at telemetry.rate_hz (lossy),
// the state stream at each subscriber's rate (lossy),
// EdgeDiagnostics at diagnostics_rate_hz, EdgeErrors and ControllerEvents (reliable, numbered,
// kept for resume_after_event).
//
// Threads: the API thread (the io_context's) only. It talks to the control thread through
// ControlChannels and never blocks it.
#pragma once

#include <asio/io_context.hpp>
#include <asio/posix/stream_descriptor.hpp>
#include <asio/steady_timer.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "access/log_limit.hpp"
#include "config/config.hpp"
#include "daemon/api/access.hpp"
#include "daemon/api/bus_health.hpp"
#include "daemon/api/command_intake.hpp"
#include "daemon/api/event_log.hpp"
#include "daemon/api/flight_recorder.hpp"
#include "daemon/api/maintenance.hpp"
#include "daemon/api/messages.hpp"
#include "daemon/api/session.hpp"
#include "daemon/api/state_stream.hpp"
#include "daemon/api/stop_latch_file.hpp"
#include "daemon/api/telemetry_frames.hpp"
#include "daemon/channels/control_channels.hpp"
#include "policy/inference_stats.hpp"

namespace robot_edge::daemon {

class Hub final : public SessionEvents {
 public:
  // `wake_fd`: the eventfd the control thread writes after queueing events (owned by the caller).
  // `access`: who may take which role. `inference`: the policy's statistics for diagnostics
  // (onnx_*), null without a policy. `recorder`: the flight recorder the hub hands telemetry,
  // events and commands to, null without one. `live_url`: the live view's address for the
  // Welcome ("" = none). All outlive the hub.
  Hub(asio::io_context& io, const config::Config& config, ControlChannels* channels,
      BusHealth* bus_health, int wake_fd, std::string version, const AccessPolicy* access,
      policy::InferenceStats* inference = nullptr, FlightRecorder* recorder = nullptr,
      std::string live_url = {});

  void Start();
  // Says goodbye to every client and stops the timers.
  void Stop(const std::string& reason);

  // A new connection from a listener.
  void Accept(Stream stream, Peer peer);

  // SessionEvents.
  void OnHello(const std::shared_ptr<Session>& session, const edge::Hello& hello) override;
  void OnCommand(Session& session, const edge::CloudCommand& command) override;
  void OnJointCommand(Session& session, const edge::JointCommand& command) override;
  void OnTimeSync(Session& session, const edge::TimeSyncRequest& request) override;
  void OnMaintenance(Session& session, const edge::MaintenanceRequest& request) override;
  void OnRecorder(Session& session, const edge::RecorderRequest& request) override;
  void OnStateStream(Session& session, const edge::StateStreamRequest& request) override;
  void OnClosed(Session& session) override;

  // Called (API thread) once an ApplyConfigRequest was accepted and its answer queued: the
  // daemon then shuts down and exits with kExitRestartToApply (daemon/api/apply_config.hpp).
  void SetRestartToApply(std::function<void()> restart) { restart_to_apply_ = std::move(restart); }
  // Keeps the stop latch in `path` (stop_latch_file.hpp) from now on; `initial` is on disk now.
  void KeepStopLatch(std::string path, const sm::StopLatch& initial) {
    stop_latch_.emplace(std::move(path), initial);
  }

  std::size_t client_count() const { return sessions_.size(); }
  const std::string& controller() const { return intake_.arbiter().current(); }

 private:
  // Why a Hello is refused, or nullopt to welcome it.
  std::optional<std::string> Refusal(const Session& session, const edge::Hello& hello) const;
  void SendWelcome(const std::shared_ptr<Session>& session, const edge::Hello& hello);
  void BroadcastError(edge::EdgeError error);
  void SendMaintenanceResult(Session& session, const edge::MaintenanceResult& result);
  void OnApplyConfig(Session& session, const edge::MaintenanceRequest& request);
  void PollMaintenance();  // a finished scan: its answer
  void PollRecorder();     // the flight recorder's answers
  // The command, as it arrived and with the API thread's verdict, for the flight recorder.
  template <typename Message>
  void RecordCommand(const Session& session, const Message& command,
                     const CommandIntake::Outcome& outcome);
  // What follows a command's intake: control changes, errors, the result of a drop.
  // A CloudCommand or JointCommand through the intake, recorded, then answered.
  template <class Command>
  void Intake(Session& session, const Command& command);
  void AfterIntake(Session& session, std::uint32_t sequence, CommandIntake::Outcome outcome);
  void SendResult(Session& session, std::uint32_t sequence, bool accepted, sm::Reason reason,
                  sm::Mode mode);

  void WaitForControlEvents();
  void DrainControlEvents();
  // The latest snapshot's stop latch onto disk when it changed (written or removed), logged.
  void KeepStopLatchOnDisk();
  void OnStateMachineEvent(const sm::Event& event);
  void OnCommandResult(const ControlEvent& event);
  void EmitControllerChange(const ControllerChange& change);
  void Broadcast(edge::EdgeEvent event,
                 const edge::DiagnosticsExtension* diagnostics_extension = nullptr);

  std::size_t OpenSessions() const;  // not closing
  bool ClosePendingSession(const Session& newcomer);
  // At the limit, the oldest observer makes room (observers cannot lock a controller out).
  bool CloseOldestObserver(const Session& newcomer);
  bool IsMaintenanceController(const Session& session) const;
  void EveryTelemetryPeriod();
  void EveryDiagnosticsPeriod();
  void EveryControllerCheck();
  // battery.source sysfs: the power supply read (off the control thread) and handed over.
  void PollBattery();
  void Schedule(asio::steady_timer& timer, std::chrono::microseconds period, void (Hub::*what)());
  void RunAtExpiry(asio::steady_timer& timer, std::chrono::microseconds period,
                   void (Hub::*what)());

  Clocks Now() const;

  asio::io_context& io_;
  const config::Config& config_;
  ControlChannels* channels_;
  BusHealth* bus_health_;
  const AccessPolicy* access_;
  policy::InferenceStats* inference_;
  FlightRecorder* recorder_;
  std::string version_;
  std::string live_url_;
  std::int64_t start_us_;

  asio::posix::stream_descriptor wake_;
  std::uint64_t wake_value_ = 0;
  asio::steady_timer telemetry_timer_;
  asio::steady_timer diagnostics_timer_;
  asio::steady_timer controller_timer_;
  asio::steady_timer battery_timer_;
  std::string battery_error_;  // the last sysfs read's problem ("" = none), logged on change
  bool stopped_ = false;

  std::map<std::uint64_t, std::shared_ptr<Session>> sessions_;
  std::uint64_t next_session_id_ = 1;
  CommandIntake intake_;
  MaintenanceDesk maintenance_;
  EventLog events_;
  std::uint32_t telemetry_sequence_ = 0;
  std::uint64_t events_lost_reported_ = 0;
  TelemetryFrames telemetry_;
  StateStream stream_;
  std::string command_bytes_;  // a command re-serialized for the recorder (capacity kept)
  std::function<void()> restart_to_apply_;  // none: an accepted request only logs
  // Refused Hellos: a peer can make them at will, so one line per 5 s says how many.
  access::LogLimiter hello_refusal_log_{std::chrono::seconds(5)};
  std::optional<StopLatchKeeper> stop_latch_;  // none: a stop lasts only this process
  std::string stop_latch_error_;               // the last failure to keep it, logged once
};

}  // namespace robot_edge::daemon
