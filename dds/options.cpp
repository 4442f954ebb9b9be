#include "dds/options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <vector>

#include "dds/mapping.hpp"

namespace robot_edge::dds {

namespace {

constexpr std::uint32_t kDefaultRateHz = 500;

double ParseNumber(const std::string& option, const std::string& text, const char* unit) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
    throw UsageError(option + ": '" + text + "' is not a number of " + unit);
  }
  return value;
}

std::uint64_t ParseWhole(const std::string& option, const std::string& text, std::uint64_t min,
                         std::uint64_t max) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < min || value > max) {
    throw UsageError(option + ": '" + text + "' is not a whole number " + std::to_string(min) +
                     ".." + std::to_string(max));
  }
  return value;
}

void ParseTcp(const std::string& text, Options* o) {
  config::HostPort address = tools::ParseTcpOption(text);
  o->tcp_host = std::move(address.host);
  o->tcp_port = address.port;
}

// N, or an Adam model's name: lite (23), sp (29), pro (31).
std::size_t ParseMotors(const std::string& text) {
  if (text == "lite") return kAdamLiteMotors;
  if (text == "sp") return kAdamSpMotors;
  if (text == "pro") return kAdamProMotors;
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) {
    return ParseWhole("--motors", text, 1, 1000);
  }
  throw UsageError("--motors: '" + text + "' is neither a motor count nor lite, sp or pro");
}

// Exactly one source of security, or --insecure (help, version: nothing to check).
void CheckSecurityChoice(const Options& o, const Environment& env) {
  if (o.help || o.version) return;
  if (o.insecure && !o.security_dir.empty()) {
    throw UsageError("--insecure and --security contradict each other: give one");
  }
  if (!o.insecure && o.security_dir.empty() && env.cyclonedds_uri.empty()) {
    throw UsageError(
        "no DDS Security configured: give --security DIR, or a <Security> element in "
        "$CYCLONEDDS_URI (see docs/api.md, \"DDS bridge\"); --insecure runs without, loopback "
        "only");
  }
}

using Apply = std::function<void(Options*, const std::string& name, const std::string& value)>;

struct OptionSpec {
  const char* name;
  bool takes_value;
  Apply apply;
};

const std::vector<OptionSpec>& OptionTable() {
  // clang-format off
  static const std::vector<OptionSpec> table = {
      {"--help", false, [](Options* o, auto&, auto&) { o->help = true; }},
      {"-h", false, [](Options* o, auto&, auto&) { o->help = true; }},
      {"--version", false, [](Options* o, auto&, auto&) { o->version = true; }},
      {"--socket", true, [](Options* o, auto&, auto& v) { o->socket = v; }},
      {"--tcp", true, [](Options* o, auto&, auto& v) { ParseTcp(v, o); }},
      {"--token", true, [](Options*, auto& n, auto&) { tools::RefuseTokenOnCommandLine(n); }},
      {"--token-file", true,
       [](Options* o, auto& n, auto& v) { o->token = tools::ReadTokenFileOption(n, v); }},
      {"--controller", true, [](Options* o, auto&, auto& v) { o->controller = v; }},
      {"--timeout", true,
       [](Options* o, auto& n, auto& v) { o->timeout_s = ParseNumber(n, v, "seconds"); }},
      {"--domain", true,
       [](Options* o, auto& n, auto& v) {
         o->domain = static_cast<std::uint32_t>(ParseWhole(n, v, 0, 232));
       }},
      {"--rate", true,
       [](Options* o, auto& n, auto& v) {
         o->rate_hz = static_cast<std::uint32_t>(ParseWhole(n, v, 1, 100'000));
       }},
      {"--command-lifetime-ms", true,
       [](Options* o, auto& n, auto& v) {
         o->command_lifetime_us = static_cast<std::int64_t>(ParseWhole(n, v, 1, 1000)) * 1000;
       }},
      {"--velocity-safety-limit", true,
       [](Options* o, auto& n, auto& v) {
         const double limit = ParseNumber(n, v, "rad/s");
         if (limit < 0) throw UsageError(n + " must be >= 0 rad/s (0 = none)");
         o->velocity_safety_limit = static_cast<float>(limit);
       }},
      {"--motors", true, [](Options* o, auto&, auto& v) { o->motors = ParseMotors(v); }},
      {"--security", true,
       [](Options* o, auto& n, auto& v) {
         if (v.empty()) throw UsageError(n + " needs a directory");
         o->security_dir = v;
       }},
      {"--insecure", false, [](Options* o, auto&, auto&) { o->insecure = true; }},
  };
  // clang-format on
  return table;
}

const OptionSpec& FindOption(const std::string& name) {
  for (const OptionSpec& spec : OptionTable()) {
    if (name == spec.name) return spec;
  }
  throw UsageError("unknown option '" + name + "'");
}

}  // namespace

Options ParseCommandLine(std::span<const std::string> args, const Environment& env) {
  Options o;
  if (!env.socket.empty()) o.socket = env.socket;
  o.token = env.token;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') throw UsageError("unexpected argument '" + arg + "'");
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
    spec.apply(&o, name, value);
  }
  if (!(o.timeout_s > 0)) throw UsageError("--timeout must be > 0 seconds");
  if (o.controller.empty()) {
    throw UsageError("--controller must name a controller: an observer cannot command");
  }
  CheckSecurityChoice(o, env);
  return o;
}

RobotFit FitRobot(const Options& o, const edge::Welcome& welcome) {
  RobotFit fit;
  fit.joints = static_cast<std::size_t>(welcome.joint_names_size());
  if (o.motors && *o.motors != fit.joints) {
    throw UsageError("--motors " + std::to_string(*o.motors) + ": this robot has " +
                     std::to_string(fit.joints) + " joints (leave --motors out to use them all)");
  }
  bool known = false;
  std::string names;
  for (const std::string& c : welcome.controllers()) {
    known = known || c == o.controller;
    names += (names.empty() ? "" : ", ") + c;
  }
  if (!known) {
    throw UsageError("--controller '" + o.controller + "' is not one of robot-edged's " +
                     "api.controllers (" + names + ")");
  }
  const auto control_hz = static_cast<std::uint32_t>(std::lround(welcome.control_rate_hz()));
  if (control_hz == 0) {  // a daemon that does not say: ask, it grants at most its rate
    fit.rate_hz = o.rate_hz.value_or(kDefaultRateHz);
    return fit;
  }
  if (o.rate_hz && *o.rate_hz > control_hz) {
    throw UsageError("--rate " + std::to_string(*o.rate_hz) + " Hz is above robot-edged's " +
                     "control rate, " + std::to_string(control_hz) + " Hz");
  }
  fit.rate_hz = o.rate_hz ? *o.rate_hz : std::min(kDefaultRateHz, control_hz);
  return fit;
}

}  // namespace robot_edge::dds
