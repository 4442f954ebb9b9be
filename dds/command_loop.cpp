// The command thread (bridge.hpp): rt/lowcmd -> JointCommand on the controlling connection.
#include <map>

#include "client/commands.hpp"
#include "dds/bridge.hpp"
#include "dds/options.hpp"

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
  CommandLoop(client::Client& client, LowCmdReader& reader, const CommandLoopConfig& config)
      : client_(client), reader_(reader), config_(config) {}

  void Step() {
    const std::int64_t now_us = client::MonotonicMicros();
    if (now_us >= next_sync_us_) {
      clock_ = client_.SyncClock(kClockSyncExchanges, config_.timeout);
      next_sync_us_ = now_us + kClockSyncEveryUs;
    }
    reader_.Take(kWait, [this](const pnd_adam_msg_dds__LowCmd_& cmd) { Forward(cmd); });
    Drain();
  }

  void LogSummary() const {
    Log("rt/lowcmd: " + std::to_string(received_) + " received, " + std::to_string(sent_) +
        " sent, refused here: " + Counts(refused_here_) +
        "; refused by robot-edged: " + Counts(refused_by_robot_));
  }

 private:
  void Forward(const pnd_adam_msg_dds__LowCmd_& cmd) {
    ++received_;
    const std::int64_t now_us = client::MonotonicMicros();
    MappedCommand mapped =
        ToJointCommand(cmd, config_.joints, clock_.ToRobot(now_us), ++key_, config_.settings);
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
    sequencer_.Stamp(&mapped.command, client::WallClockMicros());
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

  client::Client& client_;
  LowCmdReader& reader_;
  const CommandLoopConfig& config_;
  client::ClockOffset clock_;
  std::int64_t next_sync_us_ = 0;  // client::MonotonicMicros; 0: at once
  client::Sequencer sequencer_;
  std::uint32_t key_ = 0;  // user_command_key of the last command
  std::uint64_t received_ = 0, sent_ = 0;
  std::map<std::string, std::uint64_t> refused_here_, refused_by_robot_;
  Throttle refusal_log_{kLogEveryUs}, robot_refusal_log_{kLogEveryUs};
  bool ki_logged_ = false;
};

}  // namespace

int RunCommandLoop(client::Client& client, LowCmdReader& reader, const CommandLoopConfig& config,
                   std::atomic<bool>& stop) {
  CommandLoop loop(client, reader, config);
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
