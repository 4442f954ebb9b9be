// robot-edged's command line.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace robot_edge::daemon {

struct CommandLine {
  std::string config_path = "/etc/robot-edge/robot-edge.yaml";  ///< --config FILE
  std::string api_socket;          ///< --api-socket PATH (overrides api.unix_socket)
  std::string log_level = "info";  ///< --log-level trace|debug|info|warn|error
  bool check_config = false;       ///< --check-config: validate and exit
  bool emergency_damp = false;     ///< --emergency-damp: DAMP + exit motor mode to every motor
  bool help = false;               ///< --help
  bool version = false;            ///< --version
};

// Parses argv (without argv[0]). On a usage error returns nullopt and sets *error.
std::optional<CommandLine> ParseCommandLine(const std::vector<std::string>& args,
                                            std::string* error);

// The --help text (and so the man page's source).
std::string HelpText();

// The bash completion script (`robot-edged --bash-completion`).
std::string CompletionScript();

}  // namespace robot_edge::daemon
