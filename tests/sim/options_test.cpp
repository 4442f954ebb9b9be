// robot-edge-sim's command line.
#include "sim/options.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace robot_edge::sim {
namespace {

CommandLineResult Parse(std::vector<std::string_view> args) { return ParseCommandLine(args); }

TEST(CommandLine, AllOptions) {
  const auto r = Parse(
      {"--config", "robot.yaml", "--control=/tmp/sim.sock", "--log-level", "debug", "--quiet"});
  ASSERT_TRUE(r.command_line.has_value()) << r.error;
  EXPECT_EQ(r.command_line->config_path, "robot.yaml");
  EXPECT_EQ(r.command_line->control_path, "/tmp/sim.sock");
  EXPECT_EQ(r.command_line->log_level, "debug");
  EXPECT_TRUE(r.command_line->quiet);
}

TEST(CommandLine, PhysicsModelAndGantry) {
  const auto r = Parse(
      {"--config=robot.yaml", "--physics", "mujoco", "--model=my_robot.xml", "--gantry", "0.9"});
  ASSERT_TRUE(r.command_line.has_value()) << r.error;
  EXPECT_EQ(r.command_line->physics, "mujoco");
  EXPECT_EQ(r.command_line->model_path, "my_robot.xml");
  EXPECT_EQ(r.command_line->gantry_height_m, 0.9);
  EXPECT_EQ(Parse({"--config=a.yaml", "--physics=bullet"}).error,
            "--physics 'bullet' is not kinematic or mujoco");
  EXPECT_EQ(Parse({"--config=a.yaml", "--gantry=high"}).error,
            "--gantry 'high' is not a height in metres (0..10)");
  EXPECT_EQ(Parse({"--config=a.yaml", "--gantry=-1"}).error,
            "--gantry '-1' is not a height in metres (0..10)");
}

TEST(CommandLine, TheViewerReadsTheControlSocket) {
  const auto r = Parse({"--config=robot.yaml", "--control=/tmp/sim.sock", "--viewer"});
  ASSERT_TRUE(r.command_line.has_value()) << r.error;
  EXPECT_TRUE(r.command_line->viewer);
  EXPECT_FALSE(Parse({"--config=robot.yaml"}).command_line->viewer);
  EXPECT_EQ(Parse({"--config=a.yaml", "--viewer"}).error,
            "--viewer needs --control PATH (the viewer reads the state there)");
}

TEST(CommandLine, Defaults) {
  const auto r = Parse({"--config=robot.yaml"});
  ASSERT_TRUE(r.command_line.has_value()) << r.error;
  EXPECT_EQ(r.command_line->control_path, "");
  EXPECT_EQ(r.command_line->log_level, "info");
  EXPECT_FALSE(r.command_line->quiet);
  EXPECT_EQ(r.command_line->physics, "");  // the config's
  EXPECT_FALSE(r.command_line->gantry_height_m.has_value());
}

TEST(CommandLine, HelpNeedsNothingElse) {
  const auto r = Parse({"-h"});
  ASSERT_TRUE(r.command_line.has_value());
  EXPECT_TRUE(r.command_line->help);
}

TEST(CommandLine, VersionNeedsNothingElse) {
  const auto r = Parse({"--version"});
  ASSERT_TRUE(r.command_line.has_value()) << r.error;
  EXPECT_TRUE(r.command_line->version);
  EXPECT_FALSE(r.command_line->help);
}

TEST(CommandLine, Refusals) {
  EXPECT_EQ(Parse({}).error, "--config FILE is required");
  EXPECT_EQ(Parse({"--config"}).error, "--config needs a value");
  EXPECT_EQ(Parse({"--config="}).error, "--config needs a value");
  EXPECT_EQ(Parse({"--config", "a.yaml", "--verbose"}).error, "unknown option '--verbose'");
  EXPECT_EQ(Parse({"--config", "a.yaml", "--log-level", "loud"}).error,
            "--log-level 'loud' is not trace|debug|info|warn|error");
}

}  // namespace
}  // namespace robot_edge::sim
