// robot-edge-dds's command line, and the checks that need the daemon's Welcome (pure: no I/O).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "cli/cli.hpp"
#include "edge_api.pb.h"
#include "tools/common/usage.hpp"

namespace robot_edge::dds {

// Exit statuses.
inline constexpr int kExitOk = 0;        // stopped by SIGINT / SIGTERM
inline constexpr int kExitFailed = 1;    // robot-edged went away or refused us; DDS failed
inline constexpr int kExitUsage = 2;     // bad command line, or one the robot contradicts
inline constexpr int kExitNoDaemon = 3;  // cannot connect to robot-edged

using tools::kDefaultSocket;
// A command-line mistake (or one the robot's Welcome reveals); main() prints it, exits 2.
using tools::UsageError;

// What the environment contributes (main() reads it; tests pass their own).
struct Environment {
  std::string socket;          ///< ROBOT_EDGE_SOCKET
  std::string token;           ///< ROBOT_EDGE_TOKEN
  std::string cyclonedds_uri;  ///< CYCLONEDDS_URI: where security comes from without --security
};

struct Options {
  bool help = false;     ///< -h, --help
  bool version = false;  ///< --version

  // robot-edged.
  std::string socket = kDefaultSocket;  ///< --socket PATH, env ROBOT_EDGE_SOCKET
  std::string tcp_host;                 ///< --tcp HOST:PORT ("" = the socket)
  std::uint16_t tcp_port = 0;
  std::string token;               ///< --token-file FILE, env ROBOT_EDGE_TOKEN
  std::string controller = "dds";  ///< --controller NAME: one of the daemon's api.controllers
  double timeout_s = 2.0;          ///< --timeout S: connect and each answer

  // DDS.
  std::uint32_t domain = 0;  ///< --domain N: the DDS domain id, 0..232
  std::string security_dir;  ///< --security DIR: DDS Security's files (security.hpp); "" = none
                             ///< given (then $CYCLONEDDS_URI must configure it)
  bool insecure = false;     ///< --insecure: no DDS Security, loopback only (security.hpp)

  // The bridge.
  std::optional<std::uint32_t> rate_hz;       ///< --rate HZ: rt/lowstate; default 500 capped at the
                                              ///< control rate; given, it must not exceed it
  std::int64_t command_lifetime_us = 50'000;  ///< --command-lifetime-ms MS (1..1000)
  float velocity_safety_limit = 0;            ///< --velocity-safety-limit RAD_S (0 = none)
  std::optional<std::size_t> motors;          ///< --motors N|lite|sp|pro: must be the robot's count
};

// Parses argv without argv[0]. Throws UsageError with a one-line reason; also when DDS Security
// can come from nowhere (no --security, no --insecure, $CYCLONEDDS_URI unset).
Options ParseCommandLine(std::span<const std::string> args, const Environment& env);

// The command line's Spec (command_line.cpp), its callbacks writing into *options: what
// ParseCommandLine() parses with, and what the help and the completion are made from.
cli::Spec CommandLine(Options* options);

// The full --help text.
std::string HelpText();

// The bash completion script (`robot-edge-dds --bash-completion`).
std::string CompletionScript();

// What the options become once the daemon's Welcome is known: throws UsageError when the
// robot contradicts them (--motors, --controller, --rate).
struct RobotFit {
  std::size_t joints = 0;     // the robot's joint count (= motors on rt/lowcmd, rt/lowstate)
  std::uint32_t rate_hz = 0;  // rt/lowstate's rate to ask for
};
RobotFit FitRobot(const Options& options, const edge::Welcome& welcome);

}  // namespace robot_edge::dds
