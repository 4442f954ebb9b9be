#include "tools/common/usage.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

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
  std::string token = text.str();
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) {
    token.pop_back();
  }
  if (token.empty()) throw UsageError(option + ": " + path + " holds no token");
  return token;
}

}  // namespace robot_edge::tools
