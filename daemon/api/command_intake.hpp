// The API thread's command path, without sockets: from a client's decoded CloudCommand to the
// control thread's queue. Hub calls it for every command; bench/ and the tests call the same code.
//
//   1. freshness (CommandFreshness, one per client): timestamp, robot-edged's wall clock,
//      sequence and age; a command dropped here takes no control;
//   2. who may command (ControllerArbiter): the controlling client, or anyone for DAMP; control
//      changes hands only for a command that passes 3 and 3b (one dropped there takes none);
//   3. seed 000's validation (CommandValidator) into a free CommandPipe slot;
//   3b. a command that would take control is judged as the state machine would judge it, on
//      the view the control thread published after its last tick (ControlSnapshot::admission,
//      statemachine/admission.hpp): one it would refuse (stop_latched, motors_not_ready, a
//      transition the table refuses, ...) is dropped with that reason and takes no control. The
//      view is at most a tick old: the control thread still decides, and a command queued in
//      that tick can make the two differ (the control thread's answer then comes back);
//   4. the hand-off to the control thread. DAMP is never dropped: when every slot is in flight it
//      takes the urgent mailbox, which the control thread reads every tick.
// The first drop of a burst of stale / out-of-order / untimestamped commands from a client (and a
// resync after its clock stepped) comes back as an EdgeError to broadcast; the burst ends with
// the client's next accepted command.
//
// Threads: the API thread's. Talks to the control thread only through ControlChannels.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "config/config.hpp"
#include "daemon/api/command_freshness.hpp"
#include "daemon/api/command_validator.hpp"
#include "daemon/api/controller_arbiter.hpp"
#include "daemon/channels/control_channels.hpp"
#include "edge_api.pb.h"
#include "edge_cloud.pb.h"
#include "statemachine/counters.hpp"

namespace robot_edge::daemon {

class CommandIntake {
 public:
  // The client a command comes from.
  struct Client {
    std::uint64_t id = 0;    // the connection (never 0)
    std::string controller;  // the role its Hello took ("" = observer)
    bool wants_result = false;
    std::string peer;    // who is at the other end ("uid 1000 pid 42", "127.0.0.1:5000"), for texts
    bool local = false;  // on the Unix socket: someone on the robot itself
  };

  struct Outcome {
    enum class Kind {
      kQueued,    // handed to the control thread; its CommandResult comes back as a ControlEvent
      kAccepted,  // a DAMP that took the urgent mailbox: accepted now, applied next tick
      kDropped,   // `reason` says why
    };
    Kind kind = Kind::kDropped;
    sm::Reason reason = sm::Reason::kCount;
    std::optional<ControllerChange> change;  // control changed hands
    std::optional<edge::EdgeError> error;    // to broadcast: a burst of drops began, or a resync
  };

  // robot-edged's wall clock, µs since the Unix epoch (channels/clock.hpp's WallMicros; a test's
  // own).
  using WallClock = std::function<std::int64_t()>;

  // `config` and `channels` outlive the intake.
  CommandIntake(const config::Config& config, ControlChannels* channels,
                WallClock wall_clock = DaemonWallClock);

  Outcome Submit(const Client& client, const edge::CloudCommand& command, std::int64_t now_us);
  // A joint command (edge_api.proto JointCommand): the same path, never a DAMP.
  Outcome Submit(const Client& client, const edge::JointCommand& command, std::int64_t now_us);
  // A bring-up jog (daemon/api/maintenance.hpp has checked it): the client must hold or take
  // control, as for any motion; queued as the daemon's own command (no sequence, no result).
  Outcome SubmitJog(const Client& client, const sm::JogRequest& jog, std::int64_t now_us);
  // A local release of a latched stop (maintenance.hpp has checked who asks): queued as the
  // daemon's own command; it takes no control and the robot stays in DAMP.
  Outcome SubmitReleaseStop(std::int64_t now_us);

  // The client's connection closed: forgets it. When it held control, control is released and,
  // with api.stop_on_disconnect, walking stops.
  std::optional<ControllerChange> Disconnect(std::uint64_t client, std::int64_t now_us);
  // Called every 100 ms or so: releases control after the idle timeout, and stops walking when
  // control is released or the client in control fell silent for api.walking_silence_ms.
  std::optional<ControllerChange> CheckIdle(std::int64_t now_us);

  const ControllerArbiter& arbiter() const { return arbiter_; }
  // Drops decided here (the control thread counts its own).
  const sm::Counters& counters() const { return counters_; }

 private:
  static std::int64_t DaemonWallClock();

  struct ClientState {
    ClientState(std::int64_t max_age_us, std::int64_t max_clock_offset_us)
        : freshness(max_age_us, max_clock_offset_us) {}
    CommandFreshness freshness;
    sm::Reason burst = sm::Reason::kCount;  // the reason of the current burst of drops
  };

  ClientState& StateOf(std::uint64_t client);
  // Drops a fresh-checked command: counted, and an EdgeError for the first of a burst.
  Outcome Drop(const Client& client, ClientState& state, sm::Reason reason,
               const CommandFreshness::Verdict& verdict, Outcome outcome);
  // Steps 1-4 for any command; `validate(slot, sent_us)` fills the slot's command or says why
  // it is dropped.
  template <typename Validate>
  Outcome Admit(const Client& client, bool damp, std::uint64_t timestamp_us, std::uint32_t sequence,
                std::int64_t now_us, Validate validate);
  template <typename Validate>
  Outcome HandOver(const Client& client, bool damp, std::int64_t sent_us, std::int64_t now_us,
                   Outcome outcome, Validate validate);
  // Step 3b: for a client that does not hold control, why the state machine would refuse
  // `command` (counted), or nullopt.
  std::optional<sm::Reason> RefusedByStateMachine(const Client& client, const sm::Command& command,
                                                  std::int64_t now_us);
  // Control changes hands (ControllerArbiter::OnCommand) for a command about to be queued.
  void TakeControl(const Client& client, bool damp, std::int64_t now_us, Outcome* outcome);
  // The daemon's own command of `kind` (no sequence, no result) for `client_id` (0: none),
  // `fill`ed, into a free slot.
  template <typename Fill>
  Outcome QueueDaemonCommand(sm::CommandKind kind, std::uint64_t client_id, std::int64_t now_us,
                             Outcome outcome, Fill fill);
  void StopWalking(std::int64_t now_us);
  void CheckWalkingSilence(std::int64_t now_us);
  // Marks a queued command with who sent it, for the stop latch (sm::Command::latches).
  void MarkSender(const Client& client, bool damp, sm::Command* command) const;

  const config::Config& config_;
  ControlChannels* channels_;
  WallClock wall_clock_;
  ControllerArbiter arbiter_;
  CommandValidator validator_;
  sm::Counters counters_;
  std::map<std::uint64_t, ClientState> clients_;
  CommandSlot* spare_ = nullptr;  // a slot whose command was dropped, reused next time
  // A DAMP queued that the newest snapshot may not show yet (red team R5, F1): the admission
  // check of a client not in control judges as if it were applied, until the control thread has
  // published two ticks past it (one may have drained its queue before the DAMP came).
  struct QueuedDamp {
    std::uint64_t ticks = 0;  // the newest snapshot's when it was queued
    bool latches = false;     // it will latch the stop (safety.latch_external_damp)
    sm::SenderLabel holder{};
  };
  std::optional<QueuedDamp> queued_damp_;
  // The holder's last command time for which the walking silence already stopped walking.
  std::int64_t silence_stopped_after_us_ = -1;
};

// A ModeCommand other than STAND: DAMP, the emergency stop (an unknown Mode value reads as DAMP,
// the safe side, as the validator reads it).
bool IsDamp(const edge::CloudCommand& command);

}  // namespace robot_edge::daemon
