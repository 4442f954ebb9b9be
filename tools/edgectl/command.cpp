// The one-shot commanding subcommands: stand, damp, walk.
#include <chrono>

#include "client/commands.hpp"
#include "tools/edgectl/format.hpp"
#include "tools/edgectl/session.hpp"

namespace robot_edge::edgectl {

namespace {

using Clock = std::chrono::steady_clock;

constexpr client::Millis kSlice{100};
// walk re-sends its velocity this often: robot-edged stops a walk whose controller fell silent
// for api.walking_silence_ms (1 s by default): 5 Hz
// keeps it walking with room for a late packet.
constexpr std::chrono::milliseconds kWalkRefresh{200};

std::uint32_t SendStamped(Context& ctx, client::Sequencer* sequencer, edge::CloudCommand command) {
  const std::uint32_t sequence = sequencer->Stamp(&command, ctx.wall_clock_us());
  ctx.client->Send(command);
  return sequence;
}

// Prints what arrives while walking; returns false when a command was refused. A re-send that
// arrived late (command_stale: robot-edged drops it and takes the next fresh one) is said and the
// walk goes on: the velocity it repeats is still in force, and the next re-send, 200 ms later,
// keeps it within api.walking_silence_ms.
bool ServiceWhileWalking(Context& ctx, const edge::ServerMessage& m) {
  if (m.has_command_result() && !m.command_result().accepted() &&
      m.command_result().reason() == "command_stale") {
    *ctx.err << "late: re-send #" << m.command_result().sequence()
             << " arrived late and was dropped (command_stale); walking on\n";
    return true;
  }
  if (m.has_command_result() && !m.command_result().accepted()) {
    *ctx.err << "refused: " << m.command_result().reason() << " (robot in "
             << ModeName(m.command_result().control_mode()) << ")\n";
    return false;
  }
  if (m.has_event() && !m.event().has_diagnostics()) *ctx.err << FormatEvent(m.event()) << "\n";
  return true;
}

}  // namespace

int ReportResult(Context& ctx, std::uint32_t sequence, const char* what) {
  const auto result = ctx.client->WaitCommandResult(sequence, ctx.timeout());
  if (!result) {
    *ctx.err << "robot-edgectl: no answer to " << what << " from robot-edged within "
             << ctx.timeout().count() << " ms\n";
    return kExitFailed;
  }
  if (ctx.options.json) *ctx.out << ToJson(*result) << "\n";
  if (!result->accepted()) {
    *ctx.err << "refused: " << result->reason() << " (robot in " << ModeName(result->control_mode())
             << ")\n";
    return kExitFailed;
  }
  if (!ctx.options.json) {
    *ctx.out << what << ": accepted, robot in " << ModeName(result->control_mode())
             << (result->reason().empty() ? "" : " (" + result->reason() + ")") << "\n";
  }
  return kExitOk;
}

int RunMode(Context& ctx, edge::Mode mode) {
  client::Sequencer sequencer;
  const std::uint32_t sequence = SendStamped(ctx, &sequencer, client::MakeMode(mode));
  return ReportResult(ctx, sequence, mode == edge::MODE_DAMP ? "damp" : "stand");
}

int RunWalk(Context& ctx) {
  const Options& o = ctx.options;
  client::Sequencer sequencer;
  const auto velocity = client::MakeVelocity(o.vx, o.vy, o.vyaw);
  if (const int status = ReportResult(ctx, SendStamped(ctx, &sequencer, velocity), "walk");
      status != kExitOk) {
    return status;
  }
  if (!o.json) {
    *ctx.out << "walking; ";
    if (o.duration_s > 0) {
      *ctx.out << "stops after " << o.duration_s << " s" << std::endl;
    } else {
      *ctx.out << "Ctrl-C to stop" << std::endl;
    }
  }
  const Clock::time_point start = Clock::now();
  Clock::time_point refresh = start + kWalkRefresh;
  const auto elapsed_s = [&] {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  while (!ctx.interrupted() && (o.duration_s <= 0 || elapsed_s() < o.duration_s)) {
    const auto message = ctx.client->Read(kSlice);
    if (message && !ServiceWhileWalking(ctx, *message)) return kExitFailed;
    if (Clock::now() >= refresh) {
      SendStamped(ctx, &sequencer, velocity);
      refresh += kWalkRefresh;
    }
  }
  return ReportResult(ctx, SendStamped(ctx, &sequencer, client::MakeVelocity(0, 0, 0)), "stop");
}

}  // namespace robot_edge::edgectl
