// robot-edge-replay: a recorded run (the flight recorder's or the black box's MCAP file) served
// to the live view, driven again into a robot-edged, or compared with its replay. HelpText()
// below says how.
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "config/host_port.hpp"
#include "live/robot_document.hpp"
#include "live/web_root.hpp"
#include "tools/common/usage.hpp"
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

const char* HelpText() {
  return R"(Usage: robot-edge-replay serve|drive FILE [OPTIONS]
  or:  robot-edge-replay compare RECORDED REPLAYED [--json]

A run robot-edged recorded (an MCAP file of its flight recorder or black box,
docs/recording-and-live-view.md), looked at again, driven again, or compared with its replay.

Commands:
  serve FILE          play the file to the live view at its own pace: the dashboard at
                      http://ADDRESS/ and Foxglove at ws://ADDRESS (Open connection), as for
                      the live robot; starts 1 s after the first viewer connects
  drive FILE          send the file's commands to a running robot-edged (the simulator, to
                      reproduce a run), each at its recorded time after the first, each client
                      as the controller it was; record that run to compare it
  compare RECORDED REPLAYED
                      how closely the replayed run's motor commands (q_des, kp, kd: what the
                      CAN frames carried) match the recorded run's, aligned at each run's first
                      command

Options:
  --address HOST:PORT serve: where to listen (default 127.0.0.1:8765; port 0 = any)
  --token-file FILE   serve: viewers' token (required off loopback); drive: the controller's token
                      over TCP (default $ROBOT_EDGE_TOKEN)
  --speed X           serve: play X times as fast (default 1)
  --loop              serve: start again at the end
  --no-wait           serve: play at once, without waiting for a viewer
  --config FILE       serve: the robot's config, for a file without a robot description
  --web-root DIR      serve: the dashboard's files (default: the installed ones)
  --socket PATH       drive: robot-edged's Unix socket (default $ROBOT_EDGE_SOCKET, else
                      /run/robot-edge/api.sock)
  --tcp HOST:PORT     drive: robot-edged's TCP listener instead
  --real-robot        drive: also a robot-edged on real CAN buses (refused otherwise: the
                      commands are stamped as sent now and would move the robot)
  --json              compare: one JSON object
  -h, --help          print this text
  --version           print robot-edge-replay's version

Exit status:
  0  done
  1  the file could not be read, or robot-edged or the port could not be reached
  2  usage error

Examples:
  $ robot-edge-replay serve /var/lib/robot-edge/recordings/blackbox_20261126-061540.785_FALL_DETECTED.mcap
  $ robot-edge-replay drive run.mcap --socket /tmp/sim/api.sock
  $ robot-edge-replay compare run.mcap replayed.mcap
)";
}

struct Args {
  std::string command;
  std::vector<std::string> files;
  std::string address = "127.0.0.1:8765";
  std::string token_file, config, web_root, tcp;
  std::string socket;
  double speed = 1.0;
  bool loop = false, wait = true, json = false, help = false, version = false;
  bool real_robot = false;
};

using tools::UsageError;

Args Parse(const std::vector<std::string>& argv) {
  Args a;
  const char* env_socket = std::getenv("ROBOT_EDGE_SOCKET");
  a.socket = env_socket != nullptr ? env_socket : tools::kDefaultSocket;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& s = argv[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= argv.size()) throw UsageError(s + " needs a value");
      return argv[++i];
    };
    if (s == "-h" || s == "--help")
      a.help = true;
    else if (s == "--version")
      a.version = true;
    else if (s == "--address")
      a.address = value();
    else if (s == "--token-file")
      a.token_file = value();
    else if (s == "--config")
      a.config = value();
    else if (s == "--web-root")
      a.web_root = value();
    else if (s == "--socket")
      a.socket = value();
    else if (s == "--tcp")
      a.tcp = value();
    else if (s == "--token")
      tools::RefuseTokenOnCommandLine(s);
    else if (s == "--loop")
      a.loop = true;
    else if (s == "--real-robot")
      a.real_robot = true;
    else if (s == "--no-wait")
      a.wait = false;
    else if (s == "--json")
      a.json = true;
    else if (s == "--speed") {
      const std::string& v = value();
      char* end = nullptr;
      a.speed = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(a.speed > 0 && a.speed <= 100)) {
        throw UsageError("--speed: '" + v + "' is not a number in (0, 100]");
      }
    } else if (!s.empty() && s[0] == '-') {
      throw UsageError("unknown option " + s);
    } else if (a.command.empty()) {
      a.command = s;
    } else {
      a.files.push_back(s);
    }
  }
  if (a.help || a.version) return a;
  const std::size_t want = a.command == "compare" ? 2 : 1;
  if (a.command != "serve" && a.command != "drive" && a.command != "compare") {
    throw UsageError(a.command.empty() ? "a command is needed: serve, drive or compare"
                                       : "unknown command '" + a.command + "'");
  }
  if (a.files.size() != want) {
    throw UsageError(a.command + " takes " + (want == 2 ? "two files" : "one file"));
  }
  return a;
}

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
  Args args;
  try {
    args = Parse({argv + 1, argv + argc});
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
