#include "tools/edgectl/options.hpp"

#include <charconv>
#include <cmath>
#include <functional>

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
    {"record", S::kRecord},
    {"blackbox", S::kBlackBox},
};

double ParseDouble(const std::string& option, const std::string& text, const char* unit) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
    throw UsageError(option + ": '" + text + "' is not a number" +
                     (unit[0] != '\0' ? std::string(" of ") + unit : std::string()));
  }
  return value;
}

std::uint64_t ParseCount(const std::string& option, const std::string& text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw UsageError(option + ": '" + text + "' is not a whole number >= 0");
  }
  return value;
}

void ParseTcp(const std::string& text, Options* o) {
  config::HostPort address = tools::ParseTcpOption(text);
  o->tcp_host = std::move(address.host);
  o->tcp_port = address.port;
}

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

using Apply = std::function<void(Options*, const std::string& option, const std::string& value)>;

struct OptionSpec {
  const char* name;
  bool takes_value;
  std::vector<Subcommand> only;  // empty: every subcommand
  Apply apply;
};

const std::vector<OptionSpec>& OptionTable() {
  // clang-format off
  static const std::vector<OptionSpec> table = {
      {"--help", false, {}, [](Options* o, auto&, auto&) { o->help = true; }},
      {"-h", false, {}, [](Options* o, auto&, auto&) { o->help = true; }},
      {"--version", false, {}, [](Options* o, auto&, auto&) { o->version = true; }},
      {"--socket", true, {}, [](Options* o, auto&, auto& v) { o->socket = v; }},
      {"--tcp", true, {}, [](Options* o, auto&, auto& v) { ParseTcp(v, o); }},
      {"--token", true, {}, [](Options*, auto& n, auto&) { tools::RefuseTokenOnCommandLine(n); }},
      {"--token-file", true, {},
       [](Options* o, auto& n, auto& v) { o->token = tools::ReadTokenFileOption(n, v); }},
      {"--tls-ca", true, {}, [](Options* o, auto&, auto& v) { o->tls_ca = v; }},
      {"--tls-name", true, {}, [](Options* o, auto&, auto& v) { o->tls_name = v; }},
      {"--tls-cert", true, {}, [](Options* o, auto&, auto& v) { o->tls_cert = v; }},
      {"--tls-key", true, {}, [](Options* o, auto&, auto& v) { o->tls_key = v; }},
      {"--controller", true, {}, [](Options* o, auto&, auto& v) { o->controller = v; }},
      {"--json", false, {}, [](Options* o, auto&, auto&) { o->json = true; }},
      {"--timeout", true, {},
       [](Options* o, auto& n, auto& v) { o->timeout_s = ParseDouble(n, v, "seconds"); }},
      {"--duration", true, {S::kMove, S::kHold, S::kWalk, S::kJog, S::kSine},
       [](Options* o, auto& n, auto& v) { o->duration_s = ParseDouble(n, v, "seconds"); }},
      {"--rate", true, {S::kMove, S::kHold, S::kSine},
       [](Options* o, auto& n, auto& v) { o->rate_hz = ParseDouble(n, v, "Hz"); }},
      {"--hold", true, {S::kMove},
       [](Options* o, auto& n, auto& v) { o->hold_s = ParseDouble(n, v, "seconds"); }},
      {"--max-speed", true, {S::kMove},
       [](Options* o, auto& n, auto& v) { o->max_speed_rad_s = ParseDouble(n, v, "rad/s"); }},
      {"--resume", true, {S::kEvents},
       [](Options* o, auto& n, auto& v) {
         const std::uint64_t value = ParseCount(n, v);
         if (value > UINT32_MAX) throw UsageError(n + ": event sequences are 32-bit");
         o->resume_after = static_cast<std::uint32_t>(value);
       }},
      {"--count", true, {S::kWatch, S::kEvents},
       [](Options* o, auto& n, auto& v) { o->count = ParseCount(n, v); }},
      {"--joints", true, {S::kWatch},
       [](Options* o, auto&, auto& v) { o->joints = SplitCommas(v); }},
      {"--speed", true, {S::kJog, S::kCheckDirection},
       [](Options* o, auto& n, auto& v) { o->speed_rad_s = ParseDouble(n, v, "rad/s"); }},
      {"--amount", true, {S::kCheckDirection},
       [](Options* o, auto& n, auto& v) {
         o->amount_rad = ParseDouble(n, v, "rad");
         o->amount_given = true;
       }},
      {"--model", true, {S::kCheckDirection}, [](Options* o, auto&, auto& v) { o->model = v; }},
      {"--calibrated-at", true, {S::kCheckDirection},
       [](Options* o, auto& n, auto& v) { o->pivot_rad = ParseDouble(n, v, "rad"); }},
      {"--max-id", true, {S::kScan},
       [](Options* o, auto& n, auto& v) {
         const std::uint64_t value = ParseCount(n, v);
         if (value < 1 || value > 255) throw UsageError(n + " must be 1..255");
         o->max_id = static_cast<std::uint32_t>(value);
       }},
      {"--pose", true, {S::kCalibrate}, [](Options* o, auto&, auto& v) { o->pose = v; }},
      {"--confirm", false, {S::kZero}, [](Options* o, auto&, auto&) { o->confirm = true; }},
      {"--reason", true, {S::kBlackBox}, [](Options* o, auto&, auto& v) { o->reason = v; }},
      {"--amplitude", true, {S::kSine},
       [](Options* o, auto& n, auto& v) { o->amplitude_rad = ParseDouble(n, v, "rad"); }},
      {"--frequency", true, {S::kSine},
       [](Options* o, auto& n, auto& v) { o->frequency_hz = ParseDouble(n, v, "Hz"); }},
      {"--kp", true, {S::kSine},
       [](Options* o, auto& n, auto& v) { o->kp = ParseDouble(n, v, "N·m/rad"); }},
      {"--kd", true, {S::kSine},
       [](Options* o, auto& n, auto& v) { o->kd = ParseDouble(n, v, "N·m·s/rad"); }},

  };
  // clang-format on
  return table;
}

struct PendingOption {
  const OptionSpec* spec;
  std::string name;
  std::string value;
};

// "-0.5", "-.5": a negative number (walk's arguments), not an option.
bool IsNumber(const std::string& arg) {
  return arg.size() >= 2 && arg[0] == '-' &&
         (std::isdigit(static_cast<unsigned char>(arg[1])) || arg[1] == '.');
}

const OptionSpec& FindOption(const std::string& name) {
  for (const OptionSpec& spec : OptionTable()) {
    if (name == spec.name) return spec;
  }
  throw UsageError("unknown option '" + name + "'");
}

void ApplyOptions(const std::vector<PendingOption>& pending, Options* o) {
  for (const PendingOption& p : pending) {
    bool allowed = p.spec->only.empty();
    for (Subcommand s : p.spec->only) allowed = allowed || s == o->subcommand;
    if (!allowed) {
      throw UsageError(p.name + " does not apply to '" + ToString(o->subcommand) + "'");
    }
    p.spec->apply(o, p.name, p.value);
  }
}

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
      o->vx = static_cast<float>(ParseDouble("walk VX", positional[0], "m/s"));
      o->vy = static_cast<float>(ParseDouble("walk VY", positional[1], "m/s"));
      o->vyaw = static_cast<float>(ParseDouble("walk VYAW", positional[2], "rad/s"));
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
      o->target_rad = static_cast<float>(ParseDouble("jog TARGET_RAD", positional[1], "rad"));
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
         s == S::kZero || s == S::kClearFault;
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
  std::vector<PendingOption> pending;
  std::vector<std::string> positional;
  bool options_ended = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_ended || arg.empty() || arg[0] != '-' || arg == "-" || IsNumber(arg)) {
      positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_ended = true;
      continue;
    }
    const std::size_t equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    const OptionSpec& spec = FindOption(name);
    std::string value;
    if (spec.takes_value && equals != std::string::npos) {
      value = arg.substr(equals + 1);
    } else if (spec.takes_value) {
      if (i + 1 >= args.size()) throw UsageError(name + " needs a value");
      value = args[++i];
    } else if (equals != std::string::npos) {
      throw UsageError(name + " takes no value");
    }
    pending.push_back({&spec, name, value});
  }
  if (!positional.empty() && positional.front() == "help") o.help = true;
  for (const PendingOption& p : pending) {
    if (p.spec->apply && (p.name == "--help" || p.name == "-h" || p.name == "--version")) {
      p.spec->apply(&o, p.name, p.value);
    }
  }
  if (o.help || o.version) return o;
  if (positional.empty()) throw UsageError("no command given");
  bool known = false;
  for (const SubcommandName& s : kSubcommands) {
    if (positional.front() == s.name) {
      o.subcommand = s.subcommand;
      known = true;
    }
  }
  if (!known) throw UsageError("unknown command '" + positional.front() + "'");
  positional.erase(positional.begin());
  if (o.subcommand == S::kMove || o.subcommand == S::kHold) o.duration_s = 2.0;
  if (o.subcommand == S::kJog) o.duration_s = 20.0;
  if (o.subcommand == S::kSine) {
    o.duration_s = 4.0;
    o.rate_hz = 200.0;
  }
  ApplyOptions(pending, &o);
  if (!(o.timeout_s > 0)) throw UsageError("--timeout must be > 0 seconds");
  CheckTlsOptions(o);
  FinishSubcommand(positional, &o);
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
