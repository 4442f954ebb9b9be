// The streaming subcommands: move and hold send a trajectory packet every 1 / rate s (ramp.hpp)
// while watching the answers; the first refusal stops the stream.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "client/commands.hpp"
#include "client/joint_targets.hpp"
#include "client/ramp.hpp"
#include "tools/edgectl/format.hpp"
#include "tools/edgectl/session.hpp"

namespace robot_edge::edgectl {

namespace {

using Clock = std::chrono::steady_clock;

constexpr double kProgressEvery_s = 0.5;

// Bookkeeping of one stream.
struct StreamState {
  std::uint32_t last_sent = 0;      // sequence of the last packet sent
  std::uint32_t last_answered = 0;  // highest sequence with an accepted CommandResult
  std::size_t sent = 0;
  std::size_t skipped = 0;      // packets skipped because we were late
  std::vector<float> measured;  // latest telemetry joint_pos
  std::optional<edge::CommandResult> last_result;
  bool refused = false;
};

// Handles one incoming message. Returns false when the stream must stop (refused).
bool Service(Context& ctx, const edge::ServerMessage& m, StreamState* s) {
  if (m.has_command_result()) {
    const edge::CommandResult& r = m.command_result();
    s->last_result = r;
    if (!r.accepted()) {
      *ctx.err << "refused: " << r.reason() << " (packet #" << r.sequence() << ", robot in "
               << ModeName(r.control_mode()) << ")\n";
      s->refused = true;
      return false;
    }
    s->last_answered = std::max(s->last_answered, r.sequence());
  } else if (m.has_telemetry()) {
    s->measured.assign(m.telemetry().joint_pos().begin(), m.telemetry().joint_pos().end());
  } else if (m.has_event() && !m.event().has_diagnostics()) {
    *ctx.err << FormatEvent(m.event()) << "\n";
  }
  return true;
}

// Reads until `until`, servicing messages. False when the stream must stop.
bool ServiceUntil(Context& ctx, Clock::time_point until, StreamState* s) {
  for (;;) {
    const Clock::time_point now = Clock::now();
    if (now >= until || ctx.interrupted()) return !ctx.interrupted();
    const auto message = ctx.client->Read(std::chrono::ceil<client::Millis>(until - now));
    if (message && !Service(ctx, *message, s)) return false;
  }
}

void PrintProgress(Context& ctx, const client::Ramp& ramp, double t_s, const StreamState& s) {
  const std::size_t j = ramp.peak_joint();
  const std::vector<std::string> names = ctx.joint_names();
  char line[200];
  std::snprintf(line, sizeof(line), "%6.2f/%.2f s  %zu packets  %s target %.3f", t_s,
                ramp.spec().duration_s + ramp.spec().hold_s, s.sent,
                j < names.size() ? names[j].c_str() : "?", ramp.PoseAt(t_s)[j]);
  *ctx.out << line;
  if (j < s.measured.size()) {
    std::snprintf(line, sizeof(line), " measured %.3f rad", s.measured[j]);
    *ctx.out << line;
  }
  *ctx.out << std::endl;
}

// Streams every packet of `ramp` on schedule, then waits for the last packet's answer.
int Stream(Context& ctx, const client::Ramp& ramp, const char* what) {
  StreamState s;
  client::Sequencer sequencer;
  const Clock::time_point t0 = Clock::now();
  const double rate = ramp.spec().packet_rate_hz;
  double next_progress_s = 0.0;
  for (std::size_t packet = 0; packet < ramp.packet_count();) {
    const auto due = t0 + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(ramp.packet_time_s(packet)));
    if (!ServiceUntil(ctx, due, &s)) break;
    // Late by a period or more (a stalled terminal, a slow machine): send the packet for now.
    // Never packet 0: the robot's first target is the measured pose.
    const double elapsed_s = std::chrono::duration<double>(Clock::now() - t0).count();
    const auto on_time =
        std::min(static_cast<std::size_t>(elapsed_s * rate), ramp.packet_count() - 1);
    if (packet > 0 && on_time > packet) {
      s.skipped += on_time - packet;
      packet = on_time;
    }
    auto command = client::MakeTrajectory(ramp.Packet(packet));
    s.last_sent = sequencer.Stamp(&command, ctx.wall_clock_us());
    ctx.client->Send(command);
    ++s.sent;
    ++packet;
    if (!ctx.options.json && elapsed_s >= next_progress_s) {
      PrintProgress(ctx, ramp, elapsed_s, s);
      next_progress_s += kProgressEvery_s;
    }
  }
  if (s.refused) return kExitFailed;
  if (ctx.interrupted()) {
    *ctx.err << what << ": interrupted after " << s.sent
             << " packets; streaming stopped, the robot DAMPs 200 ms after the last one\n";
    return kExitFailed;
  }
  const Clock::time_point deadline = Clock::now() + ctx.timeout();
  while (s.last_answered < s.last_sent && Clock::now() < deadline) {
    if (!ServiceUntil(ctx, std::min(deadline, Clock::now() + client::Millis(20)), &s)) {
      return kExitFailed;
    }
  }
  if (s.last_answered < s.last_sent) {
    *ctx.err << "robot-edgectl: no answer to packet #" << s.last_sent << " within "
             << ctx.timeout().count() << " ms\n";
    return kExitFailed;
  }
  if (ctx.options.json) {
    *ctx.out << "{\"packets\":" << s.sent << ",\"skipped\":" << s.skipped
             << ",\"last_result\":" << ToJson(*s.last_result) << "}\n";
  } else {
    *ctx.out << what << ": done, " << s.sent << " packets (" << s.skipped
             << " skipped because late); streaming stopped: the robot holds the last pose, then "
                "DAMPs after 200 ms unless it gets a new command (e.g. robot-edgectl stand)\n";
  }
  return kExitOk;
}

}  // namespace

std::vector<float> MeasuredPose(Context& ctx) {
  const auto telemetry = ctx.client->WaitTelemetry(ctx.timeout());
  if (!telemetry) {
    throw client::ClientError(client::ErrorKind::kTimeout,
                              "no telemetry (for the measured pose) from robot-edged within " +
                                  std::to_string(ctx.timeout().count()) + " ms");
  }
  if (telemetry->joint_pos_size() != ctx.welcome.joint_names_size()) {
    throw client::ClientError(client::ErrorKind::kProtocol,
                              "telemetry has " + std::to_string(telemetry->joint_pos_size()) +
                                  " joint positions for " +
                                  std::to_string(ctx.welcome.joint_names_size()) + " joints");
  }
  return {telemetry->joint_pos().begin(), telemetry->joint_pos().end()};
}

int RunMove(Context& ctx) {
  const Options& o = ctx.options;
  const std::vector<std::string> names = ctx.joint_names();
  const auto targets = client::ParseJointTargets(o.targets, names);  // before moving anything
  client::RampSpec spec;
  spec.start = MeasuredPose(ctx);
  spec.goal = client::ApplyTargets(spec.start, targets);
  spec.duration_s = o.duration_s;
  spec.hold_s = o.hold_s;
  spec.packet_rate_hz = o.rate_hz;
  spec.control_rate_hz = ctx.welcome.control_rate_hz();
  const client::Ramp ramp(std::move(spec));
  if (ramp.peak_speed_rad_s() > o.max_speed_rad_s) {
    char line[200];
    std::snprintf(line, sizeof(line),
                  "move: %s would reach %.2f rad/s (limit --max-speed %.2f): give a longer "
                  "--duration\n",
                  names[ramp.peak_joint()].c_str(), ramp.peak_speed_rad_s(), o.max_speed_rad_s);
    *ctx.err << line;
    return kExitUsage;
  }
  if (!o.json) {
    *ctx.out << "move: " << targets.size() << " joint(s) over " << o.duration_s << " s at "
             << o.rate_hz << " Hz (" << ramp.segments_per_packet() << " segments per packet)";
    if (o.hold_s > 0) *ctx.out << ", then hold " << o.hold_s << " s";
    *ctx.out << std::endl;
  }
  return Stream(ctx, ramp, "move");
}

int RunHold(Context& ctx) {
  client::RampSpec spec;
  spec.start = MeasuredPose(ctx);
  spec.goal = spec.start;
  spec.duration_s = 0.0;
  spec.hold_s = ctx.options.duration_s;
  spec.packet_rate_hz = ctx.options.rate_hz;
  spec.control_rate_hz = ctx.welcome.control_rate_hz();
  const client::Ramp ramp(std::move(spec));
  if (!ctx.options.json) {
    *ctx.out << "hold: streaming the measured pose for " << ctx.options.duration_s << " s at "
             << ctx.options.rate_hz << " Hz" << std::endl;
  }
  return Stream(ctx, ramp, "hold");
}

}  // namespace robot_edge::edgectl
