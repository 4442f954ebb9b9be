// robot-edgectl's bring-up subcommands (edge_api.proto MaintenanceRequest): scan, jog,
// calibrate, zero, clear-fault, release-stop (check-direction: check_direction.cpp). Each runs
// through robot-edged (one process owns the buses), in DAMP only, as a controller of
// api.maintenance_controllers ("maintainer" by default).
// docs/bring-up.md.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include "client/commands.hpp"
#include "tools/edgectl/bringup_steps.hpp"
#include "tools/edgectl/format.hpp"

namespace robot_edge::edgectl {
namespace {

constexpr client::Millis kScanTimeout{6000};

std::string Fmt(const char* format, double a, double b = 0, double c = 0) {
  char text[160];
  std::snprintf(text, sizeof(text), format, a, b, c);
  return text;
}

}  // namespace

// A stray motor answering at a missing joint's bus and id: that joint's motor, of another family
// than the config says (or null).
const edge::StrayMotor* StrayAt(const edge::ScanResult& scan, const edge::ScannedMotor& m) {
  for (const edge::StrayMotor& s : scan.strays()) {
    if (s.bus() == m.bus() && s.motor_id() == m.can_id() && s.family() != m.family()) return &s;
  }
  return nullptr;
}

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
      if (const edge::StrayMotor* s = StrayAt(scan, m)) {
        *ctx.out << "MISSING as " << m.family() << ", but " << s->family()
                 << "-shaped replies come from its id: its motor is " << s->family()
                 << ", the config says " << m.family() << " (motors.<name>.family)\n";
      } else {
        *ctx.out << "MISSING: no reply\n";
      }
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
    const bool explained =
        std::any_of(scan.motors().begin(), scan.motors().end(),
                    [&](const auto& m) { return !m.answers() && StrayAt(scan, m) == &s; });
    if (!ctx.options.json && !explained) {
      *ctx.out << "UNEXPECTED        bus " << s.bus() << "  id " << s.motor_id() << "  "
               << s.family() << "-shaped replies (" << s.frames() << "): a motor no joint names\n";
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
  const bool arrived = JogTo(
      ctx, joint, o.target_rad, o.speed_rad_s,
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.duration_s)),
      &position);
  const int damped = Damp(ctx);
  if (!o.json) {
    *ctx.out << o.joint << Fmt(" at %+.3f rad (target %+.3f): ", position, o.target_rad)
             << (arrived             ? "arrived"
                 : ctx.interrupted() ? "interrupted"
                                     : "not arrived")
             << "; DAMP\n";
  }
  return arrived && damped == kExitOk ? kExitOk : kExitFailed;
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

int RunClearFault(Context& ctx) {
  edge::MaintenanceRequest request;
  request.mutable_clear_fault()->set_joint(JointIndex(ctx, ctx.options.joint));
  const auto result = Ask(ctx, request, ctx.timeout());
  if (!result) return kExitFailed;
  if (!ctx.options.json)
    *ctx.out << ctx.options.joint << ": " << result->clear_fault().note() << "\n";
  return kExitOk;
}

int RunReleaseStop(Context& ctx) {
  edge::MaintenanceRequest request;
  request.mutable_release_stop();
  if (!Ask(ctx, request, ctx.timeout())) return kExitFailed;
  if (!ctx.options.json) *ctx.out << "the latched stop is released; the robot stays in DAMP\n";
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
