#include "config/host_port.hpp"

#include <charconv>

namespace robot_edge::config {

std::optional<HostPort> ParseHostPort(std::string_view text, bool allow_port_zero) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  std::string_view host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  unsigned value = 0;
  const char* first = text.data() + colon + 1;
  const char* last = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (first == last || ec != std::errc() || ptr != last || value > 65535 ||
      (value == 0 && !allow_port_zero)) {
    return std::nullopt;
  }
  return HostPort{std::string(host), static_cast<std::uint16_t>(value)};
}

}  // namespace robot_edge::config
