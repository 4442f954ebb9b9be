// robot-edgectl check-direction JOINT: does the joint's motor follow its commands, and — with
// --model, the robot hanging from a gantry — does it turn the joint the way the config says?
// The gravity judgement is tools/edgectl/direction_check.hpp's; here the robot is posed and
// measured through robot-edged: limp (DAMP), then the joint held at pivot + amount and at
// pivot - amount (a jog: a fifth of its gains, every other joint limp; clamped to its limits),
// each time once the robot is still.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <deque>
#include <memory>
#include <stdexcept>

#include "sim/holding_model.hpp"
#include "tools/edgectl/bringup_steps.hpp"
#include "tools/edgectl/direction_check.hpp"
#include "tools/edgectl/format.hpp"

namespace robot_edge::edgectl {
namespace {

// Still: kStillFrames telemetry frames in a row (0.4 s at 10 Hz) with every joint slower than
// kStillRadS and moved less than kStillStepRad since the frame before.
constexpr std::size_t kStillFrames = 4;
constexpr double kStillRadS = 0.05;
constexpr double kStillStepRad = 0.01;
constexpr auto kSettleLimit = std::chrono::seconds(15);

std::string Fmt(const char* format, double a, double b = 0) {
  char text[160];
  std::snprintf(text, sizeof(text), format, a, b);
  return text;
}

struct Frame {
  std::vector<double> q, dq, tau;
  std::array<double, 4> imu{1, 0, 0, 0};
};

Frame FrameOf(const edge::ServerMessage& m) {
  const edge::EdgeTelemetry& t = m.telemetry();
  Frame f;
  f.q.assign(t.joint_pos().begin(), t.joint_pos().end());
  f.dq.assign(t.joint_vel().begin(), t.joint_vel().end());
  f.tau.assign(m.telemetry_extension().joint_torque().begin(),
               m.telemetry_extension().joint_torque().end());
  for (int i = 0; i < 4 && i < t.imu_quat_size(); ++i)
    f.imu[static_cast<std::size_t>(i)] = t.imu_quat(i);
  return f;
}

bool Still(const std::deque<Frame>& window) {
  if (window.size() < kStillFrames) return false;
  for (std::size_t k = 0; k < window.size(); ++k) {
    for (std::size_t j = 0; j < window[k].q.size(); ++j) {
      if (std::fabs(window[k].dq[j]) >= kStillRadS) return false;
      if (k > 0 && std::fabs(window[k].q[j] - window[k - 1].q[j]) >= kStillStepRad) return false;
    }
  }
  return true;
}

RestSample Average(const std::deque<Frame>& window) {
  RestSample s;
  s.q.assign(window.front().q.size(), 0.0);
  s.tau.assign(window.front().tau.size(), 0.0);
  for (const Frame& f : window) {
    for (std::size_t j = 0; j < s.q.size(); ++j)
      s.q[j] += f.q[j] / static_cast<double>(window.size());
    for (std::size_t j = 0; j < s.tau.size(); ++j) {
      s.tau[j] += f.tau[j] / static_cast<double>(window.size());
    }
  }
  s.imu_wxyz = window.back().imu;
  return s;
}

// The robot still, with `joint` held at `target` (a jog renewed every kJogPeriod) or, without a
// target, limp. The jog ramps from `from` at --speed: the robot may look still (the joint at a
// stop) before its setpoint arrives, so stillness counts only once the ramp is over. nullopt
// after a refusal, Ctrl-C, a telemetry frame without torques, or kSettleLimit without rest (each
// said on err).
std::optional<RestSample> HoldStill(Context& ctx, std::uint32_t joint, std::optional<float> target,
                                    float from) {
  std::deque<Frame> window;
  const double ramp_s = target ? std::fabs(*target - from) / ctx.options.speed_rad_s : 0.0;
  const Clock::time_point ramped = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                      std::chrono::duration<double>(ramp_s + 0.2));
  const Clock::time_point end = ramped + kSettleLimit;
  Clock::time_point next_jog = Clock::now();
  std::uint32_t request_id = 0x40000000;  // apart from Ask()'s
  while (!ctx.interrupted() && Clock::now() < end) {
    if (target && Clock::now() >= next_jog) {
      edge::ClientMessage m;
      *m.mutable_maintenance() = JogRequest(joint, *target, ctx.options.speed_rad_s);
      m.mutable_maintenance()->set_request_id(++request_id);
      ctx.client->Send(m);
      next_jog += kJogPeriod;
    }
    const auto m = ctx.client->Read(kJogPeriod / 2);
    if (!m) continue;
    if (m->has_maintenance_result() && !m->maintenance_result().ok()) {
      *ctx.err << "refused: " << m->maintenance_result().error() << "\n";
      return std::nullopt;
    }
    if (!m->has_telemetry()) continue;
    Frame f = FrameOf(*m);
    if (f.tau.size() != f.q.size() || f.dq.size() != f.q.size()) {
      *ctx.err << "robot-edgectl: telemetry without one torque per joint: robot-edged too old?\n";
      return std::nullopt;
    }
    window.push_back(std::move(f));
    if (window.size() > kStillFrames) window.pop_front();
    if (Clock::now() >= ramped && Still(window)) return Average(window);
  }
  if (!ctx.interrupted()) {
    *ctx.err << "robot-edgectl: the robot did not come to rest within "
             << std::chrono::duration_cast<std::chrono::seconds>(kSettleLimit).count()
             << " s (swinging? touching something?)\n";
  }
  return std::nullopt;
}

// Without a model: the motor follows (its encoder moved with the command); the operator watches.
int FollowCheck(Context& ctx, std::uint32_t joint, float start) {
  const Options& o = ctx.options;
  const float step = static_cast<float>(o.amount_rad);
  float position = start;
  JogTo(ctx, joint, start + step, o.speed_rad_s, std::chrono::seconds(5), &position);
  const float moved = position - start;
  float back = position;
  JogTo(ctx, joint, start, o.speed_rad_s, std::chrono::seconds(5), &back);
  const int damped = Damp(ctx);
  if (ctx.interrupted()) return kExitFailed;
  const bool follows = moved > 0.5f * step;
  *ctx.out << o.joint << Fmt(": commanded %+.3f rad, its encoder moved %+.3f rad", step, moved);
  if (follows) {
    *ctx.out << ": the motor follows its commands. Now confirm by eye that the joint turned in its "
                "positive direction (docs/bring-up.md), or run again with --model "
                "ROBOT.xml while the robot hangs from a gantry; if it turned the other way, its "
                "`direction` is wrong: flip it in the config.\n";
  } else if (moved < -0.5f * step) {
    *ctx.out << ": the motor moved AGAINST its command: its firmware's direction setting and its "
                "encoder disagree.\n";
  } else {
    *ctx.out << ": the joint did not follow (at a stop? blocked? a silent motor?).\n";
  }
  return follows && damped == kExitOk ? kExitOk : kExitFailed;
}

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kAgrees: return "agrees";
    case Verdict::kReversed: return "reversed";
    case Verdict::kInconclusive: return "inconclusive";
  }
  return "?";
}

void Report(Context& ctx, const DirectionFinding& f, float a, float b) {
  const Options& o = ctx.options;
  if (o.json) {
    *ctx.out << "{\"joint\":\"" << o.joint << "\",\"verdict\":\"" << VerdictName(f.verdict)
             << "\",\"unexplained_as_configured_nm2\":" << f.as_configured.unexplained_nm2
             << ",\"unexplained_if_reversed_nm2\":" << f.if_reversed.unexplained_nm2
             << ",\"why\":\"" << f.why << "\"}\n";
    return;
  }
  *ctx.out << o.joint << Fmt(": limp, then held at %+.2f and %+.2f rad: ", a, b);
  switch (f.verdict) {
    case Verdict::kAgrees:
      *ctx.out << "its motor turns it the way the config says (" << f.why << ").\n";
      break;
    case Verdict::kReversed:
      *ctx.out << "REVERSED: its motor turns it the other way than the config says (" << f.why
               << "). Flip the joint's `direction` (+1 <-> -1) in the config, restart robot-edged "
                  "and calibrate again.\n";
      break;
    case Verdict::kInconclusive:
      *ctx.out << "cannot tell at this pose: " << f.why
               << ". Watch the joint move instead (robot-edgectl check-direction " << o.joint
               << " without --model), or pose the robot so that gravity loads it and run again.\n";
      break;
  }
}

int GravityCheck(Context& ctx, std::uint32_t joint, float start) {
  const Options& o = ctx.options;
  const std::vector<std::string> names = ctx.joint_names();
  const sim::HoldingModel model(o.model, names);  // before anything moves: a bad model stops here
  std::vector<RestSample> samples;
  // Either side of where the joint's offset was calibrated (there the believed and the true angle
  // agree whichever way the motor turns): a reversed motor then drives the joint to the mirror
  // of where it is told, often into a stop or against gravity.
  const auto step = static_cast<float>(o.amount_rad), pivot = static_cast<float>(o.pivot_rad);
  const float targets[] = {pivot + step, pivot - step};
  auto limp = HoldStill(ctx, joint, std::nullopt, start);
  if (!limp) return kExitFailed;
  samples.push_back(*limp);
  float held[2] = {start, start};
  for (int i = 0; i < 2; ++i) {
    const auto s = HoldStill(ctx, joint, targets[i], static_cast<float>(samples.back().q[joint]));
    if (!s) {
      Damp(ctx);
      return kExitFailed;
    }
    samples.push_back(*s);
    held[i] = static_cast<float>(s->q[joint]);
  }
  float back = start;
  JogTo(ctx, joint, start, o.speed_rad_s, std::chrono::seconds(5), &back);
  if (Damp(ctx) != kExitOk || ctx.interrupted()) return kExitFailed;
  const DirectionFinding f = JudgeDirection(model, samples, joint, o.pivot_rad);
  Report(ctx, f, held[0], held[1]);
  switch (f.verdict) {
    case Verdict::kAgrees: return kExitOk;
    case Verdict::kReversed: return kExitFailed;
    case Verdict::kInconclusive: return kExitInconclusive;
  }
  return kExitFailed;
}

}  // namespace

int RunCheckDirection(Context& ctx) {
  const std::uint32_t joint = JointIndex(ctx, ctx.options.joint);
  const auto start = MeasuredPosition(ctx, joint);
  if (!start) {
    *ctx.err << "robot-edgectl: no telemetry\n";
    return kExitFailed;
  }
  return ctx.options.model.empty() ? FollowCheck(ctx, joint, *start)
                                   : GravityCheck(ctx, joint, *start);
}

}  // namespace robot_edge::edgectl
