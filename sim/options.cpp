#include "sim/options.hpp"

#include <array>

namespace robot_edge::sim {

const char* const kUsage =
    "usage: robot-edge-sim --config FILE [--control PATH] "
    "[--log-level trace|debug|info|warn|error] [--quiet]\n"
    "  --config FILE     the robot-edge YAML config (buses, joints, motors, imu, sim)\n"
    "  --control PATH    Unix socket for fault injection (one command per line; try 'help')\n"
    "  --log-level LVL   stderr log level (default info)\n"
    "  --quiet           no status line every second\n";

namespace {

constexpr std::array<std::string_view, 5> kLogLevels = {"trace", "debug", "info", "warn", "error"};

// Splits "--name=value" into name and value; "--name" gives no value.
std::pair<std::string_view, std::optional<std::string_view>> SplitOption(std::string_view arg) {
  const std::size_t eq = arg.find('=');
  if (eq == std::string_view::npos || !arg.starts_with("--")) return {arg, std::nullopt};
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

}  // namespace

CommandLineResult ParseCommandLine(std::span<const std::string_view> args) {
  CommandLine c;
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto [name, inline_value] = SplitOption(args[i]);
    if (name == "--help" || name == "-h") {
      c.help = true;
      continue;
    }
    if (name == "--quiet") {
      c.quiet = true;
      continue;
    }
    std::string* target = name == "--config"      ? &c.config_path
                          : name == "--control"   ? &c.control_path
                          : name == "--log-level" ? &c.log_level
                                                  : nullptr;
    if (target == nullptr) return {std::nullopt, "unknown option '" + std::string(args[i]) + "'"};
    if (inline_value) {
      *target = std::string(*inline_value);
    } else if (i + 1 < args.size()) {
      *target = std::string(args[++i]);
    } else {
      return {std::nullopt, std::string(name) + " needs a value"};
    }
    if (target->empty()) return {std::nullopt, std::string(name) + " needs a value"};
  }
  if (c.help) return {c, {}};
  if (c.config_path.empty()) return {std::nullopt, "--config FILE is required"};
  bool known_level = false;
  for (std::string_view level : kLogLevels) known_level |= c.log_level == level;
  if (!known_level) {
    return {std::nullopt, "--log-level '" + c.log_level + "' is not trace|debug|info|warn|error"};
  }
  return {c, {}};
}

}  // namespace robot_edge::sim
