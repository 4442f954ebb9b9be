#include "tools/common/usage.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "access/tokens.hpp"

namespace robot_edge::tools {

config::HostPort ParseTcpOption(const std::string& text) {
  std::optional<config::HostPort> address = config::ParseHostPort(text);
  if (!address) {
    throw UsageError(
        "--tcp: expected HOST:PORT with a port 1..65535 (e.g. 192.168.1.20:7000 or "
        "[::1]:7000), got '" +
        text + "'");
  }
  return std::move(*address);
}

void RefuseTokenOnCommandLine(const std::string& option) {
  throw UsageError(option +
                   " is refused: a command line is visible to every user of this machine "
                   "(/proc). Give the token in a file readable only by you (--token-file FILE) "
                   "or in $ROBOT_EDGE_TOKEN");
}

std::string ReadTokenFileOption(const std::string& option, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(option + ": cannot read " + path + ": " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  const std::string token = access::TrimmedToken(text.str());
  if (token.empty()) throw UsageError(option + ": " + path + " holds no token");
  return token;
}

cli::Option SocketOption(std::string* socket) {
  return cli::Valued("--socket", "PATH",
                     "robot-edged's Unix socket (default $ROBOT_EDGE_SOCKET, else\n"
                     "/run/robot-edge/api.sock)",
                     [socket](auto&, auto& v) { *socket = v; })
      .Completes(cli::Files());
}

cli::Option TcpOption(std::string* host, std::uint16_t* port) {
  return cli::Valued("--tcp", "HOST:PORT",
                     "connect over TCP instead (the daemon's api.tcp); IPv6 as [ADDR]:PORT",
                     [host, port](auto&, auto& v) {
                       config::HostPort address = ParseTcpOption(v);
                       *host = std::move(address.host);
                       *port = address.port;
                     });
}

cli::Option RefusedTokenOption() {
  return cli::Valued("--token", "TOKEN", "", [](auto& n, auto&) { RefuseTokenOnCommandLine(n); })
      .Hidden();
}

cli::Option TimeoutOption(double* seconds) {
  return cli::Valued("--timeout", "S", "connect and answer timeout in seconds (default 2)",
                     [seconds](auto& n, auto& v) { *seconds = cli::ParseNumber(n, v, "seconds"); });
}

}  // namespace robot_edge::tools
