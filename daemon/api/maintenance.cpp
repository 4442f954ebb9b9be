#include "daemon/api/maintenance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "daemon/api/atomic_file.hpp"
#include "daemon/api/messages.hpp"

namespace robot_edge::daemon {
namespace {

bool Answers(const ControlSnapshot& s, std::size_t joint, std::int64_t timeout_us) {
  const std::int64_t last = s.joints[joint].last_reply_us;
  return last >= 0 && s.tick_us - last <= timeout_us;
}

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

const char* ZeroNote(config::MotorFamily family) {
  switch (family) {
    case config::MotorFamily::kAk:
      return "sent FE (MIT set zero) to the AK motor: its firmware now reads 0 at this position";
    case config::MotorFamily::kDamiao:
      return "sent FE (save zero position) to the Damiao motor: its firmware now reads 0 at this "
             "position and keeps it in its flash";
    case config::MotorFamily::kRobstride:
      return "sent type 6 (set mechanical zero) to the Robstride motor: its firmware now reads 0 "
             "at this position";
  }
  return "sent set-zero";
}

}  // namespace

MaintenanceDesk::MaintenanceDesk(const config::Config& config, ControlChannels* channels,
                                 CommandIntake* intake)
    : config_(config),
      joints_(config::BuildJointTable(config)),
      channels_(channels),
      intake_(intake) {}

std::optional<std::string> MaintenanceDesk::Refusal(const CommandIntake::Client& client,
                                                    const ControlSnapshot& s) const {
  const auto& names = config_.api.maintenance_controllers;
  if (std::find(names.begin(), names.end(), client.controller) == names.end()) {
    std::string allowed;
    for (const auto& n : names) allowed += (allowed.empty() ? "" : ", ") + n;
    return "controller '" + client.controller + "' may not run bring-up tools (api." +
           "maintenance_controllers: " + (allowed.empty() ? "none" : allowed) + ")";
  }
  if (s.tick_us < 0) return std::string("the control loop has not started");
  if (s.mode != sm::Mode::kDamp) {
    return std::string("bring-up tools run in DAMP only; the robot is in ") + sm::ToString(s.mode);
  }
  return std::nullopt;
}

MaintenanceDesk::Answer MaintenanceDesk::Handle(const CommandIntake::Client& client,
                                                const edge::MaintenanceRequest& request,
                                                std::int64_t now_us) {
  const ControlSnapshot& s = channels_->snapshots.Latest();
  if (auto why = Refusal(client, s)) return {MaintenanceError(request.request_id(), *why), {}};
  switch (request.op_case()) {
    case edge::MaintenanceRequest::kScan: return Scan(client, request, now_us);
    case edge::MaintenanceRequest::kJog: return Jog(client, request, s, now_us);
    case edge::MaintenanceRequest::kCalibrate: return {Calibrate(request, s), {}};
    case edge::MaintenanceRequest::kZero: return {Zero(request), {}};
    case edge::MaintenanceRequest::kClearFault: return {ClearFault(request), {}};
    case edge::MaintenanceRequest::kReleaseStop:
      return {ReleaseStop(client, request, s, now_us), {}};
    case edge::MaintenanceRequest::kApplyConfig:  // Hub::OnApplyConfig (apply_config.hpp)
    case edge::MaintenanceRequest::OP_NOT_SET: break;
  }
  return {MaintenanceError(request.request_id(), "an empty MaintenanceRequest"), {}};
}

MaintenanceDesk::Answer MaintenanceDesk::Scan(const CommandIntake::Client& client,
                                              const edge::MaintenanceRequest& request,
                                              std::int64_t now_us) {
  if (scan_) return {MaintenanceError(request.request_id(), "a scan is already running"), {}};
  std::uint32_t max_id = request.scan().max_id();
  if (max_id == 0) max_id = kDefaultScanMaxId;
  if (max_id > can::MotorScheduler::kMaxScanId) {
    return {MaintenanceError(request.request_id(), "max_id above 255"), {}};
  }
  scan_ = PendingScan{client.id, request.request_id(), ++scan_sequence_, now_us + kScanTimeoutUs};
  channels_->scan_request.store((static_cast<std::uint64_t>(scan_->sequence) << 16) | max_id,
                                std::memory_order_release);
  return {};
}

std::optional<std::pair<std::uint64_t, edge::MaintenanceResult>> MaintenanceDesk::Poll(
    std::int64_t now_us) {
  if (!scan_) return std::nullopt;
  const ScanReport& report = channels_->scans.Latest();
  if (report.sequence == scan_->sequence) {
    auto out = std::make_pair(scan_->client, ScanResult(*scan_, report));
    scan_.reset();
    return out;
  }
  if (now_us < scan_->deadline_us) return std::nullopt;
  auto out = std::make_pair(scan_->client,
                            MaintenanceError(scan_->request_id, "the scan did not finish in time"));
  scan_.reset();
  return out;
}

edge::MaintenanceResult MaintenanceDesk::ReleaseStop(const CommandIntake::Client& client,
                                                     const edge::MaintenanceRequest& request,
                                                     const ControlSnapshot& s,
                                                     std::int64_t now_us) {
  const std::uint32_t id = request.request_id();
  if (!client.local) {
    return MaintenanceError(id,
                            "a latched stop is released only on the robot itself (the Unix "
                            "socket), never over the network");
  }
  if (!s.stop_latch.latched) return MaintenanceError(id, "no stop is latched");
  if (intake_->SubmitReleaseStop(now_us).kind != CommandIntake::Outcome::Kind::kQueued) {
    return MaintenanceError(id, "the command queue is full: try again");
  }
  edge::MaintenanceResult r;
  r.set_request_id(id);
  r.set_ok(true);
  return r;
}

void MaintenanceDesk::Disconnect(std::uint64_t client) {
  if (scan_ && scan_->client == client) scan_->client = 0;  // runs on; nobody to answer
}

edge::MaintenanceResult MaintenanceDesk::ScanResult(const PendingScan& pending,
                                                    const ScanReport& report) {
  if (report.refused) {
    return MaintenanceError(pending.request_id, "the robot left DAMP: nothing was probed");
  }
  edge::MaintenanceResult r;
  r.set_request_id(pending.request_id);
  r.set_ok(true);
  edge::ScanResult* out = r.mutable_scan();
  const ControlSnapshot& s = channels_->snapshots.Latest();
  const std::int64_t timeout_us =
      static_cast<std::int64_t>(config_.control.motor_reply_timeout_ms) * 1000;
  for (std::size_t j = 0; j < config_.joints.size(); ++j) {
    const config::JointConfig& joint = config_.joints[j];
    const sm::JointMeasurement& m = s.joints[j];
    edge::ScannedMotor* motor = out->add_motors();
    motor->set_joint(static_cast<std::uint32_t>(j));
    motor->set_bus(static_cast<std::uint32_t>(joint.bus));
    motor->set_can_id(joint.can_id);
    motor->set_family(config::ToString(config_.motor_of(j).family));
    motor->set_answers(Answers(s, j, timeout_us));
    motor->set_position_rad(m.position_rad);
    motor->set_temperature_c(m.temperature_c);
    motor->set_fault(m.error_code);
    motor->set_raw_fault(m.raw_fault);
    motor->set_malformed_replies(m.malformed_replies);
  }
  for (std::size_t i = 0; i < report.stray_count; ++i) {
    const ScanReport::Stray& stray = report.strays[i];
    edge::StrayMotor* m = out->add_strays();
    m->set_bus(stray.bus);
    m->set_family(config::ToString(stray.sender.family));
    m->set_motor_id(stray.sender.motor_id);
    m->set_frames(stray.sender.frames);
  }
  return r;
}

MaintenanceDesk::Answer MaintenanceDesk::Jog(const CommandIntake::Client& client,
                                             const edge::MaintenanceRequest& request,
                                             const ControlSnapshot& s, std::int64_t now_us) {
  const edge::JogRequest& jog = request.jog();
  const std::uint32_t id = request.request_id();
  if (jog.joint() >= joints_.size()) return {MaintenanceError(id, "no such joint"), {}};
  if (!std::isfinite(jog.target_rad()) || !std::isfinite(jog.speed_rad_s()) ||
      jog.speed_rad_s() < 0) {
    return {MaintenanceError(id, "target and speed must be finite, speed not negative"), {}};
  }
  for (std::uint32_t a = 0; a < s.alert_count; ++a) {  // warnings (JOINT_PAST_LIMIT) do not block
    if (s.alerts[a].severity != sm::Severity::kCritical) continue;
    return {MaintenanceError(id, std::string(sm::ToString(s.alerts[a].id)) +
                                     " is active: no jog until it clears"),
            {}};
  }
  const sm::JogRequest r{jog.joint(), jog.target_rad(), jog.speed_rad_s()};
  const auto outcome = intake_->SubmitJog(client, r, now_us);
  Answer answer;
  answer.change = outcome.change;
  if (outcome.kind != CommandIntake::Outcome::Kind::kQueued) {
    answer.result =
        MaintenanceError(id, std::string("jog dropped: ") + sm::ToString(outcome.reason));
    return answer;
  }
  edge::MaintenanceResult result;
  result.set_request_id(id);
  result.set_ok(true);
  const config::JointParams& p = joints_[jog.joint()];
  result.mutable_jog()->set_joint(jog.joint());
  result.mutable_jog()->set_position_rad(s.joints[jog.joint()].position_rad);
  result.mutable_jog()->set_target_rad(std::clamp(jog.target_rad(), p.min_rad, p.max_rad));
  answer.result = std::move(result);
  return answer;
}

edge::MaintenanceResult MaintenanceDesk::Calibrate(const edge::MaintenanceRequest& request,
                                                   const ControlSnapshot& s) const {
  const std::uint32_t id = request.request_id();
  const std::string& pose = request.calibrate().pose();
  if (pose != "zero" && pose != "stand") {
    return MaintenanceError(id, "unknown calibration pose '" + pose + "' (zero, stand)");
  }
  if (config_.calibration_path.empty()) {
    return MaintenanceError(id,
                            "the config names no calibration file: add `calibration: FILE` "
                            "(docs/bring-up.md)");
  }
  const std::int64_t timeout_us =
      static_cast<std::int64_t>(config_.control.motor_reply_timeout_ms) * 1000;
  std::string silent;
  for (std::size_t j = 0; j < joints_.size(); ++j) {
    if (!Answers(s, j, timeout_us)) silent += (silent.empty() ? "" : ", ") + config_.joints[j].name;
  }
  if (!silent.empty()) return MaintenanceError(id, "no reply from " + silent + ": cannot measure");
  edge::MaintenanceResult r;
  r.set_request_id(id);
  std::vector<double> offsets;
  for (std::size_t j = 0; j < joints_.size(); ++j) {
    const double target = pose == "zero" ? 0.0 : config_.joints[j].stand_rad;
    const double old = config_.joints[j].offset_rad;
    offsets.push_back(old + (target - s.joints[j].position_rad));
    r.mutable_calibrate()->add_previous_offsets_rad(static_cast<float>(old));
    r.mutable_calibrate()->add_offsets_rad(static_cast<float>(offsets.back()));
  }
  // fsync'ed and renamed: a power cut leaves the old offsets or the new, never an empty file
  // (the daemon would not start with it).
  const std::string error = WriteFileAtomically(
      config_.calibration_path, config::FormatCalibration(config_, offsets, pose, UtcNow()), 0644);
  if (!error.empty()) return MaintenanceError(id, error);
  r.set_ok(true);
  r.mutable_calibrate()->set_path(config_.calibration_path);
  return r;
}

edge::MaintenanceResult MaintenanceDesk::Zero(const edge::MaintenanceRequest& request) const {
  const std::uint32_t id = request.request_id();
  const edge::ZeroRequest& z = request.zero();
  if (z.joint() >= joints_.size()) return MaintenanceError(id, "no such joint");
  if (!z.confirm()) {
    return MaintenanceError(id, "set-zero writes the motor's own zero: send it with confirm");
  }
  channels_->motor_request.store(MotorRequestMail(z.joint(), can::MotorRequest::kSetZero),
                                 std::memory_order_release);
  edge::MaintenanceResult r;
  r.set_request_id(id);
  r.set_ok(true);
  r.mutable_zero()->set_note(std::string(ZeroNote(config_.motor_of(z.joint()).family)) +
                             ". The joint's offset was measured against the old zero: run "
                             "robot-edgectl calibrate again, then restart robot-edged (until "
                             "then nothing leaves DAMP).");
  return r;
}

edge::MaintenanceResult MaintenanceDesk::ClearFault(const edge::MaintenanceRequest& request) const {
  const std::uint32_t id = request.request_id();
  const std::uint32_t joint = request.clear_fault().joint();
  if (joint >= joints_.size()) return MaintenanceError(id, "no such joint");
  const char* note = nullptr;
  switch (config_.motor_of(joint).family) {
    case config::MotorFamily::kAk:
      return MaintenanceError(id, config_.joints[joint].name +
                                      ": AK motors have no clear-fault command; power-cycle the "
                                      "motor (its fault clears at start-up)");
    case config::MotorFamily::kDamiao:
      note = "sent FF×7 FB (clear error) then FC (enable) to the Damiao motor";
      break;
    case config::MotorFamily::kRobstride:
      note =
          "sent type 4 with clear (stop, clear faults) then type 3 (enable) to the Robstride "
          "motor";
      break;
  }
  channels_->motor_request.store(MotorRequestMail(joint, can::MotorRequest::kClearFault),
                                 std::memory_order_release);
  edge::MaintenanceResult r;
  r.set_request_id(id);
  r.set_ok(true);
  r.mutable_clear_fault()->set_note(
      std::string(note) +
      ". MOTOR_FAULT clears when its replies say so; if the fault comes back, its cause remains "
      "(temperature, supply voltage, a blocked joint): find it before STAND.");
  return r;
}

}  // namespace robot_edge::daemon
