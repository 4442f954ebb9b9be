// robot-edgectl's command line (pure: parsing and help text, no I/O).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "edge_api.pb.h"
#include "tools/common/usage.hpp"

namespace robot_edge::edgectl {

// Exit statuses.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;        // refused, timeout, connection lost, interrupted move
inline constexpr int kExitUsage = 2;         // bad command line
inline constexpr int kExitNoDaemon = 3;      // cannot connect to robot-edged
inline constexpr int kExitInconclusive = 4;  // check-direction: the model cannot tell

using tools::kDefaultSocket;

enum class Subcommand {
  kStatus,
  kStand,
  kDamp,
  kWalk,
  kHold,
  kMove,
  kSine,
  kWatch,
  kEvents,
  kDiag,
  // Bring-up (bringup.cpp): controller "maintainer" by default.
  kScan,
  kJog,
  kCheckDirection,
  kCalibrate,
  kZero,
  kClearFault,
  kReleaseStop,
  // Recording (record.cpp): the status and the list for anyone, the rest for a controller.
  kRecord,
  kBlackBox,
};

const char* ToString(Subcommand subcommand);
// Subcommands that take control of the robot (controller "cloud" by default).
bool Commands(Subcommand subcommand);
// The bring-up subcommands (controller "maintainer" by default; api.maintenance_controllers).
bool Maintains(Subcommand subcommand);

// A command-line mistake; main() prints it and exits with kExitUsage.
using tools::UsageError;

// What the environment contributes (main() reads it; tests pass their own).
struct Environment {
  std::string socket;  ///< ROBOT_EDGE_SOCKET
  std::string token;   ///< ROBOT_EDGE_TOKEN
};

struct Options {
  Subcommand subcommand = Subcommand::kStatus;
  bool help = false;     ///< -h, --help, or the subcommand "help"
  bool version = false;  ///< --version

  // Connection.
  std::string socket = kDefaultSocket;  ///< --socket PATH, env ROBOT_EDGE_SOCKET
  std::string tcp_host;                 ///< --tcp HOST:PORT ("" = use the socket)
  std::uint16_t tcp_port = 0;
  std::string token;     ///< --token-file FILE, env ROBOT_EDGE_TOKEN
  std::string tls_ca;    ///< --tls-ca FILE: TLS with --tcp, the daemon's CA ("" = plaintext)
  std::string tls_name;  ///< --tls-name NAME: the name its certificate must carry (default: HOST)
  std::string tls_cert;  ///< --tls-cert FILE: client certificate (api.tls.client_ca)
  std::string tls_key;   ///< --tls-key FILE: its key
  std::optional<std::string> controller;  ///< --controller NAME ("" = observer); default per
                                          ///< subcommand (see MakeHello)
  bool json = false;                      ///< --json: protobuf messages as JSON lines
  double timeout_s = 2.0;                 ///< --timeout S: connect and each answer (s)

  // Subcommands.
  double duration_s = 0.0;           ///< --duration S: move 2, hold 2, walk 0 (= until Ctrl-C)
  double rate_hz = 50.0;             ///< --rate HZ: move / hold packets per second
  double hold_s = 0.0;               ///< --hold S: move keeps streaming the goal this long
  double max_speed_rad_s = 2.0;      ///< --max-speed RAD_S: move refuses faster ramps
  std::uint32_t resume_after = 0;    ///< --resume N: events after sequence N first
  std::uint64_t count = 0;           ///< --count N: watch / events stop after N; 0 = never
  std::vector<std::string> joints;   ///< --joints A,B: watch shows these positions
  float vx = 0, vy = 0, vyaw = 0;    ///< walk VX VY VYAW (m/s, m/s, rad/s)
  std::vector<std::string> targets;  ///< move JOINT=RAD ...
  double amplitude_rad = 0.1;        ///< --amplitude RAD: sine (0..0.5)
  double frequency_hz = 0.5;         ///< --frequency HZ: sine (0..5)
  double kp = 40.0;                  ///< --kp: sine's gains on every joint (0..500)
  double kd = 1.0;                   ///< --kd: (0..5)

  // Bring-up.
  std::string joint;         ///< jog / check-direction / zero / clear-fault JOINT
  float target_rad = 0;      ///< jog JOINT TARGET_RAD
  double speed_rad_s = 0.2;  ///< --speed RAD_S: jog and check-direction
  double amount_rad = 0.1;   ///< --amount RAD: check-direction's step (0.5 with --model)
  bool amount_given = false;
  std::string model;          ///< --model FILE.xml: check-direction judges by gravity
  double pivot_rad = 0.0;     ///< --calibrated-at RAD: the joint's angle when calibrated
  std::uint32_t max_id = 32;  ///< --max-id N: scan probes ids 1..N
  std::string pose = "zero";  ///< --pose zero|stand: calibrate
  bool confirm = false;       ///< --confirm: zero really writes the motor's zero

  // Recording.
  std::string action;               ///< record start|stop|status, blackbox list|save
  std::string reason = "operator";  ///< --reason TEXT: blackbox save
};

// Parses argv without argv[0]. Options may come before or after the subcommand; "--" ends
// options; "-0.5" is a number, not an option. Throws UsageError with a one-line reason.
Options ParseCommandLine(std::span<const std::string> args, const Environment& env);

// The Hello a subcommand sends: its controller ("cloud" for commanding subcommands except damp,
// observer "" otherwise, unless --controller), command results for commanding subcommands, no
// telemetry for events / diag, --resume.
edge::Hello MakeHello(const Options& options);

// The command line's Spec (command_line.cpp), its callbacks writing into *options: what
// ParseCommandLine() parses with, and what the help and the completion are made from.
cli::Spec CommandLine(Options* options);

// The full --help text.
std::string HelpText();

// The bash completion script (`robot-edgectl --bash-completion`): subcommands, the options of
// the subcommand on the line, and joint names from the configuration.
std::string CompletionScript();

}  // namespace robot_edge::edgectl
