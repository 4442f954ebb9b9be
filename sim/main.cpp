// robot-edge-sim: the simulated robot on the other side of the CAN buses. See simulator.hpp for
// what it does and control_protocol.hpp for the fault-injection commands.
// Exit codes: 0 after SIGINT/SIGTERM, 2 on a bad command line, config, interface or control path,
// 1 on any other failure.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <spawn.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "config/config.hpp"
#include "sim/mujoco_plant.hpp"
#include "sim/options.hpp"
#include "sim/simulator.hpp"

namespace {

using robot_edge::sim::CommandLine;

void SetUpLogging(const CommandLine& c) {
  auto logger = spdlog::stderr_color_mt("sim");
  logger->set_pattern("%Y-%m-%d %H:%M:%S.%e %^%l%$ robot-edge-sim: %v");
  logger->set_level(spdlog::level::from_str(c.log_level));
  spdlog::set_default_logger(logger);
}

// robot-edge-viewer beside this program (installed together), else in the build tree.
std::string FindViewer() {
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  const std::filesystem::path dir = self.parent_path();
  for (const auto& candidate :
       {dir / "robot-edge-viewer", dir / ".." / "tools" / "render" / "robot-edge-viewer"}) {
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.lexically_normal().string();
  }
  throw std::runtime_error("--viewer: no robot-edge-viewer beside " + self.string());
}

// Starts the viewer on the control socket; its exit (window closed, no display) leaves the
// simulation running, and it exits by itself when the simulator goes.
void StartViewer(const std::string& viewer, const std::string& control, const std::string& model) {
  std::signal(SIGCHLD, SIG_IGN);  // reaped by the kernel: no zombie when it exits first
  std::vector<std::string> args = {viewer, "--control", control, "--model", model};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (const int e = ::posix_spawn(&pid, viewer.c_str(), nullptr, nullptr, argv.data(), environ);
      e != 0) {
    spdlog::warn("--viewer: cannot start {}: {}", viewer, std::strerror(e));
    return;
  }
  spdlog::info("viewer started ({}, pid {})", viewer, pid);
}

int RunSimulator(const CommandLine& c) {
  robot_edge::config::Config config;
  try {
    config = robot_edge::config::LoadConfig(c.config_path);
  } catch (const robot_edge::config::ConfigError& e) {
    std::fprintf(stderr, "robot-edge-sim: bad config:\n%s\n", e.what());
    return 2;
  }
  robot_edge::sim::SimulatorOptions options;
  options.control_path = c.control_path;
  options.status_lines = !c.quiet;
  options.physics = c.physics.empty() ? config.sim.physics : c.physics;
  options.model_path = !c.model_path.empty()       ? c.model_path
                       : !config.sim.model.empty() ? config.sim.model
                                                   : robot_edge::sim::DefaultModelPath();
  options.gantry_height_m = c.gantry_height_m.value_or(config.sim.gantry_height_m);
  if (c.viewer && options.physics != "mujoco") {
    std::fputs("robot-edge-sim: --viewer draws the physics backend: add --physics mujoco\n",
               stderr);
    return 2;
  }
  try {
    const std::string viewer = c.viewer ? FindViewer() : "";
    robot_edge::sim::Simulator simulator(config, options);
    spdlog::info("{} joints on {} buses from {}{}{}; physics {}{}", config.joints.size(),
                 config.buses.size(), c.config_path,
                 c.control_path.empty() ? "" : ", control socket ", c.control_path, options.physics,
                 options.physics == "mujoco" ? " (" + options.model_path + ")" : "");
    if (c.viewer) StartViewer(viewer, c.control_path, options.model_path);
    std::fputs("robot-edge-sim: ready\n", stdout);
    std::fflush(stdout);
    simulator.Run();
  } catch (const std::system_error& e) {
    std::fprintf(stderr, "robot-edge-sim: %s\n", e.what());
    return 2;
  } catch (const std::runtime_error& e) {  // the MuJoCo model: its load error or missing joints
    std::fprintf(stderr, "robot-edge-sim: %s\n", e.what());
    return 2;
  }
  spdlog::info("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a vanished reader is an error code, not a death
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.size() == 1 && args[0] == "--bash-completion") {
    std::fputs(robot_edge::sim::CompletionScript().c_str(), stdout);
    return 0;
  }
  const auto parsed = robot_edge::sim::ParseCommandLine(args);
  if (!parsed.command_line) {
    std::fprintf(stderr, "robot-edge-sim: %s\n%s", parsed.error.c_str(),
                 robot_edge::sim::HelpText().c_str());
    return 2;
  }
  const CommandLine& c = *parsed.command_line;
  if (c.help) {
    std::fputs(robot_edge::sim::HelpText().c_str(), stdout);
    return 0;
  }
  if (c.version) {
    std::printf("robot-edge-sim %s\n", ROBOT_EDGE_VERSION);
    return 0;
  }
  SetUpLogging(c);
  try {
    return RunSimulator(c);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "robot-edge-sim: %s\n", e.what());
    return 1;
  }
}
