// robot-edge-sim's command line, declared once (cli/spec.hpp): its parser, --help (and so its
// man page) and its bash completion come from this Spec.
#include "sim/options.hpp"

#include <array>
#include <charconv>
#include <vector>

#include "cli/cli.hpp"

namespace robot_edge::sim {

namespace {

constexpr std::array<std::string_view, 5> kLogLevels = {"trace", "debug", "info", "warn", "error"};

constexpr const char* kDescription =
    R"(The simulated robot behind the CAN buses: answers robot-edged's frames as the config's motors
and IMU would, on the config's (virtual) CAN interfaces. Options also take --name=value.
)";

constexpr const char* kEpilogue = R"(Exit status:
  0  stopped by SIGINT or SIGTERM
  1  any other failure while running
  2  bad command line, config, CAN interface, control socket or MuJoCo model
)";

// An option whose value must not be empty, stored in *field.
cli::Apply Text(std::string* field) {
  return [field](auto& n, auto& v) {
    if (v.empty()) throw cli::UsageError(n + " needs a value");
    *field = v;
  };
}

double ParseGantry(const std::string& text) {
  double height = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), height);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !(height >= 0) ||
      height > 10) {
    throw cli::UsageError("--gantry '" + text + "' is not a height in metres (0..10)");
  }
  return height;
}

std::vector<cli::Option> Options(CommandLine* c) {
  using cli::Flag;
  using cli::Valued;
  return {
      Valued("--config", "FILE", "the robot-edge YAML config (buses, joints, motors, imu, sim)",
             Text(&c->config_path))
          .Completes(cli::Files("*.yaml")),
      Valued("--control", "PATH",
             "Unix socket for fault injection (one command per line; try 'help')",
             Text(&c->control_path))
          .Completes(cli::Files()),
      Valued("--physics", "NAME",
             "kinematic (independent joints, nothing falls) or mujoco (the whole\n"
             "robot with gravity and contacts); default: the config's sim.physics",
             Text(&c->physics))
          .Completes(cli::Words("kinematic mujoco")),
      Valued("--model", "FILE",
             "mujoco: an MJCF model whose actuators (or joints) are named like the\n"
             "config's joints; default: sim.model, else the built-in humanoid",
             Text(&c->model_path))
          .Completes(cli::Files("*.xml")),
      Valued("--gantry", "HEIGHT_M",
             "mujoco: start hanging with the base this high (0 = on the floor)",
             [c](auto& n, auto& v) {
               if (v.empty()) throw cli::UsageError(n + " needs a value");
               c->gantry_height_m = ParseGantry(v);
             }),
      Flag("--viewer",
           "mujoco: open a window on the robot (robot-edge-viewer; needs a display\n"
           "and --control); closing it leaves the simulation running",
           [c](auto&, auto&) { c->viewer = true; }),
      Valued("--log-level", "LVL", "stderr log level (default info)", Text(&c->log_level))
          .Completes(cli::Words("trace debug info warn error")),
      Flag("--quiet", "no status line every second", [c](auto&, auto&) { c->quiet = true; }),
      Flag("--help", "print this help and exit", [c](auto&, auto&) { c->help = true; })
          .Short("-h")
          .First(),
      Flag("--version", "print the version and exit", [c](auto&, auto&) { c->version = true; })
          .First(),
  };
}

cli::Spec Spec(CommandLine* c) {
  cli::Spec spec;
  spec.program = "robot-edge-sim";
  spec.synopsis = "--config FILE [OPTIONS]\n  or:  robot-edge-sim --help | --version";
  spec.description = kDescription;
  spec.options = {{"Options:", Options(c)}};
  spec.epilogue = kEpilogue;
  spec.help_column = 20;
  return spec;
}

// The checks across options (help, version: nothing to check).
void Check(const CommandLine& c) {
  if (!c.physics.empty() && c.physics != "kinematic" && c.physics != "mujoco") {
    throw cli::UsageError("--physics '" + c.physics + "' is not kinematic or mujoco");
  }
  if (c.config_path.empty()) throw cli::UsageError("--config FILE is required");
  if (c.viewer && c.control_path.empty()) {
    throw cli::UsageError("--viewer needs --control PATH (the viewer reads the state there)");
  }
  bool known_level = false;
  for (std::string_view level : kLogLevels) known_level |= c.log_level == level;
  if (!known_level) {
    throw cli::UsageError("--log-level '" + c.log_level + "' is not trace|debug|info|warn|error");
  }
}

}  // namespace

CommandLineResult ParseCommandLine(std::span<const std::string_view> args) {
  CommandLine c;
  try {
    const std::vector<std::string> words(args.begin(), args.end());
    if (!cli::Parse(Spec(&c), words).first) Check(c);
  } catch (const cli::UsageError& e) {
    return {std::nullopt, e.what()};
  }
  return {c, {}};
}

std::string HelpText() { return cli::HelpOf(&Spec); }

std::string CompletionScript() { return cli::CompletionOf(&Spec); }

}  // namespace robot_edge::sim
