// robot-edge-uplink [--config FILE]: the robot's fleet uplink on MQTT 5 (docs/fleet.md). Reads
// and checks its configuration before anything opens, then runs the loop (uplink.hpp) until
// SIGINT / SIGTERM, taken by sigtimedwait on a thread of its own (no signal handler).
#include <signal.h>

#include <iostream>
#include <thread>
#include <vector>

#include "uplink/uplink.hpp"

namespace {

using namespace robot_edge::uplink;

constexpr const char* kHelp =
    "Usage: robot-edge-uplink [--config FILE]\n"
    "\n"
    "The robot's fleet uplink: robot-edged's telemetry, events and diagnostics to an MQTT 5\n"
    "broker over mutual TLS, events spooled on disk while offline; commands from the fleet\n"
    "when enabled.\n"
    "\n"
    "Options:\n"
    "  --config FILE   its configuration (default /etc/robot-edge/uplink.yaml; docs/fleet.md)\n"
    "  -h, --help      print this text\n"
    "  --version       print robot-edge-uplink's version\n"
    "\n"
    "Exit status:\n"
    "  0  stopped by a signal (SIGTERM, SIGINT)\n"
    "  1  failed (robot-edged or the spool could not be used)\n"
    "  2  bad command line or configuration (the error names the key and its line)\n";

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  std::string path = kDefaultConfigPath;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-h" || args[i] == "--help") {
      std::cout << kHelp;
      return kExitOk;
    }
    if (args[i] == "--version") {
      std::cout << "robot-edge-uplink " << ROBOT_EDGE_VERSION << "\n";
      return kExitOk;
    }
    if (args[i] == "--config" && i + 1 < args.size()) {
      path = args[++i];
      continue;
    }
    std::cerr << "robot-edge-uplink: unknown argument '" << args[i] << "'\n" << kHelp;
    return kExitUsage;
  }
  UplinkOptions options;
  try {
    options = LoadUplinkConfig(path);
    CheckFiles(options);
  } catch (const UplinkConfigError& e) {
    std::cerr << "robot-edge-uplink: " << e.what() << "\n";
    return kExitUsage;
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // every thread started later inherits it
  std::atomic<bool> stop{false};
  std::thread waiter([&] {
    const timespec poll{0, 100'000'000};
    while (!stop) {
      if (sigtimedwait(&signals, nullptr, &poll) > 0) stop = true;
    }
  });
  const int status = RunUplink(options, stop);
  stop = true;
  waiter.join();
  return status;
}
