// robot-edge-sim: the simulated robot on the other side of the CAN buses. See simulator.hpp for
// what it does and control_protocol.hpp for the fault-injection commands.
// Exit codes: 0 after SIGINT/SIGTERM, 2 on a bad command line, config, interface or control path,
// 1 on any other failure.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <system_error>
#include <vector>

#include "config/config.hpp"
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

int RunSimulator(const CommandLine& c) {
  robot_edge::config::Config config;
  try {
    config = robot_edge::config::LoadConfig(c.config_path);
  } catch (const robot_edge::config::ConfigError& e) {
    std::fprintf(stderr, "robot-edge-sim: bad config:\n%s\n", e.what());
    return 2;
  }
  try {
    robot_edge::sim::Simulator simulator(config, {c.control_path, !c.quiet});
    spdlog::info("{} joints on {} buses from {}{}{}", config.joints.size(), config.buses.size(),
                 c.config_path, c.control_path.empty() ? "" : ", control socket ", c.control_path);
    std::fputs("robot-edge-sim: ready\n", stdout);
    std::fflush(stdout);
    simulator.Run();
  } catch (const std::system_error& e) {
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
  const auto parsed = robot_edge::sim::ParseCommandLine(args);
  if (!parsed.command_line) {
    std::fprintf(stderr, "robot-edge-sim: %s\n%s", parsed.error.c_str(), robot_edge::sim::kUsage);
    return 2;
  }
  const CommandLine& c = *parsed.command_line;
  if (c.help) {
    std::fputs(robot_edge::sim::kUsage, stdout);
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
