#include "tools/edgectl/options.hpp"

#include "client/commands.hpp"

namespace robot_edge::edgectl {

namespace {

using S = Subcommand;

struct SubcommandName {
  const char* name;
  Subcommand subcommand;
};
constexpr SubcommandName kSubcommands[] = {
    {"status", S::kStatus},
    {"stand", S::kStand},
    {"damp", S::kDamp},
    {"walk", S::kWalk},
    {"hold", S::kHold},
    {"move", S::kMove},
    {"sine", S::kSine},
    {"watch", S::kWatch},
    {"events", S::kEvents},
    {"diag", S::kDiag},
    {"scan", S::kScan},
    {"jog", S::kJog},
    {"check-direction", S::kCheckDirection},
    {"calibrate", S::kCalibrate},
    {"zero", S::kZero},
    {"clear-fault", S::kClearFault},
    {"release-stop", S::kReleaseStop},
    {"record", S::kRecord},
    {"blackbox", S::kBlackBox},
};

void ExpectArguments(const std::vector<std::string>& positional, std::size_t count,
                     const char* usage) {
  if (positional.size() != count) {
    throw UsageError(std::string("usage: robot-edgectl ") + usage);
  }
}

// Positional arguments and the checks that depend on the subcommand.
void FinishSubcommand(const std::vector<std::string>& positional, Options* o) {
  switch (o->subcommand) {
    case S::kWalk: {
      ExpectArguments(positional, 3, "walk VX VY VYAW  (m/s, m/s, rad/s)");
      o->vx = static_cast<float>(cli::ParseNumber("walk VX", positional[0], "m/s"));
      o->vy = static_cast<float>(cli::ParseNumber("walk VY", positional[1], "m/s"));
      o->vyaw = static_cast<float>(cli::ParseNumber("walk VYAW", positional[2], "rad/s"));
      const std::string problem = client::CheckVelocity(o->vx, o->vy, o->vyaw);
      if (!problem.empty()) throw UsageError("walk: " + problem);
      if (o->duration_s < 0) throw UsageError("--duration must be >= 0 (0 = until Ctrl-C)");
      return;
    }
    case S::kMove:
      if (positional.empty()) throw UsageError("usage: robot-edgectl move JOINT=RAD ...");
      o->targets = positional;
      break;
    case S::kJog:
      ExpectArguments(positional, 2, "jog JOINT TARGET_RAD [--speed RAD_S] [--duration S]");
      o->joint = positional[0];
      o->target_rad = static_cast<float>(cli::ParseNumber("jog TARGET_RAD", positional[1], "rad"));
      if (!(o->speed_rad_s > 0) || o->speed_rad_s > 1)
        throw UsageError("--speed must be 0..1 rad/s");
      if (!(o->duration_s > 0)) throw UsageError("--duration must be > 0 seconds");
      return;
    case S::kCheckDirection:
      ExpectArguments(positional, 1,
                      "check-direction JOINT [--model FILE.xml] [--amount RAD] [--speed RAD_S]");
      o->joint = positional[0];
      if (!o->model.empty() && !o->amount_given) o->amount_rad = 0.5;
      if (!(o->amount_rad > 0) || o->amount_rad > 0.8)
        throw UsageError("--amount must be 0..0.8 rad");
      if (!(o->speed_rad_s > 0) || o->speed_rad_s > 1)
        throw UsageError("--speed must be 0..1 rad/s");
      return;
    case S::kSine:
      ExpectArguments(positional, 1,
                      "sine JOINT [--amplitude RAD] [--frequency HZ] [--duration S] [--rate HZ]");
      o->joint = positional[0];
      if (!(o->amplitude_rad > 0) || o->amplitude_rad > 0.5)
        throw UsageError("--amplitude must be 0..0.5 rad");
      if (!(o->frequency_hz > 0) || o->frequency_hz > 5)
        throw UsageError("--frequency must be 0..5 Hz");
      if (!(o->kp >= 0) || o->kp > client::kKpMax) throw UsageError("--kp must be 0..500");
      if (!(o->kd >= 0) || o->kd > client::kKdMax) throw UsageError("--kd must be 0..5");
      if (!(o->duration_s > 0)) throw UsageError("--duration must be > 0 seconds");
      if (o->rate_hz < 10 || o->rate_hz > 1000) throw UsageError("--rate must be 10..1000 Hz");
      return;
    case S::kZero:
      ExpectArguments(positional, 1, "zero JOINT --confirm");
      o->joint = positional[0];
      return;
    case S::kClearFault:
      ExpectArguments(positional, 1, "clear-fault JOINT");
      o->joint = positional[0];
      return;
    case S::kRecord:
      ExpectArguments(positional, 1, "record start|stop|status");
      o->action = positional[0];
      if (o->action != "start" && o->action != "stop" && o->action != "status") {
        throw UsageError("usage: robot-edgectl record start|stop|status");
      }
      return;
    case S::kBlackBox:
      ExpectArguments(positional, 1, "blackbox list|save [--reason TEXT]");
      o->action = positional[0];
      if (o->action != "list" && o->action != "save") {
        throw UsageError("usage: robot-edgectl blackbox list|save [--reason TEXT]");
      }
      return;
    case S::kCalibrate:
      ExpectArguments(positional, 0, "calibrate [--pose zero|stand]");
      if (o->pose != "zero" && o->pose != "stand") throw UsageError("--pose must be zero or stand");
      return;
    default: ExpectArguments(positional, 0, ToString(o->subcommand)); break;
  }
  if (o->subcommand == S::kMove || o->subcommand == S::kHold) {
    if (!(o->duration_s > 0)) throw UsageError("--duration must be > 0 seconds");
    if (o->hold_s < 0) throw UsageError("--hold must be >= 0 seconds");
    // Below 10 Hz the 200 ms trajectory timeout would DAMP the robot between packets.
    if (o->rate_hz < 10 || o->rate_hz > 500) throw UsageError("--rate must be 10..500 Hz");
    if (!(o->max_speed_rad_s > 0)) throw UsageError("--max-speed must be > 0 rad/s");
  }
}

}  // namespace

const char* ToString(Subcommand subcommand) {
  for (const SubcommandName& s : kSubcommands) {
    if (s.subcommand == subcommand) return s.name;
  }
  return "?";
}

bool Commands(Subcommand s) {
  return s == S::kStand || s == S::kDamp || s == S::kWalk || s == S::kHold || s == S::kMove ||
         s == S::kSine;
}

bool Maintains(Subcommand s) {
  return s == S::kScan || s == S::kJog || s == S::kCheckDirection || s == S::kCalibrate ||
         s == S::kZero || s == S::kClearFault || s == S::kReleaseStop;
}

// --tls-* speak of a TLS connection: to a TCP address, trusting a CA.
void CheckTlsOptions(const Options& o) {
  const bool any =
      !o.tls_ca.empty() || !o.tls_name.empty() || !o.tls_cert.empty() || !o.tls_key.empty();
  if (any && o.tcp_host.empty()) throw UsageError("--tls-* options need --tcp HOST:PORT");
  if (any && o.tls_ca.empty()) {
    throw UsageError("--tls-name, --tls-cert and --tls-key need --tls-ca FILE (the daemon's CA)");
  }
  if (o.tls_cert.empty() != o.tls_key.empty()) {
    throw UsageError("--tls-cert and --tls-key go together");
  }
}

Options ParseCommandLine(std::span<const std::string> args, const Environment& env) {
  Options o;
  if (!env.socket.empty()) o.socket = env.socket;
  o.token = env.token;
  const cli::Parsed parsed = cli::Parse(CommandLine(&o), args);
  if (parsed.first) return o;
  if (!(o.timeout_s > 0)) throw UsageError("--timeout must be > 0 seconds");
  CheckTlsOptions(o);
  FinishSubcommand(parsed.arguments, &o);
  return o;
}

edge::Hello MakeHello(const Options& o) {
  edge::Hello hello;
  // damp is an observer unless told otherwise: DAMP is accepted from everyone, and an
  // emergency stop must neither depend on nor take over the control of "cloud".
  const bool commanding = Commands(o.subcommand) && o.subcommand != S::kDamp;
  // Starting or stopping a recording, saving the black box: a controller's (not control).
  const bool records = (o.subcommand == S::kRecord && o.action != "status") ||
                       (o.subcommand == S::kBlackBox && o.action == "save");
  const char* role = Maintains(o.subcommand) || records ? "maintainer" : commanding ? "cloud" : "";
  hello.set_controller(o.controller ? *o.controller : role);
  hello.set_token(o.token);
  hello.set_want_command_results(Commands(o.subcommand) || Maintains(o.subcommand));
  hello.set_no_telemetry(o.subcommand == S::kEvents || o.subcommand == S::kDiag ||
                         o.subcommand == S::kStand || o.subcommand == S::kDamp ||
                         o.subcommand == S::kWalk || o.subcommand == S::kRecord ||
                         o.subcommand == S::kBlackBox);
  hello.set_resume_after_event(o.resume_after);
  return hello;
}

}  // namespace robot_edge::edgectl
