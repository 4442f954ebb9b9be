// robot-edgectl sine: a sine on one joint through the joint stream (edge_api.proto JointCommand),
// every other joint holding its measured position, and the command-to-effect latency measured
// from the echoed user_command_key: the robot's time when the control tick applied the command
// (its motor frames go out in that tick) minus the robot's time when it was sent (TimeSync).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include "client/commands.hpp"
#include "client/joint_targets.hpp"
#include "client/time_sync.hpp"
#include "tools/edgectl/format.hpp"
#include "tools/edgectl/session.hpp"

namespace robot_edge::edgectl {
namespace {

using Clock = std::chrono::steady_clock;

// A command stops executing this long after it was sent (at least three packets' worth): the
// robot holds if the stream stalls, and DAMPs 200 ms after the last packet. 100 ms is also the
// default api.max_command_age_ms: a packet later than that is dropped as stale anyway.
constexpr std::int64_t kMinHorizonUs = 100'000;

// A packet the robot dropped for arriving late: skipped, the stream goes on (the next packet
// carries the sine's present value). Any other refusal stops the stream.
bool Late(const std::string& reason) {
  return reason == "joint_stream_expired" || reason == "command_stale";
}

struct SineRun {
  std::vector<std::int64_t> sent_robot_us;  // by user_command_key (1-based; [0] unused)
  std::vector<double> latency_us;           // one per key seen applied
  std::uint32_t last_measured_key = 0;
  std::size_t late = 0;  // packets dropped for arriving late
  bool refused = false;
};

// Takes what one message says: a refusal stops the stream; a telemetry frame's echoed key gives
// one latency sample.
void Service(Context& ctx, const edge::ServerMessage& m, SineRun* run) {
  if (m.has_command_result() && !m.command_result().accepted() &&
      Late(m.command_result().reason())) {
    ++run->late;
  } else if (m.has_command_result() && !m.command_result().accepted()) {
    const edge::CommandResult& r = m.command_result();
    *ctx.err << "refused: " << r.reason() << " (packet #" << r.sequence() << ", robot in "
             << ModeName(r.control_mode()) << ")\n";
    run->refused = true;
  } else if (m.has_event() && !m.event().has_diagnostics()) {
    *ctx.err << FormatEvent(m.event()) << "\n";
  } else if (m.has_telemetry() && m.has_telemetry_extension()) {
    const edge::TelemetryExtension& x = m.telemetry_extension();
    const std::uint32_t key = x.last_user_command_key();
    if (key == 0 || key <= run->last_measured_key || key >= run->sent_robot_us.size()) return;
    run->last_measured_key = key;
    run->latency_us.push_back(
        static_cast<double>(x.user_command_key_applied_us() - run->sent_robot_us[key]));
  }
}

void ServiceUntil(Context& ctx, Clock::time_point until, SineRun* run) {
  while (!run->refused && !ctx.interrupted()) {
    const Clock::time_point now = Clock::now();
    if (now >= until) return;
    const auto message = ctx.client->Read(std::chrono::ceil<client::Millis>(until - now));
    if (message) Service(ctx, *message, run);
  }
}

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

void Report(Context& ctx, const SineRun& run, std::size_t packets,
            const client::ClockOffset& clock) {
  const auto& l = run.latency_us;
  if (ctx.options.json) {
    *ctx.out << "{\"packets\":" << packets << ",\"late\":" << run.late
             << ",\"round_trip_us\":" << clock.round_trip_us << ",\"latency_samples\":" << l.size();
    if (!l.empty()) {
      *ctx.out << ",\"latency_us\":{\"min\":" << Quantile(l, 0)
               << ",\"median\":" << Quantile(l, 0.5) << ",\"p99\":" << Quantile(l, 0.99)
               << ",\"max\":" << Quantile(l, 1) << "}";
    }
    *ctx.out << "}\n";
    return;
  }
  char line[240];
  std::snprintf(line, sizeof(line),
                "sine: done, %zu packets (%zu dropped for arriving late); clock offset %lld µs "
                "(round trip %lld µs)\n",
                packets, run.late, static_cast<long long>(clock.offset_us),
                static_cast<long long>(clock.round_trip_us));
  *ctx.out << line;
  if (l.empty()) {
    *ctx.out << "latency: no echoed key came back (telemetry is 10 Hz: stream longer)\n";
    return;
  }
  std::snprintf(
      line, sizeof(line),
      "command -> control tick latency over %zu echoed keys: min %.0f µs, median %.0f µs, "
      "p99 %.0f µs, max %.0f µs (± %lld µs of clock sync)\n",
      l.size(), Quantile(l, 0), Quantile(l, 0.5), Quantile(l, 0.99), Quantile(l, 1),
      static_cast<long long>(clock.round_trip_us / 2));
  *ctx.out << line;
}

}  // namespace

int RunSine(Context& ctx) {
  const Options& o = ctx.options;
  const std::vector<std::string> names = ctx.joint_names();
  const std::size_t joint = client::FindJoint(names, o.joint);
  if (joint >= names.size()) throw std::invalid_argument("unknown joint '" + o.joint + "'");
  const std::vector<float> start = MeasuredPose(ctx);
  const client::ClockOffset clock = ctx.client->SyncClock(5, ctx.timeout());
  const std::vector<float> kp(names.size(), static_cast<float>(o.kp));
  const std::vector<float> kd(names.size(), static_cast<float>(o.kd));
  const auto packets = static_cast<std::size_t>(o.duration_s * o.rate_hz);
  const auto horizon_us =
      std::max<std::int64_t>(kMinHorizonUs, static_cast<std::int64_t>(3e6 / o.rate_hz));
  const double w = 2.0 * std::numbers::pi * o.frequency_hz;
  if (!o.json) {
    *ctx.out << "sine: " << names[joint] << " ± " << o.amplitude_rad << " rad at " << o.frequency_hz
             << " Hz for " << o.duration_s << " s, " << o.rate_hz << " commands/s (kp " << o.kp
             << ", kd " << o.kd << ")" << std::endl;
  }
  SineRun run;
  run.sent_robot_us.assign(packets + 1, 0);
  client::Sequencer sequencer;
  std::vector<float> q = start, dq(names.size(), 0.0f);
  const Clock::time_point t0 = Clock::now();
  std::size_t sent = 0;
  for (std::size_t k = 0; k < packets && !run.refused && !ctx.interrupted(); ++k) {
    const double t = static_cast<double>(k) / o.rate_hz;
    ServiceUntil(ctx,
                 t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(t)),
                 &run);
    if (run.refused || ctx.interrupted()) break;
    q[joint] = start[joint] + static_cast<float>(o.amplitude_rad * std::sin(w * t));
    dq[joint] = static_cast<float>(o.amplitude_rad * w * std::cos(w * t));
    const std::int64_t robot_now = clock.ToRobot(client::MonotonicMicros());
    edge::JointCommand command =
        client::MakeJointCommand({.position = q,
                                  .velocity = dq,
                                  .kp = kp,
                                  .kd = kd,
                                  .end_time_us = robot_now + horizon_us,
                                  .user_command_key = static_cast<std::uint32_t>(k + 1)});
    sequencer.Stamp(&command, ctx.wall_clock_us());
    run.sent_robot_us[k + 1] = robot_now;
    ctx.client->Send(command);
    ++sent;
  }
  // The last echoed keys arrive with the next telemetry frames.
  ServiceUntil(ctx, Clock::now() + client::Millis(250), &run);
  if (run.refused) return kExitFailed;
  if (ctx.interrupted()) {
    *ctx.err << "sine: interrupted after " << sent
             << " commands; the robot holds, then DAMPs 200 ms after the last one\n";
    return kExitFailed;
  }
  Report(ctx, run, sent, clock);
  if (!o.json) {
    *ctx.out << "streaming stopped: the robot holds the last command, then DAMPs after 200 ms "
                "unless it gets a new one (e.g. robot-edgectl stand)\n";
  }
  return kExitOk;
}

}  // namespace robot_edge::edgectl
