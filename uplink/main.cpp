// robot-edge-uplink [--config FILE]: the robot's fleet uplink on MQTT 5 (docs/fleet.md). Reads
// and checks its configuration before anything opens, then runs the loop (uplink.hpp) until
// SIGINT / SIGTERM (cli/stop_signals.hpp: no signal handler).
#include <csignal>
#include <iostream>
#include <variant>
#include <vector>

#include "cli/cli.hpp"
#include "cli/stop_signals.hpp"
#include "uplink/uplink.hpp"

namespace {

using namespace robot_edge::uplink;
namespace cli = robot_edge::cli;

struct CommandLine {
  std::string config = kDefaultConfigPath;  ///< --config FILE
  bool help = false;                        ///< -h, --help
  bool version = false;                     ///< --version
};

// The command line, declared once (cli/spec.hpp): parser, --help (the man page) and completion.
cli::Spec Spec(CommandLine* c) {
  cli::Spec spec;
  spec.program = "robot-edge-uplink";
  spec.synopsis = "[--config FILE]";
  spec.description =
      "The robot's fleet uplink: robot-edged's telemetry, events and diagnostics to an MQTT 5\n"
      "broker over mutual TLS, events spooled on disk while offline; commands from the fleet\n"
      "when enabled.\n";
  spec.options = {
      {"Options:",
       {cli::Valued("--config", "FILE",
                    "its configuration (default /etc/robot-edge/uplink.yaml; docs/fleet.md)",
                    [c](auto&, auto& v) { c->config = v; })
            .Completes(cli::Files("*.yaml")),
        cli::Flag("--help", "print this text", [c](auto&, auto&) { c->help = true; })
            .Short("-h")
            .First(),
        cli::Flag("--version", "print robot-edge-uplink's version", [c](auto&, auto&) {
          c->version = true;
        }).First()}}};
  spec.epilogue =
      "Exit status:\n"
      "  0  stopped by a signal (SIGTERM, SIGINT)\n"
      "  1  failed (robot-edged or the spool could not be used)\n"
      "  2  bad command line or configuration (the error names the key and its line)\n";
  spec.help_column = 18;
  spec.unknown = "unknown argument";
  return spec;
}

// The command line, or an exit status when main() should return it (--help, --version,
// --bash-completion, a bad command line).
std::variant<CommandLine, int> Parse(const std::vector<std::string>& args) {
  CommandLine c;
  const cli::Spec spec = Spec(&c);
  if (cli::WantsCompletion(args)) {
    std::cout << cli::BashCompletion(spec);
    return kExitOk;
  }
  try {
    cli::Parse(spec, args);
  } catch (const cli::UsageError& e) {
    std::cerr << "robot-edge-uplink: " << e.what() << "\n" << cli::Help(spec);
    return kExitUsage;
  }
  if (c.help) std::cout << cli::Help(spec);
  if (c.version) std::cout << "robot-edge-uplink " << ROBOT_EDGE_VERSION << "\n";
  if (c.help || c.version) return kExitOk;
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const auto parsed = Parse({argv + 1, argv + argc});
  if (const int* status = std::get_if<int>(&parsed)) return *status;
  const std::string& path = std::get<CommandLine>(parsed).config;
  UplinkOptions options;
  try {
    options = LoadUplinkConfig(path);
    CheckFiles(options);
  } catch (const UplinkConfigError& e) {
    std::cerr << "robot-edge-uplink: " << e.what() << "\n";
    return kExitUsage;
  }
  // A spool segment past a file size limit (the unit's LimitFSIZE): the write fails with EFBIG
  // and the record is held in memory, where SIGXFSZ's default would end the uplink.
  std::signal(SIGXFSZ, SIG_IGN);
  const cli::StopSignals signals;  // before any other thread starts
  return RunUplink(options, signals.stop());
}
