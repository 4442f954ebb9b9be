// robot-edged's command line, declared once (cli/spec.hpp): its parser, --help (and so its man
// page) and its bash completion come from this Spec.
#include "daemon/options.hpp"

#include <set>

#include "cli/cli.hpp"

namespace robot_edge::daemon {

namespace {

constexpr const char* kDescription =
    R"(The edge control daemon of the robot: drives the joint motors over SocketCAN and serves the
command / telemetry API. Runs in the foreground (robot-edge.service).
)";

constexpr const char* kEpilogue = R"(Exit status:
  0  stopped by SIGTERM, SIGINT or SIGHUP (every motor in DAMP first); --check-config: the
     configuration is valid; --emergency-damp: every frame went out
  1  invalid configuration, cannot start (a bus, the API socket), or stopped after a failure
     (systemd restarts it); --emergency-damp: a bus refused its frames, or the file does
     not validate (the frames still go out when it names its buses and motors)
  2  bad command line
  75 stopped to apply its configuration file, as asked by a client (the same shutdown as
     SIGTERM; the unit restarts it: RestartForceExitStatus=75)
)";

std::vector<cli::Option> Options(CommandLine* cl) {
  using cli::Flag;
  using cli::Valued;
  return {
      Valued("--config", "FILE", "YAML configuration (default /etc/robot-edge/robot-edge.yaml)",
             [cl](auto&, auto& v) { cl->config_path = v; })
          .Completes(cli::Files("*.yaml")),
      Valued("--api-socket", "PATH",
             "Unix socket of the API (default: api.unix_socket of the config)",
             [cl](auto&, auto& v) { cl->api_socket = v; })
          .Completes(cli::Files()),
      Valued(
          "--log-level", "LEVEL", "trace, debug, info (default), warn or error",
          [cl](auto& n, auto& v) {
            static const std::set<std::string> levels = {"trace", "debug", "info", "warn", "error"};
            if (!levels.contains(v)) {
              throw cli::UsageError(n + ": '" + v +
                                    "' is not one of trace, debug, info, warn, error");
            }
            cl->log_level = v;
          })
          .Completes(cli::Words("trace debug info warn error")),
      Flag("--check-config", "validate the configuration, print the result and exit (1 if invalid)",
           [cl](auto&, auto&) { cl->check_config = true; }),
      Flag("--emergency-damp",
           "send DAMP, then exit motor mode, to every configured motor and exit\n"
           "(0 when every frame went out); the unit's ExecStopPost, so that every\n"
           "way the daemon ends leaves the motors in DAMP",
           [cl](auto&, auto&) { cl->emergency_damp = true; }),
      Flag("--version", "print the version and exit", [cl](auto&, auto&) { cl->version = true; }),
      Flag("--help", "print this help and exit", [cl](auto&, auto&) { cl->help = true; }),
      Flag("-h", "", [cl](auto&, auto&) { cl->help = true; }).Hidden(),
  };
}

cli::Spec Spec(CommandLine* cl) {
  cli::Spec spec;
  spec.program = "robot-edged";
  spec.synopsis =
      "[--config FILE] [--api-socket PATH] [--log-level LEVEL] [--check-config]\n"
      "  or:  robot-edged --emergency-damp [--config FILE]";
  spec.description = kDescription;
  spec.options = {{"Options:", Options(cl)}};
  spec.epilogue = kEpilogue;
  spec.help_column = 21;
  spec.unknown = "unknown argument";
  return spec;
}

}  // namespace

std::optional<CommandLine> ParseCommandLine(const std::vector<std::string>& args,
                                            std::string* error) {
  CommandLine cl;
  try {
    cli::Parse(Spec(&cl), args);
  } catch (const cli::UsageError& e) {
    *error = e.what();
    return std::nullopt;
  }
  return cl;
}

std::string HelpText() { return cli::HelpOf(&Spec); }

std::string CompletionScript() { return cli::CompletionOf(&Spec); }

}  // namespace robot_edge::daemon
