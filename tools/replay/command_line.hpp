// robot-edge-replay's command line, declared once (cli/spec.hpp): its parser, --help (and so its
// man page) and its bash completion.
#pragma once

#include <string>
#include <vector>

namespace robot_edge::replay {

struct Args {
  std::string command;                     ///< serve, drive or compare
  std::vector<std::string> files;          ///< serve, drive: FILE; compare: RECORDED REPLAYED
  std::string address = "127.0.0.1:8765";  ///< --address HOST:PORT (serve)
  std::string token_file, config, web_root, tcp;
  std::string socket;  ///< --socket PATH, env ROBOT_EDGE_SOCKET
  double speed = 1.0;  ///< --speed X (serve), (0, 100]
  bool loop = false, wait = true, json = false, help = false, version = false;
  bool real_robot = false;  ///< --real-robot (drive)
};

// Parses argv without argv[0]; `env_socket` is $ROBOT_EDGE_SOCKET (nullptr: unset). Throws
// cli::UsageError with a one-line reason.
Args Parse(const std::vector<std::string>& argv, const char* env_socket);

// The --help text.
std::string HelpText();

// The bash completion script (`robot-edge-replay --bash-completion`).
std::string CompletionScript();

}  // namespace robot_edge::replay
