// robot-edge-live's command line, declared once (cli/spec.hpp): its parser, --help (and so its
// man page) and its bash completion.
#pragma once

#include <string>
#include <vector>

namespace robot_edge::live {

struct CommandLine {
  std::string config = "/etc/robot-edge/robot-edge.yaml";  ///< --config FILE
  std::string api_socket;           ///< --api-socket PATH (overrides api.unix_socket)
  std::string address;              ///< --address HOST:PORT (overrides live.address)
  std::string web_root;             ///< --web-root DIR (overrides live.web_root)
  std::string operator_token_file;  ///< --operator-token-file FILE
  bool help = false;                ///< -h, --help
  bool version = false;             ///< --version
};

// Parses argv without argv[0]. Throws cli::UsageError with a one-line reason.
CommandLine ParseCommandLine(const std::vector<std::string>& args);

// The --help text.
std::string HelpText();

// The bash completion script (`robot-edge-live --bash-completion`).
std::string CompletionScript();

}  // namespace robot_edge::live
