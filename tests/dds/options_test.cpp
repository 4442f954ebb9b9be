// dds/options.hpp: robot-edge-dds's command line, and the checks against the robot's Welcome.
// Mostly negative: every mistake is refused with a message naming the option.
#include "dds/options.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace robot_edge::dds {
namespace {

// Security from $CYCLONEDDS_URI, as far as the command line can tell.
constexpr const char* kUri = "file:///etc/robot-edge/cyclonedds.xml";

Options Parse(std::vector<std::string> args, Environment env = {"", "", kUri}) {
  return ParseCommandLine(args, env);
}

// The UsageError's message, "" when none was thrown.
std::string Refusal(std::vector<std::string> args, Environment env = {"", "", kUri}) {
  try {
    Parse(std::move(args), std::move(env));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

edge::Welcome Robot(int joints = 25, float control_hz = 500) {
  edge::Welcome w;
  for (int i = 0; i < joints; ++i) w.add_joint_names("J" + std::to_string(i));
  w.set_control_rate_hz(control_hz);
  for (const char* c : {"ble", "cloud", "maintainer", "dds"}) w.add_controllers(c);
  return w;
}

std::string FitRefusal(std::vector<std::string> args, const edge::Welcome& welcome = Robot()) {
  try {
    FitRobot(Parse(std::move(args)), welcome);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(DdsOptions, Defaults) {
  const Options o = Parse({});
  EXPECT_EQ(o.socket, "/run/robot-edge/api.sock");
  EXPECT_EQ(o.tcp_host, "");
  EXPECT_EQ(o.controller, "dds") << "a role of its own, not cloud's";
  EXPECT_EQ(o.domain, 0u);
  EXPECT_EQ(o.security_dir, "");
  EXPECT_FALSE(o.insecure);
  EXPECT_FALSE(o.rate_hz);
  EXPECT_EQ(o.command_lifetime_us, 50'000);
  EXPECT_EQ(o.velocity_safety_limit, 0.0f);
  EXPECT_FALSE(o.motors);
  EXPECT_DOUBLE_EQ(o.timeout_s, 2.0);
}

TEST(DdsOptions, EveryOption) {
  const Options o = Parse({"--socket", "/tmp/a.sock", "--controller=ble", "--domain", "7", "--rate",
                           "200", "--command-lifetime-ms", "80", "--velocity-safety-limit", "6.5",
                           "--motors", "25", "--timeout", "3"});
  EXPECT_EQ(o.socket, "/tmp/a.sock");
  EXPECT_EQ(o.controller, "ble");
  EXPECT_EQ(o.domain, 7u);
  EXPECT_EQ(o.rate_hz, 200u);
  EXPECT_EQ(o.command_lifetime_us, 80'000);
  EXPECT_FLOAT_EQ(o.velocity_safety_limit, 6.5f);
  EXPECT_EQ(o.motors, 25u);
  EXPECT_DOUBLE_EQ(o.timeout_s, 3.0);
}

TEST(DdsOptions, Environment) {
  const Options o = Parse({}, {"/tmp/env.sock", "tok", kUri});
  EXPECT_EQ(o.socket, "/tmp/env.sock");
  EXPECT_EQ(o.token, "tok");
  EXPECT_EQ(Parse({"--socket", "/tmp/cli.sock"}, {"/tmp/env.sock", "", kUri}).socket,
            "/tmp/cli.sock");
}

// Security from --security DIR, from $CYCLONEDDS_URI (checked once Cyclone has read it: main),
// or none with --insecure; from nowhere it is refused before anything starts.
TEST(DdsOptions, SecurityOrInsecure) {
  EXPECT_EQ(Parse({"--security", "/etc/robot-edge/dds"}, {}).security_dir, "/etc/robot-edge/dds");
  EXPECT_TRUE(Parse({"--insecure"}, {}).insecure);
  EXPECT_FALSE(Parse({}).insecure) << "$CYCLONEDDS_URI may configure it";
  EXPECT_NE(Refusal({}, {}).find("no DDS Security configured: give --security DIR"),
            std::string::npos)
      << Refusal({}, {});
  EXPECT_NE(Refusal({"--insecure", "--security", "/x"}).find("contradict"), std::string::npos);
  EXPECT_NE(Refusal({"--security="}).find("--security needs a directory"), std::string::npos);
  EXPECT_NE(Refusal({"--insecure=yes"}).find("--insecure takes no value"), std::string::npos);
  EXPECT_TRUE(Parse({"--help"}, {}).help) << "--help needs no security";
}

TEST(DdsOptions, Tcp) {
  const Options o = Parse({"--tcp", "192.168.1.20:7000"});
  EXPECT_EQ(o.tcp_host, "192.168.1.20");
  EXPECT_EQ(o.tcp_port, 7000);
  EXPECT_EQ(Parse({"--tcp", "[::1]:7001"}).tcp_host, "::1");
  EXPECT_NE(Refusal({"--tcp", "robot"}).find("HOST:PORT"), std::string::npos);
  EXPECT_NE(Refusal({"--tcp", "robot:0"}).find("a port 1..65535"), std::string::npos);
}

TEST(DdsOptions, MotorProfiles) {
  EXPECT_EQ(Parse({"--motors", "lite"}).motors, 23u);
  EXPECT_EQ(Parse({"--motors", "sp"}).motors, 29u);
  EXPECT_EQ(Parse({"--motors", "pro"}).motors, 31u);
  EXPECT_EQ(Parse({"--motors", "25"}).motors, 25u);
  EXPECT_NE(Refusal({"--motors", "max"}).find("lite, sp or pro"), std::string::npos);
  EXPECT_NE(Refusal({"--motors", "0"}).find("--motors"), std::string::npos);
}

TEST(DdsOptions, HelpAndVersion) {
  EXPECT_TRUE(Parse({"--help"}).help);
  EXPECT_TRUE(Parse({"-h"}).help);
  EXPECT_TRUE(Parse({"--version"}).version);
  EXPECT_NE(HelpText().find("Exit status:"), std::string::npos) << "the man page needs it";
  EXPECT_NE(HelpText().find("without a DAMP"), std::string::npos);
}

TEST(DdsOptions, MistakesNameTheOption) {
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  const Case cases[] = {
      {{"--frobnicate"}, "unknown option '--frobnicate'"},
      {{"--token", "s3cret"}, "--token is refused: a command line is visible to every user"},
      {{"--token-file", "/nonexistent/t"}, "--token-file: cannot read /nonexistent/t"},
      {{"status"}, "unexpected argument 'status'"},
      {{"--domain"}, "--domain needs a value"},
      {{"--domain", "233"}, "--domain: '233' is not a whole number 0..232"},
      {{"--domain", "-1"}, "--domain"},
      {{"--rate", "0"}, "--rate: '0'"},
      {{"--rate", "fast"}, "--rate"},
      {{"--command-lifetime-ms", "0"}, "--command-lifetime-ms: '0' is not a whole number 1..1000"},
      {{"--command-lifetime-ms", "5000"}, "--command-lifetime-ms"},
      {{"--velocity-safety-limit", "-1"}, "--velocity-safety-limit must be >= 0"},
      {{"--velocity-safety-limit", "nan"}, "--velocity-safety-limit"},
      {{"--timeout", "0"}, "--timeout must be > 0"},
      {{"--controller", ""}, "--controller must name a controller"},
      {{"--help=yes"}, "--help takes no value"},
  };
  for (const Case& c : cases) {
    const std::string refusal = Refusal(c.args);
    EXPECT_NE(refusal.find(c.says), std::string::npos)
        << c.args[0] << ": '" << refusal << "' does not say '" << c.says << "'";
  }
}

TEST(FitRobot, DefaultsFromTheRobot) {
  const RobotFit fit = FitRobot(Parse({}), Robot());
  EXPECT_EQ(fit.joints, 25u);
  EXPECT_EQ(fit.rate_hz, 500u);
  EXPECT_EQ(FitRobot(Parse({}), Robot(25, 250)).rate_hz, 250u) << "capped at the control rate";
  EXPECT_EQ(FitRobot(Parse({"--rate", "200"}), Robot()).rate_hz, 200u);
  EXPECT_EQ(FitRobot(Parse({"--motors", "25"}), Robot()).joints, 25u);
}

// An Adam profile on this 25-joint robot: refused at start, with the robot's count.
TEST(FitRobot, MotorsMustBeTheRobotsJointCount) {
  for (const char* profile : {"lite", "sp", "pro", "24"}) {
    const std::string refusal = FitRefusal({"--motors", profile});
    EXPECT_NE(refusal.find("this robot has 25 joints"), std::string::npos) << refusal;
  }
  EXPECT_EQ(FitRefusal({"--motors", "lite"}, Robot(23)), "");
}

TEST(FitRobot, ControllerMustBeConfigured) {
  EXPECT_EQ(FitRefusal({"--controller", "ble"}), "");
  EXPECT_EQ(FitRefusal({"--controller", "teleop"}),
            "--controller 'teleop' is not one of robot-edged's api.controllers "
            "(ble, cloud, maintainer, dds)");
  edge::Welcome without_dds = Robot();
  without_dds.clear_controllers();
  without_dds.add_controllers("cloud");
  EXPECT_EQ(FitRefusal({}, without_dds),
            "--controller 'dds' is not one of robot-edged's api.controllers (cloud)");
}

TEST(FitRobot, RateAtMostTheControlRate) {
  EXPECT_EQ(FitRefusal({"--rate", "1000"}),
            "--rate 1000 Hz is above robot-edged's control rate, 500 Hz");
  EXPECT_EQ(FitRefusal({"--rate", "500"}), "");
}

}  // namespace
}  // namespace robot_edge::dds
