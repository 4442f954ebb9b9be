// The read-only subcommands: status, watch, events, diag.
#include <chrono>
#include <stdexcept>

#include "client/joint_targets.hpp"
#include "tools/edgectl/format.hpp"
#include "tools/edgectl/session.hpp"

namespace robot_edge::edgectl {

namespace {

using Clock = std::chrono::steady_clock;

// Loops wait in slices this long so that Ctrl-C is noticed promptly.
constexpr client::Millis kSlice{100};

std::vector<std::size_t> ResolveJoints(const std::vector<std::string>& wanted,
                                       const std::vector<std::string>& names) {
  std::vector<std::size_t> indices;
  for (const std::string& name : wanted) {
    const std::size_t j = client::FindJoint(names, name);
    if (j == names.size()) throw std::invalid_argument("--joints: unknown joint '" + name + "'");
    indices.push_back(j);
  }
  return indices;
}

// Reads messages until Ctrl-C or `count` of them satisfied `print` (0 = no limit). Says so once
// on err when nothing arrives for the timeout. Returns the exit status.
template <typename Print>
int Follow(Context& ctx, const char* what, Print print) {
  std::uint64_t printed = 0;
  Clock::time_point last = Clock::now();
  bool stalled = false;
  while (!ctx.interrupted() && (ctx.options.count == 0 || printed < ctx.options.count)) {
    auto message = ctx.client->Read(kSlice);
    if (message && print(*message)) {
      ++printed;
      last = Clock::now();
      stalled = false;
    } else if (!stalled && Clock::now() - last > ctx.timeout()) {
      *ctx.err << "robot-edgectl: no " << what << " for " << ctx.timeout().count()
               << " ms; still waiting\n";
      stalled = true;
    }
  }
  return kExitOk;
}

}  // namespace

int RunStatus(Context& ctx) {
  const auto telemetry = ctx.client->ReadUntil(edge::ServerMessage::kTelemetry, ctx.timeout());
  if (!telemetry) {
    *ctx.err << "robot-edgectl: no telemetry from robot-edged within " << ctx.timeout().count()
             << " ms\n";
    return kExitFailed;
  }
  if (ctx.options.json) {
    *ctx.out << "{\"welcome\":" << ToJson(ctx.welcome)
             << ",\"telemetry\":" << ToJson(telemetry->telemetry())
             << ",\"telemetry_extension\":" << ToJson(telemetry->telemetry_extension()) << "}\n";
  } else {
    *ctx.out << FormatStatus(ctx.welcome, telemetry->telemetry(), telemetry->telemetry_extension());
  }
  return kExitOk;
}

int RunWatch(Context& ctx) {
  const std::vector<std::string> names = ctx.joint_names();
  const std::vector<std::size_t> shown = ResolveJoints(ctx.options.joints, names);
  return Follow(ctx, "telemetry", [&](const edge::ServerMessage& m) {
    if (!m.has_telemetry()) return false;
    *ctx.out << (ctx.options.json
                     ? ToJson(m)
                     : FormatTelemetryLine(m.telemetry(), m.telemetry_extension(), names, shown))
             << std::endl;
    return true;
  });
}

int RunEvents(Context& ctx) {
  return Follow(ctx, "event", [&](const edge::ServerMessage& m) {
    if (!m.has_event()) return false;
    *ctx.out << (ctx.options.json ? ToJson(m) : FormatEvent(m.event(), m.diagnostics_extension()))
             << std::endl;
    return true;
  });
}

int RunDiag(Context& ctx) {
  const Clock::time_point deadline = Clock::now() + ctx.timeout();
  while (!ctx.interrupted() && Clock::now() < deadline) {
    const auto m = ctx.client->ReadUntil(
        edge::ServerMessage::kEvent,
        std::min(kSlice, std::chrono::ceil<client::Millis>(deadline - Clock::now())));
    if (!m || !m->event().has_diagnostics()) continue;
    *ctx.out << (ctx.options.json ? ToJson(*m) + "\n"
                                  : FormatDiagnostics(m->event(), m->diagnostics_extension()));
    return kExitOk;
  }
  *ctx.err << "robot-edgectl: no diagnostics from robot-edged within " << ctx.timeout().count()
           << " ms\n";
  return kExitFailed;
}

}  // namespace robot_edge::edgectl
