// robot-edgectl's bring-up subcommands (edge_api.proto MaintenanceRequest): scan, jog,
// check-direction, calibrate, zero. Each runs through robot-edged (one process owns the buses),
// in DAMP only, as a controller of api.maintenance_roles ("maintainer" by default).
// README, "First power-on".
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include "client/commands.hpp"
#include "tools/edgectl/format.hpp"
#include "tools/edgectl/session.hpp"

namespace robot_edge::edgectl {
namespace {

using Clock = std::chrono::steady_clock;
constexpr client::Millis kJogPeriod{50};   // well inside the 200 ms trajectory timeout
constexpr float kArrivedRad = 0.02f;
constexpr client::Millis kScanTimeout{6000};

std::string Fmt(const char* format, double a, double b = 0, double c = 0) {
  char text[160];
  std::snprintf(text, sizeof(text), format, a, b, c);
  return text;
}

std::uint32_t JointIndex(const Context& ctx, const std::string& name) {
  const auto names = ctx.joint_names();
  for (std::size_t j = 0; j < names.size(); ++j) {
    if (names[j] == name) return static_cast<std::uint32_t>(j);
  }
  throw std::invalid_argument("unknown joint '" + name + "'");
}

// Sends `request` (its request_id set here) and waits for the answer; prints a refusal.
std::optional<edge::MaintenanceResult> Ask(Context& ctx, edge::MaintenanceRequest request,
                                           client::Millis timeout) {
  static std::uint32_t next_id = 1;
  request.set_request_id(next_id++);
  auto result = ctx.client->Maintain(request, timeout);
  if (!result) {
    *ctx.err << "robot-edgectl: no answer from robot-edged within " << timeout.count() << " ms\n";
    return std::nullopt;
  }
  if (ctx.options.json) *ctx.out << ToJson(*result) << "\n";
  if (!result->ok()) {
    *ctx.err << "refused: " << result->error() << "\n";
    return std::nullopt;
  }
  return result;
}

edge::MaintenanceRequest JogRequest(std::uint32_t joint, float target, double speed) {
  edge::MaintenanceRequest r;
  r.mutable_jog()->set_joint(joint);
  r.mutable_jog()->set_target_rad(target);
  r.mutable_jog()->set_speed_rad_s(static_cast<float>(speed));
  return r;
}

// Jogs `joint` towards `target` until it is there (true), or `limit` passes, Ctrl-C, or a
// refusal (false). *position: the last measured position.
bool JogTo(Context& ctx, std::uint32_t joint, float target, double speed, Clock::duration limit,
           float* position) {
  const Clock::time_point end = Clock::now() + limit;
  while (!ctx.interrupted() && Clock::now() < end) {
    const auto status = Ask(ctx, JogRequest(joint, target, speed), ctx.timeout());
    if (!status) return false;
    *position = status->jog().position_rad();
    if (std::fabs(*position - status->jog().target_rad()) < kArrivedRad) return true;
    std::this_thread::sleep_for(kJogPeriod);
  }
  return false;
}

// Ends a jog: DAMP (the jogged joint too).
int Damp(Context& ctx) {
  client::Sequencer sequencer(1000);
  edge::CloudCommand damp = client::MakeMode(edge::MODE_DAMP);
  const std::uint32_t sequence = sequencer.Stamp(&damp, ctx.wall_clock_us());
  ctx.client->Send(damp);
  const auto result = ctx.client->WaitCommandResult(sequence, ctx.timeout());
  if (!result || !result->accepted()) {
    *ctx.err << "robot-edgectl: DAMP was not confirmed: send `robot-edgectl damp`\n";
    return kExitFailed;
  }
  return kExitOk;
}

std::optional<float> MeasuredPosition(Context& ctx, std::uint32_t joint) {
  const auto t = ctx.client->WaitTelemetry(ctx.timeout());
  if (!t || static_cast<int>(joint) >= t->joint_pos_size()) return std::nullopt;
  return t->joint_pos(static_cast<int>(joint));
}

}  // namespace

int RunScan(Context& ctx) {
  edge::MaintenanceRequest request;
  request.mutable_scan()->set_max_id(ctx.options.max_id);
  const auto result = Ask(ctx, request, std::max(ctx.timeout(), kScanTimeout));
  if (!result) return kExitFailed;
  const edge::ScanResult& scan = result->scan();
  const auto names = ctx.joint_names();
  int missing = 0, faulty = 0;
  for (const edge::ScannedMotor& m : scan.motors()) {
    missing += !m.answers();
    faulty += m.fault() != 0 || m.malformed_replies() != 0;
    if (ctx.options.json) continue;
    const std::string name = m.joint() < names.size() ? names[m.joint()] : "?";
    *ctx.out << name << std::string(name.size() < 18 ? 18 - name.size() : 1, ' ') << "bus "
             << m.bus() << "  id " << m.can_id() << "  " << m.family() << "  ";
    if (!m.answers()) {
      *ctx.out << "MISSING: no reply\n";
      continue;
    }
    *ctx.out << Fmt("%+.3f rad  %.0f °C", m.position_rad(), m.temperature_c());
    if (m.fault() != 0) {
      *ctx.out << "  fault " << m.fault() << " (raw 0x" << std::hex << m.raw_fault() << std::dec
               << ")";
    }
    if (m.malformed_replies() != 0) {
      *ctx.out << "  " << m.malformed_replies()
               << " replies did not decode: a different family or reply layout?";
    }
    *ctx.out << "\n";
  }
  for (const edge::StrayMotor& s : scan.strays()) {
    if (!ctx.options.json) {
      *ctx.out << "UNEXPECTED        bus " << s.bus() << "  id " << s.motor_id() << "  "
               << s.family() << "-shaped replies (" << s.frames()
               << "): a motor no joint names\n";
    }
  }
  if (!ctx.options.json) {
    *ctx.out << scan.motors_size() << " configured: " << scan.motors_size() - missing << " answer, "
             << missing << " missing, " << faulty << " with faults; " << scan.strays_size()
             << " unexpected id" << (scan.strays_size() == 1 ? "" : "s") << "\n";
  }
  return missing == 0 && faulty == 0 && scan.strays_size() == 0 ? kExitOk : kExitFailed;
}

int RunJog(Context& ctx) {
  const Options& o = ctx.options;
  const std::uint32_t joint = JointIndex(ctx, o.joint);
  float position = 0;
  const bool arrived =
      JogTo(ctx, joint, o.target_rad, o.speed_rad_s,
            std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.duration_s)),
            &position);
  const int damped = Damp(ctx);
  if (!o.json) {
    *ctx.out << o.joint << Fmt(" at %+.3f rad (target %+.3f): ", position, o.target_rad)
             << (arrived ? "arrived" : ctx.interrupted() ? "interrupted" : "not arrived")
             << "; DAMP\n";
  }
  return arrived && damped == kExitOk ? kExitOk : kExitFailed;
}

int RunCheckDirection(Context& ctx) {
  const Options& o = ctx.options;
  const std::uint32_t joint = JointIndex(ctx, o.joint);
  const auto start = MeasuredPosition(ctx, joint);
  if (!start) {
    *ctx.err << "robot-edgectl: no telemetry\n";
    return kExitFailed;
  }
  const float step = static_cast<float>(o.amount_rad);
  float position = *start;
  JogTo(ctx, joint, *start + step, o.speed_rad_s, std::chrono::seconds(5), &position);
  const float moved = position - *start;
  float back = position;
  JogTo(ctx, joint, *start, o.speed_rad_s, std::chrono::seconds(5), &back);
  const int damped = Damp(ctx);
  if (ctx.interrupted()) return kExitFailed;
  const bool follows = moved > 0.5f * step;
  *ctx.out << o.joint << Fmt(": commanded %+.3f rad, its encoder moved %+.3f rad", step, moved);
  if (follows) {
    *ctx.out << ": the motor follows its commands. Now confirm by eye that the joint turned in its "
                "positive direction (README, \"First power-on\"); if it turned the other way, "
                "its `direction` is wrong: flip it in the config.\n";
  } else if (moved < -0.5f * step) {
    *ctx.out << ": the motor moved AGAINST its command: its firmware's direction setting and its "
                "encoder disagree.\n";
  } else {
    *ctx.out << ": the joint did not follow (at a stop? blocked? a silent motor?).\n";
  }
  return follows && damped == kExitOk ? kExitOk : kExitFailed;
}

int RunCalibrate(Context& ctx) {
  edge::MaintenanceRequest request;
  request.mutable_calibrate()->set_pose(ctx.options.pose);
  const auto result = Ask(ctx, request, ctx.timeout());
  if (!result) return kExitFailed;
  if (ctx.options.json) return kExitOk;
  const edge::CalibrateResult& c = result->calibrate();
  const auto names = ctx.joint_names();
  bool large = false;
  for (int j = 0; j < c.offsets_rad_size(); ++j) {
    const float change = c.offsets_rad(j) - c.previous_offsets_rad(j);
    large |= std::fabs(change) > 0.5f;
    *ctx.out << (static_cast<std::size_t>(j) < names.size() ? names[j] : "?")
             << Fmt(": offset %+.4f -> %+.4f rad (%+.4f)\n", c.previous_offsets_rad(j),
                    c.offsets_rad(j), change);
  }
  *ctx.out << "written to " << c.path() << "; restart robot-edged to use it "
           << "(sudo systemctl restart robot-edged)\n";
  if (large) {
    *ctx.err << "warning: an offset changed by more than 0.5 rad: was the robot really in the "
             << ctx.options.pose << " pose?\n";
  }
  return kExitOk;
}

int RunZero(Context& ctx) {
  const std::uint32_t joint = JointIndex(ctx, ctx.options.joint);
  if (!ctx.options.confirm) {
    *ctx.err << "zero writes " << ctx.options.joint
             << "'s own encoder zero into its motor's firmware: every offset measured for it "
                "before becomes wrong. Run it again with --confirm.\n";
    return kExitUsage;
  }
  edge::MaintenanceRequest request;
  request.mutable_zero()->set_joint(joint);
  request.mutable_zero()->set_confirm(true);
  const auto result = Ask(ctx, request, ctx.timeout());
  if (!result) return kExitFailed;
  if (!ctx.options.json) *ctx.out << ctx.options.joint << ": " << result->zero().note() << "\n";
  return kExitOk;
}

}  // namespace robot_edge::edgectl
