#include "daemon/options.hpp"

#include <set>

namespace robot_edge::daemon {

const char* const kUsage =
    "Usage: robot-edged [--config FILE] [--api-socket PATH] [--log-level LEVEL] [--check-config]\n"
    "  or:  robot-edged --emergency-damp [--config FILE]\n"
    "\n"
    "The edge control daemon of the robot: drives the joint motors over SocketCAN and serves the\n"
    "command / telemetry API. Runs in the foreground (robot-edge.service).\n"
    "\n"
    "Options:\n"
    "  --config FILE      YAML configuration (default /etc/robot-edge/robot-edge.yaml)\n"
    "  --api-socket PATH  Unix socket of the API (default: api.unix_socket of the config)\n"
    "  --log-level LEVEL  trace, debug, info (default), warn or error\n"
    "  --check-config     validate the configuration, print the result and exit (1 if invalid)\n"
    "  --emergency-damp   send DAMP, then exit motor mode, to every configured motor and exit\n"
    "                     (0 when every frame went out); the unit's ExecStopPost, so that every\n"
    "                     way the daemon ends leaves the motors in DAMP\n"
    "  --version          print the version and exit\n"
    "  --help             print this help and exit\n"
    "\n"
    "Exit status:\n"
    "  0  stopped by SIGTERM, SIGINT or SIGHUP (every motor in DAMP first); --check-config: the\n"
    "     configuration is valid; --emergency-damp: every frame went out\n"
    "  1  invalid configuration, cannot start (a bus, the API socket), or stopped after a failure\n"
    "     (systemd restarts it); --emergency-damp: a bus refused its frames, or the file does\n"
    "     not validate (the frames still go out when it names its buses and motors)\n"
    "  2  bad command line\n"
    "  75 stopped to apply its configuration file, as asked by a client (the same shutdown as\n"
    "     SIGTERM; the unit restarts it: RestartForceExitStatus=75)\n";

std::optional<CommandLine> ParseCommandLine(const std::vector<std::string>& args,
                                            std::string* error) {
  static const std::set<std::string> levels = {"trace", "debug", "info", "warn", "error"};
  CommandLine cl;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto value = [&](const char* name) -> std::optional<std::string> {
      if (i + 1 >= args.size()) {
        *error = std::string(name) + " needs a value";
        return std::nullopt;
      }
      return args[++i];
    };
    if (a == "--config") {
      const auto v = value("--config");
      if (!v) return std::nullopt;
      cl.config_path = *v;
    } else if (a == "--api-socket") {
      const auto v = value("--api-socket");
      if (!v) return std::nullopt;
      cl.api_socket = *v;
    } else if (a == "--log-level") {
      const auto v = value("--log-level");
      if (!v) return std::nullopt;
      if (!levels.contains(*v)) {
        *error = "--log-level: '" + *v + "' is not one of trace, debug, info, warn, error";
        return std::nullopt;
      }
      cl.log_level = *v;
    } else if (a == "--check-config") {
      cl.check_config = true;
    } else if (a == "--emergency-damp") {
      cl.emergency_damp = true;
    } else if (a == "--help" || a == "-h") {
      cl.help = true;
    } else if (a == "--version") {
      cl.version = true;
    } else {
      *error = "unknown argument '" + a + "'";
      return std::nullopt;
    }
  }
  return cl;
}

}  // namespace robot_edge::daemon
