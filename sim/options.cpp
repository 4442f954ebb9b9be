#include "sim/options.hpp"

#include <array>
#include <charconv>

namespace robot_edge::sim {

const char* const kUsage =
    "Usage: robot-edge-sim --config FILE [OPTIONS]\n"
    "  or:  robot-edge-sim --help | --version\n"
    "\n"
    "The simulated robot behind the CAN buses: answers robot-edged's frames as the config's "
    "motors\n"
    "and IMU would, on the config's (virtual) CAN interfaces. Options also take --name=value.\n"
    "\n"
    "Options:\n"
    "  --config FILE     the robot-edge YAML config (buses, joints, motors, imu, sim)\n"
    "  --control PATH    Unix socket for fault injection (one command per line; try 'help')\n"
    "  --physics NAME    kinematic (independent joints, nothing falls) or mujoco (the whole\n"
    "                    robot with gravity and contacts); default: the config's sim.physics\n"
    "  --model FILE      mujoco: an MJCF model whose actuators (or joints) are named like the\n"
    "                    config's joints; default: sim.model, else the built-in humanoid\n"
    "  --gantry HEIGHT_M\n"
    "                    mujoco: start hanging with the base this high (0 = on the floor)\n"
    "  --viewer          mujoco: open a window on the robot (robot-edge-viewer; needs a display\n"
    "                    and --control); closing it leaves the simulation running\n"
    "  --log-level LVL   stderr log level (default info)\n"
    "  --quiet           no status line every second\n"
    "  -h, --help        print this help and exit\n"
    "  --version         print the version and exit\n"
    "\n"
    "Exit status:\n"
    "  0  stopped by SIGINT or SIGTERM\n"
    "  1  any other failure while running\n"
    "  2  bad command line, config, CAN interface, control socket or MuJoCo model\n";

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
    if (name == "--version") {
      c.version = true;
      continue;
    }
    if (name == "--quiet") {
      c.quiet = true;
      continue;
    }
    if (name == "--viewer") {
      c.viewer = true;
      continue;
    }
    std::string gantry;
    std::string* target = name == "--config"      ? &c.config_path
                          : name == "--control"   ? &c.control_path
                          : name == "--log-level" ? &c.log_level
                          : name == "--physics"   ? &c.physics
                          : name == "--model"     ? &c.model_path
                          : name == "--gantry"    ? &gantry
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
    if (target == &gantry) {
      double height = 0;
      const auto [ptr, ec] = std::from_chars(gantry.data(), gantry.data() + gantry.size(), height);
      if (ec != std::errc() || ptr != gantry.data() + gantry.size() || !(height >= 0) ||
          height > 10) {
        return {std::nullopt, "--gantry '" + gantry + "' is not a height in metres (0..10)"};
      }
      c.gantry_height_m = height;
    }
  }
  if (!c.physics.empty() && c.physics != "kinematic" && c.physics != "mujoco") {
    return {std::nullopt, "--physics '" + c.physics + "' is not kinematic or mujoco"};
  }
  if (c.help || c.version) return {c, {}};
  if (c.config_path.empty()) return {std::nullopt, "--config FILE is required"};
  if (c.viewer && c.control_path.empty()) {
    return {std::nullopt, "--viewer needs --control PATH (the viewer reads the state there)"};
  }
  bool known_level = false;
  for (std::string_view level : kLogLevels) known_level |= c.log_level == level;
  if (!known_level) {
    return {std::nullopt, "--log-level '" + c.log_level + "' is not trace|debug|info|warn|error"};
  }
  return {c, {}};
}

}  // namespace robot_edge::sim
