// robot-edgectl: command-line client of robot-edged's local API. See HelpText() (command_line.cpp).
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "tools/edgectl/options.hpp"
#include "tools/edgectl/session.hpp"

namespace {

// Set by SIGINT / SIGTERM; the subcommands poll it between waits of at most 100 ms.
volatile std::sig_atomic_t g_interrupted = 0;

void OnSignal(int) { g_interrupted = 1; }

// A second Ctrl-C kills the process the usual way (SA_RESETHAND). No SA_RESTART: poll() returns
// early and the loops look at the flag.
void InstallSignalHandlers() {
  struct sigaction action {};
  action.sa_handler = OnSignal;
  action.sa_flags = SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

std::string Getenv(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace robot_edge::edgectl;
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (robot_edge::cli::WantsCompletion(args)) {
    std::cout << CompletionScript();
    return kExitOk;
  }
  Options options;
  try {
    options = ParseCommandLine(args, {Getenv("ROBOT_EDGE_SOCKET"), Getenv("ROBOT_EDGE_TOKEN")});
  } catch (const UsageError& e) {
    std::cerr << "robot-edgectl: " << e.what() << "\nTry 'robot-edgectl --help'.\n";
    return kExitUsage;
  }
  if (options.help) {
    std::cout << HelpText();
    return kExitOk;
  }
  if (options.version) {
    std::cout << "robot-edgectl " << ROBOT_EDGE_VERSION << "\n";
    return kExitOk;
  }
  InstallSignalHandlers();
  return RunConnected(options, std::cout, std::cerr, [] { return g_interrupted != 0; });
}
