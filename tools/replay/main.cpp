// robot-edge-replay: a recorded run (the flight recorder's or the black box's MCAP file) served
// to the live view, driven again into a robot-edged, or compared with its replay. HelpText()
// (command_line.cpp) says how.
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "config/config.hpp"
#include "config/host_port.hpp"
#include "live/robot_document.hpp"
#include "live/web_root.hpp"
#include "tools/common/usage.hpp"
#include "tools/replay/command_line.hpp"
#include "tools/replay/compare.hpp"
#include "tools/replay/drive.hpp"
#include "tools/replay/serve.hpp"

namespace robot_edge::replay {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }

using tools::UsageError;

// "host:port" -> host, port (IPv6 as [addr]:port; port 0: any free port, for serve).
void SplitAddress(const std::string& text, std::string* host, std::uint16_t* port) {
  const std::optional<config::HostPort> address = config::ParseHostPort(text, true);
  if (!address) throw UsageError("'" + text + "' is not HOST:PORT");
  *host = address->host == "localhost" ? "127.0.0.1" : address->host;
  *port = address->port;
}

// --token-file's token, else $ROBOT_EDGE_TOKEN's (drive), else none.
std::string Token(const Args& a, bool from_environment) {
  if (!a.token_file.empty()) return tools::ReadTokenFileOption("--token-file", a.token_file);
  const char* env = from_environment ? std::getenv("ROBOT_EDGE_TOKEN") : nullptr;
  return env != nullptr ? env : "";
}

int RunServe(const Args& a) {
  const Recording recording = LoadRecording(a.files[0]);
  ServeOptions o;
  SplitAddress(a.address, &o.live.address, &o.live.port);
  o.live.token = Token(a, /*from_environment=*/false);
  o.live.web_root = a.web_root.empty() ? live::DefaultWebRoot() : a.web_root;
  o.live.name = "robot-edge-replay";
  o.speed = a.speed;
  o.loop = a.loop;
  o.wait_for_viewer = a.wait;
  if (!a.config.empty()) o.robot_document = live::RobotDocument(config::LoadConfig(a.config));
  Serve(recording, o, std::cout, g_stop);
  return kExitOk;
}

int RunDrive(const Args& a) {
  const Recording recording = LoadRecording(a.files[0]);
  DriveOptions o;
  o.socket = a.socket;
  o.token = Token(a, /*from_environment=*/true);
  o.real_robot = a.real_robot;
  if (!a.tcp.empty()) SplitAddress(a.tcp, &o.tcp_host, &o.tcp_port);
  const DriveReport r = Drive(recording, o, std::cout, g_stop);
  std::cout << "replay: " << r.commands << " commands from " << r.clients << " clients over "
            << r.seconds << " s, each sent at most " << r.max_late_ms << " ms after its time"
            << (g_stop ? " (interrupted)" : "") << "\nreplay: " << r.accepted
            << " accepted (recorded: " << r.recorded_accepted << "), " << r.answered_otherwise
            << " answered otherwise than in the recording, " << r.unanswered << " unanswered"
            << std::endl;
  return g_stop ? kExitFailed : kExitOk;
}

// A file cut short (a power loss, or copied while it was written) is compared as far as it is
// whole, with a warning: its last seconds are missing.
Recording LoadForComparison(const std::string& path) {
  Recording r = LoadRecording(path);
  if (!r.complete) {
    std::cerr << "robot-edge-replay: warning: " << path << " is cut short (" << r.problem
              << "): only what is whole is compared" << std::endl;
  }
  return r;
}

int RunCompare(const Args& a) {
  const Comparison c = Compare(LoadForComparison(a.files[0]), LoadForComparison(a.files[1]));
  std::cout << (a.json ? ComparisonJson(c) + "\n" : FormatComparison(c));
  return kExitOk;
}

}  // namespace
}  // namespace robot_edge::replay

int main(int argc, char** argv) {
  using namespace robot_edge::replay;
  const std::vector<std::string> words(argv + 1, argv + argc);
  if (robot_edge::cli::WantsCompletion(words)) {
    std::cout << CompletionScript();
    return kExitOk;
  }
  Args args;
  try {
    args = Parse(words, std::getenv("ROBOT_EDGE_SOCKET"));
  } catch (const UsageError& e) {
    std::cerr << "robot-edge-replay: " << e.what() << "\nTry 'robot-edge-replay --help'.\n";
    return kExitUsage;
  }
  if (args.help) {
    std::cout << HelpText();
    return kExitOk;
  }
  if (args.version) {
    std::cout << "robot-edge-replay " << ROBOT_EDGE_VERSION << "\n";
    return kExitOk;
  }
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  try {
    if (args.command == "serve") return RunServe(args);
    if (args.command == "drive") return RunDrive(args);
    return RunCompare(args);
  } catch (const UsageError& e) {
    std::cerr << "robot-edge-replay: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "robot-edge-replay: " << e.what() << "\n";
    return kExitFailed;
  }
}
