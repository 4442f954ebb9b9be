// The loop of uplink.hpp.
#include "uplink/uplink.hpp"

#include <poll.h>
#include <systemd/sd-daemon.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "access/tokens.hpp"
#include "client/client.hpp"
#include "client/time_sync.hpp"
#include "config/config.hpp"
#include "uplink/blackbox_service.hpp"
#include "uplink/command_gate.hpp"
#include "uplink/config_restart.hpp"
#include "uplink/fleet_config.hpp"
#include "uplink/json.hpp"
#include "uplink/mqtt.hpp"
#include "uplink/pending_apply.hpp"
#include "uplink/spool.hpp"
#include "uplink/topics.hpp"
#include "uplink/upload_request.hpp"

namespace robot_edge::uplink {

namespace {

using namespace std::chrono_literals;

constexpr std::size_t kWindow = 16;                  // QoS 1 records in flight at most
constexpr std::int64_t kResendAfterUs = 10'000'000;  // no PUBACK this long, connected: resend
constexpr std::int64_t kRobotRetryUs = 1'000'000;    // robot-edged unreachable: retry after
constexpr int kMaxWaitMs = 100;  // per loop at most: retries and the resend check run between
constexpr auto kRobotTimeout = 2000ms;             // connect and Hello
constexpr std::int64_t kLogRepeatUs = 60'000'000;  // the same libmosquitto line at most this often
constexpr const char* kRobotEdgedUnit = "robot-edge.service";  // systemd counts its starts
constexpr const char* kSupersededReason =
    "superseded: a newer configuration came while another was being applied";

// robot_edged.token_file's token ("" when none is set), read as robot-edged reads its own
// (access::ReadTokenFile: a regular file, not empty). Throws std::runtime_error when it cannot
// be read. Its mode is warned about once, by FileWarnings.
std::string ReadToken(const std::string& path) {
  if (path.empty()) return "";
  std::vector<std::string> said_by_file_warnings;
  return access::ReadTokenFile("robot_edged.token_file", path, &said_by_file_warnings);
}

// One record in flight: its spool sequence and when it was (re)sent.
struct InFlight {
  std::uint64_t sequence;
  std::int64_t since_us;
};

// A command forwarded, until its CommandResult.
struct Forwarded {
  std::uint64_t sent_by_fleet_us;  // its timestamp_us (the fleet's wall clock)
  std::uint64_t received_us;       // when the uplink took it from the broker (wall clock)
};

class Uplink {
 public:
  explicit Uplink(const UplinkOptions& o)
      : o_(o),
        token_(ReadToken(o.robot_edged.token_file)),
        spool_(o.spool.dir, static_cast<std::uint64_t>(o.spool.max_mib) << 20),
        blackbox_(o),
        mqtt_(o, Path(Topic::kStatus), Status("offline")),
        telemetry_period_us_(static_cast<std::int64_t>(1e6 / o.telemetry_rate_hz)),
        restart_(o.robot_edged.config,
                 static_cast<std::int64_t>(o.robot_edged.apply_timeout_s) * 1'000'000),
        apply_record_(PendingApplyPath(o.spool.dir)) {}

  void Run(const std::atomic<bool>& stop) {
    for (const std::string& w : FileWarnings(o_)) Log("warning: " + w);
    Log("spool " + o_.spool.dir + ": " + std::to_string(spool_.pending()) + " waiting, " +
        std::to_string(spool_.evicted()) + " evicted so far" +
        (spool_.torn_bytes() > 0
             ? ", " + std::to_string(spool_.torn_bytes()) +
                   " bytes that do not check skipped or cut (a torn tail, corruption)"
             : ""));
    LogSpoolNotes();
    ResumeApply();
    mqtt_.Start();
    while (!stop) Step();
    if (connected_) {  // a clean stop says so itself (the last will is for a lost link)
      mqtt_.Publish(Path(Topic::kStatus), Status("offline"), 1, true);
      std::this_thread::sleep_for(200ms);
    }
    Log("stopping: " + std::to_string(spool_.pending()) + " in the spool");
  }

 private:
  std::string Path(Topic topic) const { return TopicPath(o_.topic_prefix, o_.robot_id, topic); }

  std::string Status(const std::string& state) const {
    return "{\"type\":\"status\",\"state\":\"" + state + "\",\"robot\":\"" + o_.robot_id +
           "\",\"version\":\"" ROBOT_EDGE_VERSION "\",\"spool_pending\":" +
           std::to_string(spool_pending()) +
           ",\"spool_evicted\":" + std::to_string(spool_evicted()) +
           ",\"spool_lost\":" + std::to_string(spool_lost()) +
           ",\"spool_lost_unknown\":" + std::to_string(spool_.lost_unknown()) +
           ",\"upload_failures\":" + std::to_string(blackbox_.failures()) + "}";
  }
  // spool_ is made before mqtt_ (member order): the last will's counts are the spool's.
  std::uint64_t spool_pending() const { return spool_.pending(); }
  std::uint64_t spool_evicted() const { return spool_.evicted(); }
  std::uint64_t spool_lost() const { return spool_.lost(); }
  // What the spool reported (spool.hpp: a damaged directory, a full disk), on stderr.
  void LogSpoolNotes() {
    for (const std::string& note : spool_.TakeNotes()) Log("spool: " + note);
  }

  void Step() {
    Wait(client::MonotonicMicros());
    const std::int64_t now = client::MonotonicMicros();
    ConnectRobot(now);
    ReadRobot();
    HandleMqtt(now);
    Pump(now);
    PublishTelemetry(now);
    ReadCommandResults();
    CheckUnitStarts(now);
    if (auto result = restart_.Poll(now)) {
      ChargeStarts(result->request_id, static_cast<std::int64_t>(result->request_id),  // the ask
                   restart_.last_starts());
      FinishApply(*result);
    }
    if (held_config_ && !restart_.pending() && in_damp_) {
      const std::string held = std::move(*held_config_);
      held_config_.reset();
      OnFleetConfig(held);
    }
    blackbox_.Poll(now, observer_ ? &*observer_ : nullptr);
    for (const std::string& report : blackbox_.TakeReports()) PublishJson(report);
    LogSpoolNotes();
    if (connected_ && (spool_.evicted() != evicted_reported_ || spool_.lost() != lost_reported_ ||
                       blackbox_.failures() != upload_failures_reported_)) {
      PublishStatus();
    }
  }

  // ---- robot-edged

  client::Client Connect(const std::string& controller) {
    client::Client c = client::Client::ConnectUnix(o_.robot_edged.socket, kRobotTimeout);
    edge::Hello hello;
    hello.set_token(token_);
    hello.set_controller(controller);
    if (controller.empty()) {
      hello.set_resume_after_event(spool_.last_source());
    } else {
      hello.set_want_command_results(true);
      hello.set_no_telemetry(true);
    }
    const edge::Welcome welcome = c.Hello(hello, kRobotTimeout);
    if (controller.empty()) {
      // robot-edged restarted (its sequences began again): every event of it is new.
      source_floor_ =
          welcome.last_event_sequence() < spool_.last_source() ? 0 : spool_.last_source();
      Log("robot-edged: observing robot '" + welcome.robot_name() + "' (configuration " +
          welcome.config_digest() + "), events after " + std::to_string(source_floor_));
      if (auto result = restart_.OnWelcome(welcome.config_digest(), client::MonotonicMicros())) {
        ChargeStarts(result->request_id, static_cast<std::int64_t>(result->request_id),  // the ask
                     restart_.last_starts());
        FinishApply(*result);
      }
    }
    return c;
  }

  void ConnectRobot(std::int64_t now) {
    if ((observer_ && (commander_ || !o_.commands)) || now < robot_retry_us_) return;
    try {
      if (!observer_) observer_ = Connect("");
      if (o_.commands && !commander_) commander_ = Connect(o_.controller);
      if (!ready_notified_) sd_notify(0, "READY=1");
      ready_notified_ = true;
    } catch (const client::ClientError& e) {
      Log(std::string("robot-edged: ") + e.what());
      robot_retry_us_ = now + kRobotRetryUs;
    }
  }

  // Sleeps until robot-edged sends something, the network thread queued something (its
  // eventfd), or the next telemetry is due (at most kMaxWaitMs).
  void Wait(std::int64_t now) {
    if ((observer_ && observer_->HasBufferedMessage()) ||
        (commander_ && commander_->HasBufferedMessage())) {
      return;
    }
    std::int64_t wait_ms = kMaxWaitMs;
    if (connected_ && !telemetry_.empty()) {
      wait_ms = std::clamp<std::int64_t>((next_telemetry_us_ - now + 999) / 1000, 0, kMaxWaitMs);
    }
    pollfd fds[3] = {{mqtt_.wake_fd(), POLLIN, 0},
                     {observer_ ? observer_->fd() : -1, POLLIN, 0},
                     {commander_ ? commander_->fd() : -1, POLLIN, 0}};
    ::poll(fds, 3, static_cast<int>(wait_ms));
  }

  void ReadRobot() {
    if (!observer_) return;
    try {
      auto message = observer_->Read(0ms);
      while (message) {
        if (message->has_event()) SpoolEvent(message->event());
        if (message->has_recorder_result()) blackbox_.OnRecorderResult(message->recorder_result());
        if (message->has_telemetry()) {
          telemetry_ = message->telemetry().SerializeAsString();
          in_damp_ = message->telemetry_extension().control_mode() == edge::CONTROL_MODE_DAMP;
        }
        message = observer_->Read(0ms);
      }
    } catch (const client::ClientError& e) {
      Log(std::string("robot-edged (observer): ") + e.what());
      observer_.reset();
      in_damp_.reset();  // unknown until the next robot-edged's first telemetry
      blackbox_.OnRobotLost();
      robot_retry_us_ = client::MonotonicMicros() + kRobotRetryUs;
    }
  }

  void SpoolEvent(const edge::EdgeEvent& event) {
    if (event.sequence() <= source_floor_) return;  // resent after a resume: spooled already
    source_floor_ = event.sequence();
    const Topic topic = event.has_diagnostics() ? Topic::kDiagnostics : Topic::kEvents;
    spool_.Append(static_cast<std::uint32_t>(topic), event.sequence(), event.SerializeAsString());
  }

  // ---- the broker

  void HandleMqtt(std::int64_t now) {
    for (MqttEvent& e : mqtt_.Take()) {
      switch (e.kind) {
        case MqttEvent::Kind::kConnected: OnConnected(e.code, now); break;
        case MqttEvent::Kind::kDisconnected:
          if (connected_) Log("broker: disconnected (" + std::to_string(e.code) + ")");
          connected_ = false;
          break;
        case MqttEvent::Kind::kPublished: OnPublished(e.mid, e.code); break;
        case MqttEvent::Kind::kMessage: OnMessage(e.topic, e.payload, e.retained); break;
        case MqttEvent::Kind::kLog: LogMqtt(e.payload, now); break;
      }
    }
  }

  // A line of libmosquitto's (a refused certificate, a failed handshake): logged, but the same
  // line again (each reconnect) at most every kLogRepeatUs, with how often it came meanwhile.
  void LogMqtt(const std::string& line, std::int64_t now) {
    if (line == last_mqtt_log_ && now - last_mqtt_log_us_ < kLogRepeatUs) {
      ++mqtt_log_repeats_;
      return;
    }
    Log("broker: " + line +
        (line == last_mqtt_log_ && mqtt_log_repeats_ > 0
             ? " (" + std::to_string(mqtt_log_repeats_) + " more times since it was last logged)"
             : ""));
    last_mqtt_log_ = line;
    last_mqtt_log_us_ = now;
    mqtt_log_repeats_ = 0;
  }

  void OnConnected(int code, std::int64_t now) {
    if (code != 0) {
      Log("broker: connection refused (" + std::to_string(code) + ")");
      return;
    }
    connected_ = true;
    Log("broker: connected to " + o_.broker.host + ":" + std::to_string(o_.broker.port) + "; " +
        std::to_string(spool_.pending()) + " records to send");
    for (auto& [mid, f] : in_flight_) f.since_us = now;  // libmosquitto resends them
    if (o_.commands) mqtt_.Subscribe(Path(Topic::kCommands), 1);
    if (o_.config_updates) mqtt_.Subscribe(Path(Topic::kConfig), 1);
    mqtt_.Subscribe(Path(Topic::kBlackbox), 1);
    PublishStatus();
  }

  void PublishStatus() {
    mqtt_.Publish(Path(Topic::kStatus), Status("online"), 1, true);
    evicted_reported_ = spool_.evicted();
    lost_reported_ = spool_.lost();
    upload_failures_reported_ = blackbox_.failures();
  }

  void OnPublished(int mid, int code) {
    const auto it = in_flight_.find(mid);
    if (it == in_flight_.end()) return;  // QoS 0, or given up on
    if (code >= 128) Log("broker refused record " + std::to_string(it->second.sequence));
    spool_.Ack(it->second.sequence);
    in_flight_.erase(it);
  }

  // Spooled records out, oldest first.
  void Pump(std::int64_t now) {
    if (!connected_) return;
    for (const auto& [mid, f] : in_flight_) {
      if (now - f.since_us > kResendAfterUs) {
        Log("broker: no PUBACK for 10 s; sending the spool again from its oldest record");
        in_flight_.clear();
        spool_.Rewind();
        break;
      }
    }
    while (in_flight_.size() < kWindow) {
      const auto record = spool_.Next();
      if (!record) break;
      const int mid = mqtt_.Publish(Path(static_cast<Topic>(record->topic)), record->payload, 1,
                                    false, {{"seq", std::to_string(record->sequence)}});
      if (mid < 0) {  // the link just dropped: everything not acknowledged goes again
        Log("broker: record " + std::to_string(record->sequence) + " not sent (" +
            mqtt_.last_error() + "); the spool goes again from its oldest record");
        in_flight_.clear();
        spool_.Rewind();
        break;
      }
      in_flight_[mid] = {record->sequence, now};
    }
  }

  void PublishTelemetry(std::int64_t now) {
    if (!connected_ || telemetry_.empty() || now < next_telemetry_us_) return;
    mqtt_.Publish(Path(Topic::kTelemetry), telemetry_, 0, false);
    next_telemetry_us_ = now + telemetry_period_us_;
  }

  // ---- commands

  // A message on a fleet -> robot topic. One published retained is refused on every topic
  // (command_gate.hpp), reported on `status`; commands then pass the age check.
  void OnMessage(const std::string& topic, const std::string& payload, bool retained) {
    if (topic == Path(Topic::kConfig) && o_.config_updates) {
      if (retained) return RefuseRetainedConfig(payload);
      OnFleetConfig(payload);
      return;
    }
    if (topic == Path(Topic::kBlackbox)) {
      if (retained) return RefuseRetainedRequest(payload);
      blackbox_.OnRequest(payload);
      return;
    }
    if (topic != Path(Topic::kCommands) || !o_.commands) return;
    edge::CloudCommand command;
    if (!command.ParseFromString(payload)) {
      PublishJson(
          "{\"type\":\"command_result\",\"accepted\":false,\"reason\":\"not a CloudCommand\"}");
      return;
    }
    const std::int64_t now_unix_us = static_cast<std::int64_t>(client::WallClockMicros());
    const std::int64_t max_age_us = static_cast<std::int64_t>(o_.max_command_age_ms) * 1000;
    const CommandVerdict verdict =
        JudgeCommand(retained, IsDamp(command), command.timestamp_us(), now_unix_us, max_age_us);
    if (!verdict.forward()) {  // never sent to robot-edged: it takes no control
      const std::string reason = RefusalReason(verdict, max_age_us);
      Log("fleet command " + std::to_string(command.sequence()) + " refused: " + reason);
      PublishDrop(command.sequence(), reason, verdict.age_us, retained);
      return;
    }
    if (!commander_) {
      PublishCommandResult(command.sequence(), false, "robot-edged unreachable", 0, 0);
      return;
    }
    try {
      if (forwarded_.size() >= 1000) forwarded_.erase(forwarded_.begin());  // never answered
      forwarded_[command.sequence()] = {command.timestamp_us(), client::WallClockMicros()};
      commander_->Send(command);  // timestamp_us and sequence as the fleet sent them
    } catch (const client::ClientError& e) {
      Log(std::string("robot-edged (commands): ") + e.what());
      commander_.reset();
    }
  }

  // As robot-edged counts a DAMP (never dropped): a ModeCommand other than STAND.
  static bool IsDamp(const edge::CloudCommand& command) {
    return command.has_mode() && command.mode().mode() != edge::MODE_STAND;
  }

  void RefuseRetainedConfig(const std::string& payload) {
    Log(std::string("fleet config refused: ") + kRetainedReason);
    ConfigOutcome outcome;
    outcome.reason = kRetainedReason;
    outcome.document_sha256 = DocumentSha256(payload);
    PublishJson(ConfigOutcomeJson(outcome));
  }

  void RefuseRetainedRequest(const std::string& payload) {
    Log(std::string("fleet upload request refused: ") + kRetainedReason);
    UploadReport r;
    r.id = ParseUploadRequest(payload, 0, false).id;
    r.reason = kRetainedReason;
    PublishJson(ReportJson(r));
  }

  // ---- fleet configurations: written (fleet_config.hpp), then applied by a restart of
  // robot-edged (config_restart.hpp); the result once it is back on it, or rolled back.

  void OnFleetConfig(const std::string& payload) {
    // Held (the newest only) while an apply is under way, and until robot-edged's telemetry has
    // said its mode (documents queued while the uplink was away arrive before it); handled then
    // (Step).
    if (restart_.pending() || !in_damp_) {
      if (held_config_) {
        ConfigOutcome superseded;
        superseded.reason = kSupersededReason;
        superseded.document_sha256 = DocumentSha256(*held_config_);
        PublishConfigResult(superseded);
      }
      held_config_ = payload;
      Log(restart_.pending()
              ? "fleet config: held until the configuration being applied is in (a newer one "
                "would replace it)"
              : "fleet config: held until robot-edged's telemetry says its mode (a newer one "
                "would replace it)");
      return;
    }
    // The start budget (config_restart.hpp): refused, nothing written, while an apply might
    // push robot-edged's unit past its start limit.
    const int cost = WorstCaseStarts(apply_timeout_us());
    const std::string spent =
        CheckStartBudget(LoadStartCharges(StartChargesPath(o_.spool.dir)), start_limit(), cost,
                         static_cast<std::int64_t>(client::WallClockMicros()));
    if (!spent.empty()) {
      ConfigOutcome refused;
      refused.reason = spent;
      refused.document_sha256 = DocumentSha256(payload);
      PublishConfigResult(refused);
      return;
    }
    // in_damp_: from robot-edged's newest telemetry since the observer connected.
    ConfigOutcome outcome = ApplyFleetConfig(payload, o_.robot_edged.config, *in_damp_);
    if (!outcome.applied) {
      PublishConfigResult(outcome);
      return;
    }
    const std::int64_t asked_us = client::MonotonicMicros();
    const std::string digest = config::TextDigest(payload);
    // Recorded before robot-edged is asked: an uplink restarted from here on resumes the wait.
    const std::int64_t now_unix_us = static_cast<std::int64_t>(client::WallClockMicros());
    PendingApply record;
    record.request_id = static_cast<std::uint64_t>(now_unix_us);
    record.digest = digest;
    record.config = o_.robot_edged.config;
    record.previous = outcome.previous;
    if (!record.previous.empty()) record.previous_digest = FileDigest(record.previous).value_or("");
    record.asked_unix_us = now_unix_us;
    record.deadline_unix_us =
        now_unix_us + static_cast<std::int64_t>(o_.robot_edged.apply_timeout_s) * 1'000'000;
    outcome.request_id = record.request_id;
    std::string refusal;
    if (!SavePendingApply(apply_record_, record)) {
      refusal = "cannot record the apply in " + apply_record_ + "; robot-edged not asked";
    } else {
      ChargeStarts(record.request_id, record.asked_unix_us, cost);  // until the result is in
      refusal = AskRestart(digest, &outcome.problems);
      if (!refusal.empty()) refusal = "robot-edged refused the restart: " + refusal;
    }
    if (!refusal.empty()) {  // robot-edged keeps running on the file it has: put it back
      outcome.applied = false;
      outcome.reason = refusal;
      const Rollback rollback = RollBack(record);
      outcome.rolled_back = rollback.rolled_back;
      outcome.reason += ": " + rollback.what;
      ChargeStarts(record.request_id, record.asked_unix_us, 0);  // robot-edged did not restart
      FinishApply(outcome);
      return;
    }
    Log("fleet config: written to " + o_.robot_edged.config + " (" + digest +
        "); robot-edged restarts on it");
    restart_.Begin(std::move(outcome), std::move(record), asked_us);
  }

  // Asks robot-edged (as o_.controller, on a connection of its own) to restart on the file with
  // `digest`; "" when it accepted, else why not (its problems by key in `problems`).
  std::string AskRestart(const std::string& digest, std::vector<ConfigProblem>* problems) {
    try {
      client::Client c = Connect(o_.controller);
      edge::ClientMessage m;
      m.mutable_maintenance()->set_request_id(1);
      m.mutable_maintenance()->mutable_apply_config()->set_expect_digest(digest);
      c.Send(m);
      const auto answer = c.ReadUntil(edge::ServerMessage::kMaintenanceResult, kRobotTimeout);
      if (!answer) return "no answer from robot-edged";
      const edge::MaintenanceResult& r = answer->maintenance_result();
      for (const auto& p : r.apply_config().problems()) problems->push_back({p.key(), p.message()});
      return r.ok() ? "" : r.error();
    } catch (const client::ClientError& e) {
      return std::string("robot-edged: ") + e.what();
    }
  }

  // A previous run's apply, from its record: waited for again (applied, or rolled back at its
  // deadline). An unreadable record is removed: without its digest nothing can be judged.
  void ResumeApply() {
    std::string error;
    const auto record = LoadPendingApply(apply_record_, &error);
    if (!error.empty()) {
      Log("fleet config: " + error + "; removed");
      RemovePendingApply(apply_record_);
    }
    if (!record) return;
    const std::string refused = restart_.Resume(
        *record, client::MonotonicMicros(), static_cast<std::int64_t>(client::WallClockMicros()));
    if (!refused.empty()) {  // not a file this uplink writes: nothing touched
      Log("fleet config: " + apply_record_ + " discarded, nothing touched: " + refused);
      RemovePendingApply(apply_record_);
      return;
    }
    Log("fleet config: resuming apply " + std::to_string(record->request_id) + " (" +
        record->digest + "): waiting for robot-edged on it");
  }

  // While an apply waits: systemd's count of robot-edged's starts, twice a second; a failed
  // start of the new file rolls it back at once (config_restart.hpp, OnUnitStarts).
  void CheckUnitStarts(std::int64_t now) {
    if (!restart_.pending() || now < next_unit_check_us_) return;
    next_unit_check_us_ = now + 500'000;
    const std::optional<UnitStarts> unit = ReadUnitStarts(kRobotEdgedUnit);
    if (!unit) return;  // no systemd here: the fixed apply_timeout_s decides
    if (auto result = restart_.OnUnitStarts(*unit, client::MonotonicMicros())) {
      ChargeStarts(result->request_id, static_cast<std::int64_t>(result->request_id),
                   restart_.last_starts());
      FinishApply(*result);
    }
  }

  std::int64_t apply_timeout_us() const {
    return static_cast<std::int64_t>(o_.robot_edged.apply_timeout_s) * 1'000'000;
  }
  StartLimit start_limit() const {
    return {static_cast<int>(o_.robot_edged.start_limit_burst),
            static_cast<std::int64_t>(o_.robot_edged.start_limit_interval_s) * 1'000'000};
  }
  // Sets apply `request_id`'s charge on the start budget (<spool.dir>/apply-starts) to `starts`;
  // charges older than the unit's interval are dropped.
  void ChargeStarts(std::uint64_t request_id, std::int64_t asked_unix_us, int starts) {
    const std::string path = StartChargesPath(o_.spool.dir);
    std::vector<StartCharge> charges =
        RecentCharges(LoadStartCharges(path), start_limit(),
                      static_cast<std::int64_t>(client::WallClockMicros()));
    const auto it = std::find_if(charges.begin(), charges.end(),
                                 [&](const StartCharge& c) { return c.request_id == request_id; });
    if (it != charges.end()) {
      it->starts = starts;
    } else {
      charges.push_back({request_id, asked_unix_us, starts});
    }
    if (!SaveStartCharges(path, charges)) Log("fleet config: cannot write " + path);
  }

  // The final result of an apply robot-edged was asked for: reported, then its record removed.
  void FinishApply(const ConfigOutcome& outcome) {
    PublishConfigResult(outcome);
    if (!RemovePendingApply(apply_record_)) Log("fleet config: cannot remove " + apply_record_);
  }

  void PublishConfigResult(const ConfigOutcome& outcome) {
    Log("fleet config: " +
        std::string(outcome.applied ? "applied, robot-edged runs it" : "not applied: ") +
        outcome.reason);
    PublishJson(ConfigOutcomeJson(outcome));
  }

  void ReadCommandResults() {
    if (!commander_) return;
    try {
      while (auto message = commander_->Read(0ms)) {
        if (!message->has_command_result()) continue;
        const edge::CommandResult& r = message->command_result();
        const std::uint64_t now = client::WallClockMicros();
        const auto it = forwarded_.find(r.sequence());
        if (it == forwarded_.end()) continue;
        PublishCommandResult(r.sequence(), r.accepted(), r.reason(),
                             static_cast<std::int64_t>(now - it->second.sent_by_fleet_us),
                             static_cast<std::int64_t>(now - it->second.received_us));
        forwarded_.erase(it);
      }
    } catch (const client::ClientError& e) {
      Log(std::string("robot-edged (commands): ") + e.what());
      commander_.reset();
    }
  }

  void PublishCommandResult(std::uint32_t sequence, bool accepted, const std::string& reason,
                            std::int64_t latency_us, std::int64_t uplink_us) {
    PublishJson("{\"type\":\"command_result\",\"sequence\":" + std::to_string(sequence) +
                ",\"accepted\":" + (accepted ? "true" : "false") + ",\"reason\":\"" +
                JsonEscaped(reason) + "\",\"latency_us\":" + std::to_string(latency_us) +
                ",\"uplink_us\":" + std::to_string(uplink_us) + "}");
  }

  // A command the uplink refused (command_gate.hpp): never sent to robot-edged. `age_us`: its
  // age on the uplink's wall clock (negative: stamped ahead).
  void PublishDrop(std::uint32_t sequence, const std::string& reason, std::int64_t age_us,
                   bool retained) {
    PublishJson("{\"type\":\"command_result\",\"sequence\":" + std::to_string(sequence) +
                ",\"accepted\":false,\"dropped_by\":\"uplink\",\"reason\":\"" +
                JsonEscaped(reason) + "\",\"age_us\":" + std::to_string(age_us) +
                ",\"retained\":" + (retained ? "true" : "false") + "}");
  }

  // A QoS 1 report on `status` (command, config and upload results, announcements): spooled like
  // events, so it waits out an outage on disk and goes out in order with them, with its "seq".
  void PublishJson(const std::string& json) {
    spool_.Append(static_cast<std::uint32_t>(Topic::kStatus), spool_.last_source(), json);
  }

  const UplinkOptions& o_;
  std::string token_;
  Spool spool_;
  BlackboxService blackbox_;  // before mqtt_: the last will reads its failure count
  Mqtt mqtt_;
  std::int64_t telemetry_period_us_;
  std::optional<client::Client> observer_, commander_;
  // A fleet document that came while an apply was under way: handled when it ends. Documents
  // queued while the uplink was away come back to back, oldest first: the newest is the one kept.
  std::optional<std::string> held_config_;
  std::int64_t robot_retry_us_ = 0;
  bool ready_notified_ = false;
  std::uint32_t source_floor_ = 0;     // robot-edged's event sequences up to it are spooled
  bool connected_ = false;             // to the broker (its CONNACK arrived)
  std::map<int, InFlight> in_flight_;  // by MQTT message id
  std::uint64_t evicted_reported_ = 0;
  std::uint64_t lost_reported_ = 0;
  std::uint64_t upload_failures_reported_ = 0;
  std::string telemetry_;  // the newest EdgeTelemetry, serialized
  // robot-edged's newest telemetry said DAMP; nullopt: none since the observer (re)connected.
  std::optional<bool> in_damp_;
  std::int64_t next_telemetry_us_ = 0;
  std::map<std::uint32_t, Forwarded> forwarded_;  // by CloudCommand.sequence
  ConfigRestart restart_;                         // a fleet config until robot-edged runs it
  std::string apply_record_;                      // its record (pending_apply.hpp)
  std::string last_mqtt_log_;                     // LogMqtt's last line logged, when, and
  std::int64_t last_mqtt_log_us_ = 0;             // how often it came since
  std::uint64_t mqtt_log_repeats_ = 0;
  std::int64_t next_unit_check_us_ = 0;  // systemd asked for robot-edged's starts
};

}  // namespace

void Log(const std::string& line) {
  std::cerr << ("robot-edge-uplink: " + line + "\n") << std::flush;
}

int RunUplink(const UplinkOptions& options, const std::atomic<bool>& stop) {
  try {
    Uplink uplink(options);
    uplink.Run(stop);
    return kExitOk;
  } catch (const SpoolError& e) {
    Log(e.what());
  } catch (const MqttError& e) {
    Log(e.what());
  } catch (const std::runtime_error& e) {  // robot_edged.token_file
    Log(e.what());
  }
  return kExitFailed;
}

}  // namespace robot_edge::uplink
