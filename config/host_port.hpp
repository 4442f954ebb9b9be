// "host:port" as the config, robot-edgectl, robot-edge-replay and robot-edge-dds take an address
// (api.tcp, live.address, --tcp, --address). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace robot_edge::config {

struct HostPort {
  std::string host;  // as written; an IPv6 address without its brackets
  std::uint16_t port = 0;
};

// "host:port", or "[v6 address]:port". The port is 1..65535, or 0..65535 with `allow_port_zero`
// (a listener's "any free port"). nullopt when `text` is not that.
std::optional<HostPort> ParseHostPort(std::string_view text, bool allow_port_zero = false);

}  // namespace robot_edge::config
