// The command thread (bridge.hpp): rt/lowcmd -> JointCommand on the controlling connection.
#include <map>
#include <optional>

#include "client/commands.hpp"
#include "dds/bridge.hpp"
#include "dds/options.hpp"
#include "dds/writer_follower.hpp"

namespace robot_edge::dds {

namespace {

using namespace std::chrono_literals;

constexpr auto kWait = 20ms;  // on rt/lowcmd, between looks at `stop`
constexpr std::int64_t kClockSyncEveryUs = 5'000'000;
constexpr int kClockSyncExchanges = 3;
constexpr std::int64_t kLogEveryUs = 1'000'000;  // a repeated refusal: once a second

std::string Counts(const std::map<std::string, std::uint64_t>& counts) {
  std::string text;
  for (const auto& [reason, n] : counts) {
    text += (text.empty() ? "" : ", ") + reason + " x" + std::to_string(n);
  }
  return text.empty() ? "none" : text;
}

class CommandLoop {
 public:
  CommandLoop(client::Client client, LowCmdReader& reader, const CommandLoopConfig& config)
      : client_(std::move(client)), reader_(reader), config_(config) {}

  void Step() {
    const std::int64_t now_us = client::MonotonicMicros();
    if (now_us >= next_sync_us_) {
      clock_ = client_.SyncClock(kClockSyncExchanges, config_.timeout);
      next_sync_us_ = now_us + kClockSyncEveryUs;
    }
    Batch batch;
    reader_.Take(kWait, [&](const LowCmdSample& sample) { Offer(sample, batch); });
    if (batch.switched) Reconnect();
    if (batch.newest) Forward(*batch.newest);
    Drain();
  }

  void LogSummary() const {
    Log("rt/lowcmd: " + std::to_string(received_) + " received, " + std::to_string(sent_) +
        " sent, " + std::to_string(follower_.ignored_samples()) +
        " from other writers ignored, refused here: " + Counts(refused_here_) +
        "; refused by robot-edged: " + Counts(refused_by_robot_));
  }

 private:
  // What one Take() leaves to send: the followed writer's newest sample, mapped.
  struct Batch {
    std::optional<MappedCommand> newest;
    bool switched = false;  // the followed writer changed: a new connection first
  };

  // One sample taken: followed or ignored (writer_follower.hpp); followed, it is mapped now
  // (the sample is lent only for this call) and replaces the batch's newest.
  void Offer(const LowCmdSample& sample, Batch& batch) {
    ++received_;
    const auto followed = follower_.followed();
    const bool followed_matched =
        !followed || *followed == sample.writer || reader_.Matched(*followed);
    const WriterFollower::Decision d =
        follower_.Offer(sample.writer, sample.source_ns, followed_matched);
    if (!d.log.empty()) Log(d.log);
    if (!d.follow) return;
    if (d.switched) {
      batch.switched = true;
      batch.newest.reset();  // the previous writer's, if any: never sent on the new connection
    }
    const std::int64_t now_us = client::MonotonicMicros();
    MappedCommand mapped = ToJointCommand(sample.msg, config_.joints, clock_.ToRobot(now_us),
                                          ++key_, config_.settings);
    mapped.command.set_timestamp_us(d.timestamp_us);
    mapped.command.set_sequence(d.sequence);
    batch.newest = std::move(mapped);
  }

  // The followed writer changed: robot-edged must judge it as a new client (its own clock,
  // its own sequence), so it gets a connection of its own; the old one closes first, which
  // releases control (robot-edged: the controller disconnected).
  void Reconnect() {
    { const client::Client old = std::move(client_); }  // closed here
    client_ = config_.reconnect();
    Log("rt/lowcmd: a new connection to robot-edged for the new writer");
  }

  void Forward(MappedCommand& mapped) {
    const std::int64_t now_us = client::MonotonicMicros();
    if (mapped.uses_ki && !ki_logged_) {
      Log("rt/lowcmd: ki is not supported and is ignored (kp, kd and tau are applied)");
      ki_logged_ = true;
    }
    if (mapped.refusal != Refusal::kNone) {
      const char* kind = mapped.refusal == Refusal::kMotorCount ? "motor_count" : "invalid";
      ++refused_here_[kind];
      std::uint64_t held_back = 0;
      if (refusal_log_.Allow(now_us, &held_back)) {
        Log("rt/lowcmd refused, not sent: " + mapped.reason + More(held_back));
      }
      return;
    }
    client_.Send(mapped.command);
    if (sent_++ == 0) {
      Log("rt/lowcmd: first command sent to robot-edged as controller '" + config_.controller +
          "'");
    }
  }

  // What robot-edged sent on this connection, read without waiting.
  void Drain() {
    while (auto message = client_.Read(0ms)) {
      if (!message->has_command_result() || message->command_result().accepted()) continue;
      const std::string& reason = message->command_result().reason();
      ++refused_by_robot_[reason];
      std::uint64_t held_back = 0;
      if (robot_refusal_log_.Allow(client::MonotonicMicros(), &held_back)) {
        Log("robot-edged refused a command: " + reason + More(held_back));
      }
    }
  }

  static std::string More(std::uint64_t held_back) {
    return held_back == 0 ? ""
                          : " (and " + std::to_string(held_back) + " more since the last message)";
  }

  client::Client client_;
  LowCmdReader& reader_;
  const CommandLoopConfig& config_;
  client::ClockOffset clock_;
  std::int64_t next_sync_us_ = 0;  // client::MonotonicMicros; 0: at once
  WriterFollower follower_;
  std::uint32_t key_ = 0;  // user_command_key of the last command
  std::uint64_t received_ = 0, sent_ = 0;
  std::map<std::string, std::uint64_t> refused_here_, refused_by_robot_;
  Throttle refusal_log_{kLogEveryUs}, robot_refusal_log_{kLogEveryUs};
  bool ki_logged_ = false;
};

}  // namespace

int RunCommandLoop(client::Client client, LowCmdReader& reader, const CommandLoopConfig& config,
                   std::atomic<bool>& stop) {
  CommandLoop loop(std::move(client), reader, config);
  int status = kExitFailed;
  try {
    while (!stop) loop.Step();
    status = kExitOk;
  } catch (const client::ClientError& e) {
    Log(std::string("robot-edged (commands): ") + e.what());
  } catch (const std::exception& e) {
    Log(std::string("rt/lowcmd: ") + e.what());
  }
  loop.LogSummary();
  stop = true;
  return status;
}

}  // namespace robot_edge::dds
