#include "tools/edgectl/bringup_steps.hpp"

#include <cmath>
#include <stdexcept>
#include <thread>

#include "client/commands.hpp"
#include "tools/edgectl/format.hpp"

namespace robot_edge::edgectl {

std::uint32_t JointIndex(const Context& ctx, const std::string& name) {
  const auto names = ctx.joint_names();
  for (std::size_t j = 0; j < names.size(); ++j) {
    if (names[j] == name) return static_cast<std::uint32_t>(j);
  }
  throw std::invalid_argument("unknown joint '" + name + "'");
}

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

}  // namespace robot_edge::edgectl
