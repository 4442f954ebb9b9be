// robot-edge-sim's command line, parsed without I/O:
//   robot-edge-sim --config FILE [--control PATH] [--physics kinematic|mujoco] [--model FILE]
//                  [--gantry HEIGHT_M] [--viewer] [--log-level trace|debug|info|warn|error]
//                  [--quiet] [--help] [--version]
// --physics, --model and --gantry override the config's sim.physics, sim.model and
// sim.gantry_height_m.
// Each option also accepts the --name=value form.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace robot_edge::sim {

struct CommandLine {
  std::string config_path;                // --config (required unless --help)
  std::string control_path;               // --control; "" = no control socket
  std::string log_level = "info";         // --log-level
  bool quiet = false;                     // --quiet: no status line every second
  bool viewer = false;                    // --viewer: start robot-edge-viewer on the control socket
  std::string physics;                    // --physics; "" = the config's
  std::string model_path;                 // --model; "" = the config's
  std::optional<double> gantry_height_m;  // --gantry; none = the config's
  bool help = false;                      // --help / -h
  bool version = false;                   // --version
};

// Exactly one of the two is set.
struct CommandLineResult {
  std::optional<CommandLine> command_line;
  std::string error;
};

// `args` excludes the program name.
CommandLineResult ParseCommandLine(std::span<const std::string_view> args);

// The --help text (and so the man page's source).
std::string HelpText();

// The bash completion script (`robot-edge-sim --bash-completion`).
std::string CompletionScript();

}  // namespace robot_edge::sim
