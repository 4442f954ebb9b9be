// RunConnected: connection, Hello, dispatch, and the mapping of failures to exit statuses.
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "tools/edgectl/session.hpp"

namespace robot_edge::edgectl {

namespace {

client::Client Connect(const Options& o, client::Millis timeout) {
  if (!o.tcp_host.empty() && !o.tls_ca.empty()) {
    const client::TlsOptions tls{o.tls_ca, o.tls_name, o.tls_cert, o.tls_key};
    return client::Client::ConnectTcp(o.tcp_host, o.tcp_port, timeout, tls);
  }
  if (!o.tcp_host.empty()) return client::Client::ConnectTcp(o.tcp_host, o.tcp_port, timeout);
  return client::Client::ConnectUnix(o.socket, timeout);
}

int Dispatch(Context& ctx) {
  switch (ctx.options.subcommand) {
    case Subcommand::kStatus: return RunStatus(ctx);
    case Subcommand::kStand: return RunMode(ctx, edge::MODE_STAND);
    case Subcommand::kDamp: return RunMode(ctx, edge::MODE_DAMP);
    case Subcommand::kWalk: return RunWalk(ctx);
    case Subcommand::kHold: return RunHold(ctx);
    case Subcommand::kMove: return RunMove(ctx);
    case Subcommand::kSine: return RunSine(ctx);
    case Subcommand::kWatch: return RunWatch(ctx);
    case Subcommand::kEvents: return RunEvents(ctx);
    case Subcommand::kDiag: return RunDiag(ctx);
    case Subcommand::kScan: return RunScan(ctx);
    case Subcommand::kJog: return RunJog(ctx);
    case Subcommand::kCheckDirection: return RunCheckDirection(ctx);
    case Subcommand::kCalibrate: return RunCalibrate(ctx);
    case Subcommand::kZero: return RunZero(ctx);
    case Subcommand::kClearFault: return RunClearFault(ctx);
    case Subcommand::kReleaseStop: return RunReleaseStop(ctx);
    case Subcommand::kRecord: return RunRecord(ctx);
    case Subcommand::kBlackBox: return RunBlackBox(ctx);
  }
  return kExitUsage;
}

}  // namespace

client::Millis Context::timeout() const {
  return client::Millis(static_cast<long long>(std::ceil(options.timeout_s * 1000.0)));
}

std::vector<std::string> Context::joint_names() const {
  return {welcome.joint_names().begin(), welcome.joint_names().end()};
}

int RunConnected(const Options& options, std::ostream& out, std::ostream& err,
                 std::function<bool()> interrupted) {
  Context ctx;
  ctx.options = options;
  ctx.out = &out;
  ctx.err = &err;
  ctx.interrupted = std::move(interrupted);
  ctx.wall_clock_us = client::WallClockMicros;
  try {
    client::Client client = Connect(options, ctx.timeout());
    ctx.client = &client;
    ctx.welcome = client.Hello(MakeHello(options), ctx.timeout());
    return Dispatch(ctx);
  } catch (const client::ClientError& e) {
    err << "robot-edgectl: " << e.what() << "\n";
    return e.kind() == client::ErrorKind::kConnect ? kExitNoDaemon : kExitFailed;
  } catch (const std::invalid_argument& e) {
    err << "robot-edgectl: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace robot_edge::edgectl
