// What the command-line programs (robot-edgectl, robot-edge-replay, robot-edge-dds) share on
// their command lines: the default socket, the error a bad command line throws, --tcp, and how a
// token is given (--token-file or $ROBOT_EDGE_TOKEN, never --token).
#pragma once

#include <string>

#include "cli/spec.hpp"
#include "cli/usage.hpp"
#include "config/host_port.hpp"

namespace robot_edge::tools {

// robot-edged's Unix socket when neither --socket nor $ROBOT_EDGE_SOCKET says otherwise (the
// default config's api.unix_socket).
inline constexpr const char* kDefaultSocket = "/run/robot-edge/api.sock";

// A command-line mistake; main() prints it and exits with the program's usage status (2).
using cli::UsageError;

// --tcp's value: HOST:PORT, IPv6 as [addr]:PORT, the port 1..65535. Throws UsageError saying so.
config::HostPort ParseTcpOption(const std::string& text);

// A controller's token never goes on a command line: every user of the machine reads those in
// /proc/PID/cmdline. Throws UsageError naming `option` and the two ways that are not seen:
// --token-file FILE and $ROBOT_EDGE_TOKEN.
[[noreturn]] void RefuseTokenOnCommandLine(const std::string& option);

// --token-file's value: the token in the file at `path`, trailing whitespace dropped. Throws
// UsageError naming `option` and the file when it cannot be read or holds no token.
std::string ReadTokenFileOption(const std::string& option, const std::string& path);

// The options every client of robot-edged's API declares alike (cli/spec.hpp), with their help:
// --socket PATH, --tcp HOST:PORT (ParseTcpOption), --token (hidden, refused:
// RefuseTokenOnCommandLine) and --timeout S (> 0 is the program's check).
cli::Option SocketOption(std::string* socket);
cli::Option TcpOption(std::string* host, std::uint16_t* port);
cli::Option RefusedTokenOption();
cli::Option TimeoutOption(double* seconds);

}  // namespace robot_edge::tools
