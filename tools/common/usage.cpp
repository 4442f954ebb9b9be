#include "tools/common/usage.hpp"

#include <optional>

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

}  // namespace robot_edge::tools
