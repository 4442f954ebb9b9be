#include "dds/options.hpp"

#include <algorithm>
#include <cmath>

namespace robot_edge::dds {

namespace {

constexpr std::uint32_t kDefaultRateHz = 500;

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

}  // namespace

Options ParseCommandLine(std::span<const std::string> args, const Environment& env) {
  Options o;
  if (!env.socket.empty()) o.socket = env.socket;
  o.token = env.token;
  cli::Parse(CommandLine(&o), args);
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
