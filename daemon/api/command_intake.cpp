#include "daemon/api/command_intake.hpp"

#include <algorithm>
#include <cstdlib>

#include "daemon/api/messages.hpp"
#include "daemon/channels/clock.hpp"
#include "statemachine/admission.hpp"

namespace robot_edge::daemon {
namespace {

std::string Ms(std::int64_t us) { return std::to_string(us / 1000) + " ms"; }

// The EdgeError for the first of a burst of drops by freshness.
edge::EdgeError BurstError(const config::Config& c, const std::string& controller,
                           sm::Reason reason, const CommandFreshness::Verdict& v) {
  edge::EdgeError e;
  e.set_subsystem(SubsystemOfController(controller));
  const std::string who = controller.empty() ? "an observer" : "'" + controller + "'";
  switch (reason) {
    case sm::Reason::kCommandStale:
      e.set_code("COMMAND_STALE");
      e.set_message("commands from " + who + " arrive " + Ms(v.age_us) +
                    " later than its quickest (limit api.max_command_age_ms " +
                    std::to_string(c.api.max_command_age_ms) +
                    " ms): dropped until fresh ones come (a network stall?)");
      break;
    case sm::Reason::kCommandClockOffset:
      e.set_code("COMMAND_CLOCK_OFFSET");
      e.set_message("commands from " + who + " are stamped " + Ms(std::abs(v.clock_offset_us)) +
                    (v.clock_offset_us >= 0 ? " behind" : " ahead of") +
                    " robot-edged's clock (limit api.max_clock_offset_ms " +
                    std::to_string(c.api.max_clock_offset_ms) + " ms + max_command_age_ms " +
                    std::to_string(c.api.max_command_age_ms) +
                    " ms): dropped (an old, queued or retained command, or a client clock "
                    "that is not synchronised)");
      break;
    case sm::Reason::kSequenceNotIncreasing:
      e.set_code("COMMAND_OUT_OF_ORDER");
      e.set_message("commands from " + who +
                    " repeat or go back in sequence (a replay, a duplicate or reordering): "
                    "dropped");
      break;
    default:
      e.set_code("COMMAND_NO_TIMESTAMP");
      e.set_message("commands from " + who +
                    " have no timestamp_us, so their age cannot be judged: dropped");
  }
  return e;
}

edge::EdgeError ResyncError(const std::string& controller, std::int64_t step_us) {
  edge::EdgeError e;
  e.set_subsystem(SubsystemOfController(controller));
  e.set_code("CLIENT_CLOCK_RESYNC");
  e.set_message("the clock of '" + controller + "' stepped back by " + Ms(step_us) +
                " (or its link got that much slower for good): its commands are accepted again");
  return e;
}

}  // namespace

bool IsDamp(const edge::CloudCommand& command) {
  return command.has_mode() && command.mode().mode() != edge::MODE_STAND;
}

std::int64_t CommandIntake::DaemonWallClock() { return static_cast<std::int64_t>(WallMicros()); }

CommandIntake::CommandIntake(const config::Config& config, ControlChannels* channels,
                             WallClock wall_clock)
    : config_(config),
      channels_(channels),
      wall_clock_(std::move(wall_clock)),
      arbiter_(config.api.controllers,
               static_cast<std::int64_t>(config.api.controller_idle_timeout_ms) * 1000),
      validator_(config, config::BuildJointTable(config)) {}

CommandIntake::ClientState& CommandIntake::StateOf(std::uint64_t client) {
  auto it = clients_.find(client);
  if (it == clients_.end()) {
    const std::int64_t max_age_us =
        static_cast<std::int64_t>(config_.api.max_command_age_ms) * 1000;
    const std::int64_t max_offset_us =
        static_cast<std::int64_t>(config_.api.max_clock_offset_ms) * 1000;
    it = clients_.emplace(client, ClientState(max_age_us, max_offset_us)).first;
  }
  return it->second;
}

CommandIntake::Outcome CommandIntake::Submit(const Client& client,
                                             const edge::CloudCommand& command,
                                             std::int64_t now_us) {
  return Admit(client, IsDamp(command), command.timestamp_us(), command.sequence(), now_us,
               [&](CommandSlot* slot, std::int64_t sent_us) {
                 return validator_.Validate(command, now_us, sent_us, &slot->trajectory,
                                            &slot->command, &counters_);
               });
}

CommandIntake::Outcome CommandIntake::Submit(const Client& client,
                                             const edge::JointCommand& command,
                                             std::int64_t now_us) {
  return Admit(client, /*damp=*/false, command.timestamp_us(), command.sequence(), now_us,
               [&](CommandSlot* slot, std::int64_t sent_us) {
                 return validator_.Validate(command, now_us, sent_us, &slot->joint_stream,
                                            &slot->command, &counters_);
               });
}

template <typename Validate>
CommandIntake::Outcome CommandIntake::Admit(const Client& client, bool damp,
                                            std::uint64_t timestamp_us, std::uint32_t sequence,
                                            std::int64_t now_us, Validate validate) {
  Outcome outcome;
  // Freshness first: a command too old, replayed or out of order takes no control.
  ClientState& state = StateOf(client.id);
  const CommandFreshness::Verdict v =
      state.freshness.Judge(now_us, wall_clock_(), timestamp_us, sequence, damp);
  if (v.resync_step_us) outcome.error = ResyncError(client.controller, *v.resync_step_us);
  if (v.drop) return Drop(client, state, *v.drop, v, std::move(outcome));
  state.burst = sm::Reason::kCount;
  if (!arbiter_.WouldAccept(client.id, client.controller, damp)) {
    counters_.Count(sm::Reason::kNotController);
    outcome.reason = sm::Reason::kNotController;
    return outcome;
  }
  return HandOver(client, damp, v.sent_us, now_us, std::move(outcome), validate);
}

CommandIntake::Outcome CommandIntake::Drop(const Client& client, ClientState& state,
                                           sm::Reason reason,
                                           const CommandFreshness::Verdict& verdict,
                                           Outcome outcome) {
  counters_.Count(reason);
  outcome.reason = reason;
  if (state.burst != reason) {
    state.burst = reason;
    outcome.error = BurstError(config_, client.controller, reason, verdict);
  }
  return outcome;
}

void CommandIntake::TakeControl(const Client& client, bool damp, std::int64_t now_us,
                                Outcome* outcome) {
  auto decision = arbiter_.OnCommand(client.id, client.controller, damp, now_us);
  outcome->change = std::move(decision.change);
  // Whoever walked the robot no longer holds control: it stops before the new holder commands.
  if (outcome->change && !outcome->change->previous.empty()) StopWalking(now_us);
}

template <typename Validate>
CommandIntake::Outcome CommandIntake::HandOver(const Client& client, bool damp,
                                               std::int64_t sent_us, std::int64_t now_us,
                                               Outcome outcome, Validate validate) {
  CommandSlot* slot = spare_ != nullptr ? spare_ : channels_->commands.Acquire();
  spare_ = nullptr;
  if (slot == nullptr) {
    if (damp) {  // never dropped: the control thread applies it when woken
      TakeControl(client, damp, now_us, &outcome);
      const bool latching = arbiter_.holder() != client.id;
      RequestEmergencyDamp(channels_, latching ? kUrgentLatchingDamp : kUrgentDamp);
      queued_damp_ = QueuedDamp{
          channels_->snapshots.Latest().ticks, latching && config_.safety.latch_external_damp,
          sm::MakeSenderLabel(arbiter_.holder() == 0 ? "" : arbiter_.current())};
      outcome.kind = Outcome::Kind::kAccepted;
      return outcome;
    }
    counters_.Count(sm::Reason::kQueueFull);
    outcome.reason = sm::Reason::kQueueFull;
    return outcome;
  }
  std::optional<sm::Reason> drop = validate(slot, sent_us);
  if (!drop) drop = RefusedByStateMachine(client, slot->command, now_us);
  if (drop) {  // dropped here: it takes no control
    spare_ = slot;
    outcome.reason = *drop;
    return outcome;
  }
  TakeControl(client, damp, now_us, &outcome);
  MarkSender(client, damp, &slot->command);
  if (damp) {
    queued_damp_ = QueuedDamp{channels_->snapshots.Latest().ticks,
                              slot->command.latches && config_.safety.latch_external_damp,
                              slot->command.holder};
  }
  slot->client_id = client.id;
  slot->want_result = client.wants_result;
  channels_->commands.Send(slot);
  // An emergency stop does not wait for the next tick (up to a period): the control thread is
  // woken and applies it at once (its deadlines, and its sole writing of the buses, unchanged).
  if (damp) channels_->wake.Wake();
  outcome.kind = Outcome::Kind::kQueued;
  return outcome;
}

std::optional<sm::Reason> CommandIntake::RefusedByStateMachine(const Client& client,
                                                               const sm::Command& command,
                                                               std::int64_t now_us) {
  if (arbiter_.holder() == client.id) return std::nullopt;  // the control thread judges it
  sm::Command probe = command;
  probe.from_controller = true;  // as it will be once it holds control
  probe.holder = sm::MakeSenderLabel(client.controller);
  const ControlSnapshot& latest = channels_->snapshots.Latest();
  sm::AdmissionView view = latest.admission;
  if (queued_damp_ && latest.ticks >= queued_damp_->ticks + 2) queued_damp_.reset();
  if (queued_damp_) {  // not applied yet: judged as the control thread will judge it
    view.mode = sm::Mode::kDamp;
    view.damp_entered_us = std::max(view.damp_entered_us, now_us);
    if (queued_damp_->latches && !view.stop_latched) {
      view.stop_latched = true;
      view.latch_holder = queued_damp_->holder;
    }
  }
  const std::optional<sm::Reason> refused = sm::Admit(view, probe, now_us).refused;
  if (refused) counters_.Count(*refused);
  return refused;
}

CommandIntake::Outcome CommandIntake::SubmitJog(const Client& client, const sm::JogRequest& jog,
                                                std::int64_t now_us) {
  Outcome outcome;
  sm::Command probe;
  probe.kind = sm::CommandKind::kJog;
  probe.source = sm::CommandSource::kDaemon;
  probe.received_us = probe.sent_us = now_us;
  probe.jog = jog;
  if (arbiter_.WouldAccept(client.id, client.controller, /*is_damp=*/false)) {
    if (const auto refused = RefusedByStateMachine(client, probe, now_us)) {
      outcome.reason = *refused;
      return outcome;
    }
  }
  const auto decision = arbiter_.OnCommand(client.id, client.controller, /*is_damp=*/false, now_us);
  outcome.change = decision.change;
  if (!decision.accepted) {
    counters_.Count(sm::Reason::kNotController);
    outcome.reason = sm::Reason::kNotController;
    return outcome;
  }
  return QueueDaemonCommand(sm::CommandKind::kJog, client.id, now_us, std::move(outcome),
                            [&](sm::Command* c) {
                              c->jog = jog;
                              MarkSender(client, /*damp=*/false, c);
                            });
}

CommandIntake::Outcome CommandIntake::SubmitReleaseStop(std::int64_t now_us) {
  return QueueDaemonCommand(sm::CommandKind::kReleaseStop, /*client_id=*/0, now_us, Outcome{},
                            [](sm::Command*) {});
}

template <typename Fill>
CommandIntake::Outcome CommandIntake::QueueDaemonCommand(sm::CommandKind kind,
                                                         std::uint64_t client_id,
                                                         std::int64_t now_us, Outcome outcome,
                                                         Fill fill) {
  CommandSlot* slot = spare_ != nullptr ? spare_ : channels_->commands.Acquire();
  spare_ = nullptr;
  if (slot == nullptr) {
    counters_.Count(sm::Reason::kQueueFull);
    outcome.reason = sm::Reason::kQueueFull;
    return outcome;
  }
  slot->command = sm::Command{};
  slot->command.kind = kind;
  slot->command.source = sm::CommandSource::kDaemon;
  slot->command.received_us = now_us;
  slot->command.sent_us = now_us;
  fill(&slot->command);
  slot->client_id = client_id;
  slot->want_result = false;
  channels_->commands.Send(slot);
  outcome.kind = Outcome::Kind::kQueued;
  return outcome;
}

std::optional<ControllerChange> CommandIntake::Disconnect(std::uint64_t client,
                                                          std::int64_t now_us) {
  clients_.erase(client);
  auto change = arbiter_.OnDisconnect(client);
  if (change && config_.api.stop_on_disconnect) StopWalking(now_us);
  return change;
}

void CommandIntake::MarkSender(const Client& client, bool damp, sm::Command* command) const {
  command->from_controller = client.id == arbiter_.holder();
  command->holder = sm::MakeSenderLabel(arbiter_.holder() == 0 ? "" : arbiter_.current());
  command->latches = damp && !command->from_controller;
  if (!command->latches) return;
  std::string who = client.controller.empty() ? "an observer" : "'" + client.controller + "'";
  who += " (client " + std::to_string(client.id);
  who += client.peer.empty() ? ")" : ", " + client.peer + ")";
  command->sender = sm::MakeSenderLabel(who);
}

std::optional<ControllerChange> CommandIntake::CheckIdle(std::int64_t now_us) {
  CheckWalkingSilence(now_us);
  auto change = arbiter_.OnTimer(now_us);
  if (change) StopWalking(now_us);
  return change;
}

void CommandIntake::CheckWalkingSilence(std::int64_t now_us) {
  const std::int64_t bound_us = static_cast<std::int64_t>(config_.api.walking_silence_ms) * 1000;
  if (bound_us == 0 || arbiter_.holder() == 0) return;
  const std::int64_t last_us = arbiter_.last_command_us();
  if (now_us - last_us < bound_us || silence_stopped_after_us_ == last_us) return;
  silence_stopped_after_us_ = last_us;
  StopWalking(now_us);
}

void CommandIntake::StopWalking(std::int64_t now_us) {
  CommandSlot* slot = spare_ != nullptr ? spare_ : channels_->commands.Acquire();
  spare_ = nullptr;
  if (slot == nullptr) {
    channels_->urgent.fetch_or(kUrgentStopWalking, std::memory_order_acq_rel);
    return;
  }
  slot->command = sm::Command{};
  slot->command.kind = sm::CommandKind::kStopWalking;
  slot->command.source = sm::CommandSource::kDaemon;
  slot->command.received_us = now_us;
  slot->command.sent_us = now_us;
  slot->client_id = 0;
  slot->want_result = false;
  channels_->commands.Send(slot);
}

}  // namespace robot_edge::daemon
