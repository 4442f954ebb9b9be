// robot-edgectl's command line: every mistake is a UsageError naming the option or argument,
// and each subcommand says Hello as the right kind of client.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "tools/edgectl/options.hpp"

namespace robot_edge::edgectl {
namespace {

Options Parse(std::vector<std::string> args, Environment env = {}) {
  return ParseCommandLine(args, env);
}

// A token file holding `token` (and a newline, as `echo` writes it).
std::string TokenFile(const std::string& token) {
  const std::string path = ::testing::TempDir() + "edgectl-" + token + ".token";
  std::ofstream(path) << token << "\n";
  return path;
}

std::string ErrorOf(std::vector<std::string> args) {
  try {
    Parse(std::move(args));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(EdgectlOptions, DefaultsAndEnvironment) {
  const Options o = Parse({"status"});
  EXPECT_EQ(o.subcommand, Subcommand::kStatus);
  EXPECT_EQ(o.socket, "/run/robot-edge/api.sock");
  EXPECT_EQ(o.tcp_host, "");
  EXPECT_FALSE(o.json);
  EXPECT_DOUBLE_EQ(o.timeout_s, 2.0);
  const Options env = Parse({"status"}, {"/tmp/x.sock", "tok"});
  EXPECT_EQ(env.socket, "/tmp/x.sock");
  EXPECT_EQ(env.token, "tok");
  const Options flag = Parse(
      {"--socket", "/tmp/y.sock", "status", "--token-file=" + TokenFile("t2")}, {"/tmp/x", "t"});
  EXPECT_EQ(flag.socket, "/tmp/y.sock");  // the option beats the environment
  EXPECT_EQ(flag.token, "t2");
}

// A token on the command line is in /proc/PID/cmdline for every user to read.
TEST(EdgectlOptions, ATokenOnTheCommandLineIsRefused) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"status", "--token", "s3cret"},
                                                                {"--token=s3cret", "status"}}) {
    const std::string error = ErrorOf(args);
    EXPECT_EQ(error.rfind("--token is refused: a command line is visible to every user", 0), 0u)
        << error;
    EXPECT_NE(error.find("--token-file FILE"), std::string::npos) << error;
    EXPECT_NE(error.find("$ROBOT_EDGE_TOKEN"), std::string::npos) << error;
    EXPECT_EQ(error.find("s3cret"), std::string::npos) << "the refusal repeats no token";
  }
  EXPECT_EQ(ErrorOf({"status", "--token-file", "/nonexistent/t"}),
            "--token-file: cannot read /nonexistent/t: No such file or directory");
  const std::string empty = ::testing::TempDir() + "edgectl-empty.token";
  std::ofstream(empty) << "\n";
  EXPECT_EQ(ErrorOf({"status", "--token-file", empty}),
            "--token-file: " + empty + " holds no token");
  std::remove(empty.c_str());
}

TEST(EdgectlOptions, Tcp) {
  const Options o = Parse({"--tcp", "192.168.1.20:7000", "diag"});
  EXPECT_EQ(o.tcp_host, "192.168.1.20");
  EXPECT_EQ(o.tcp_port, 7000);
  const Options v6 = Parse({"--tcp=[::1]:7001", "diag"});
  EXPECT_EQ(v6.tcp_host, "::1");
  EXPECT_EQ(v6.tcp_port, 7001);
  EXPECT_EQ(ErrorOf({"--tcp", "robot", "diag"}),
            "--tcp: expected HOST:PORT with a port 1..65535 (e.g. 192.168.1.20:7000 or "
            "[::1]:7000), got 'robot'");
  EXPECT_EQ(ErrorOf({"--tcp", "robot:0", "diag"}),
            "--tcp: expected HOST:PORT with a port 1..65535 (e.g. 192.168.1.20:7000 or "
            "[::1]:7000), got 'robot:0'");
  EXPECT_NE(ErrorOf({"--tcp", "robot:http", "diag"}).find("got 'robot:http'"), std::string::npos);
}

TEST(EdgectlOptions, WalkTakesThreeNumbersIncludingNegativeOnes) {
  const Options o = Parse({"walk", "-0.5", "0.2", "-.1"});
  EXPECT_EQ(o.subcommand, Subcommand::kWalk);
  EXPECT_FLOAT_EQ(o.vx, -0.5f);
  EXPECT_FLOAT_EQ(o.vy, 0.2f);
  EXPECT_FLOAT_EQ(o.vyaw, -0.1f);
  EXPECT_DOUBLE_EQ(o.duration_s, 0.0);  // until Ctrl-C
  EXPECT_EQ(ErrorOf({"walk", "0.5", "0"}),
            "usage: robot-edgectl walk VX VY VYAW  (m/s, m/s, rad/s)");
  EXPECT_EQ(ErrorOf({"walk", "fast", "0", "0"}), "walk VX: 'fast' is not a number of m/s");
  EXPECT_EQ(ErrorOf({"walk", "0", "1.5", "0"}), "walk: vy 1.5 m/s is outside -1..1 m/s");
}

TEST(EdgectlOptions, MoveAndHoldDefaultsAndBounds) {
  const Options move = Parse({"move", "L_Knee=0.6", "l_elbow=1", "--duration=3", "--hold", "1"});
  EXPECT_EQ(move.targets, (std::vector<std::string>{"L_Knee=0.6", "l_elbow=1"}));
  EXPECT_DOUBLE_EQ(move.duration_s, 3.0);
  EXPECT_DOUBLE_EQ(move.hold_s, 1.0);
  EXPECT_DOUBLE_EQ(move.rate_hz, 50.0);
  EXPECT_DOUBLE_EQ(Parse({"hold"}).duration_s, 2.0);
  EXPECT_EQ(ErrorOf({"move"}), "usage: robot-edgectl move JOINT=RAD ...");
  EXPECT_EQ(ErrorOf({"move", "L_Knee=1", "--rate", "5"}), "--rate must be 10..500 Hz");
  EXPECT_EQ(ErrorOf({"hold", "--duration", "0"}), "--duration must be > 0 seconds");
  EXPECT_EQ(ErrorOf({"move", "L_Knee=1", "--duration", "two"}),
            "--duration: 'two' is not a number of seconds");
}

TEST(EdgectlOptions, SineDefaultsAndBounds) {
  const Options sine = Parse({"sine", "L_Elbow"});
  EXPECT_EQ(sine.joint, "L_Elbow");
  EXPECT_DOUBLE_EQ(sine.amplitude_rad, 0.1);
  EXPECT_DOUBLE_EQ(sine.frequency_hz, 0.5);
  EXPECT_DOUBLE_EQ(sine.duration_s, 4.0);
  EXPECT_DOUBLE_EQ(sine.rate_hz, 200.0);
  EXPECT_DOUBLE_EQ(sine.kp, 40.0);
  EXPECT_DOUBLE_EQ(sine.kd, 1.0);
  EXPECT_EQ(MakeHello(sine).controller(), "cloud");
  EXPECT_TRUE(MakeHello(sine).want_command_results());
  EXPECT_FALSE(MakeHello(sine).no_telemetry()) << "the echoed keys come with telemetry";
  const Options fast = Parse({"sine", "L_Elbow", "--rate", "1000", "--amplitude=0.3", "--frequency",
                              "2", "--kp", "80", "--kd", "2"});
  EXPECT_DOUBLE_EQ(fast.rate_hz, 1000.0);
  EXPECT_DOUBLE_EQ(fast.amplitude_rad, 0.3);
  EXPECT_DOUBLE_EQ(fast.frequency_hz, 2.0);
  EXPECT_DOUBLE_EQ(fast.kp, 80.0);
  EXPECT_DOUBLE_EQ(fast.kd, 2.0);
  EXPECT_EQ(ErrorOf({"sine"}),
            "usage: robot-edgectl sine JOINT [--amplitude RAD] [--frequency HZ] [--duration S] "
            "[--rate HZ]");
  EXPECT_EQ(ErrorOf({"sine", "L_Elbow", "--amplitude", "0.6"}), "--amplitude must be 0..0.5 rad");
  EXPECT_EQ(ErrorOf({"sine", "L_Elbow", "--frequency", "0"}), "--frequency must be 0..5 Hz");
  EXPECT_EQ(ErrorOf({"sine", "L_Elbow", "--kp", "501"}), "--kp must be 0..500");
  EXPECT_EQ(ErrorOf({"sine", "L_Elbow", "--rate", "2000"}), "--rate must be 10..1000 Hz");
  EXPECT_EQ(ErrorOf({"move", "L_Knee=1", "--kp", "3"}), "--kp does not apply to 'move'");
}

TEST(EdgectlOptions, OptionsOnlyWhereTheyApply) {
  EXPECT_EQ(ErrorOf({"status", "--rate", "50"}), "--rate does not apply to 'status'");
  EXPECT_EQ(ErrorOf({"watch", "--resume", "3"}), "--resume does not apply to 'watch'");
  EXPECT_EQ(Parse({"events", "--resume", "3", "--count", "2"}).resume_after, 3u);
  EXPECT_EQ(Parse({"watch", "--joints", "L_Knee,R_Knee"}).joints,
            (std::vector<std::string>{"L_Knee", "R_Knee"}));
}

TEST(EdgectlOptions, Mistakes) {
  EXPECT_EQ(ErrorOf({}), "no command given");
  EXPECT_EQ(ErrorOf({"jump"}), "unknown command 'jump'");
  EXPECT_EQ(ErrorOf({"status", "--colour"}), "unknown option '--colour'");
  EXPECT_EQ(ErrorOf({"status", "--socket"}), "--socket needs a value");
  EXPECT_EQ(ErrorOf({"status", "--json=yes"}), "--json takes no value");
  EXPECT_EQ(ErrorOf({"status", "extra"}), "usage: robot-edgectl status");
  EXPECT_EQ(ErrorOf({"status", "--timeout", "0"}), "--timeout must be > 0 seconds");
  EXPECT_EQ(ErrorOf({"events", "--count", "-1"}), "--count: '-1' is not a whole number >= 0");
}

TEST(EdgectlOptions, HelpAndVersionNeedNothingElse) {
  EXPECT_TRUE(Parse({"--help"}).help);
  EXPECT_TRUE(Parse({"-h"}).help);
  EXPECT_TRUE(Parse({"help"}).help);
  EXPECT_TRUE(Parse({"move", "--help"}).help);  // even with move's arguments missing
  EXPECT_TRUE(Parse({"--version"}).version);
  EXPECT_NE(HelpText().find("--max-speed"), std::string::npos);
}

TEST(EdgectlOptions, BringUpSubcommands) {
  Options o = Parse({"jog", "L_Knee", "-0.25", "--speed", "0.5"});
  EXPECT_EQ(o.subcommand, Subcommand::kJog);
  EXPECT_EQ(o.joint, "L_Knee");
  EXPECT_FLOAT_EQ(o.target_rad, -0.25f);
  EXPECT_DOUBLE_EQ(o.speed_rad_s, 0.5);
  EXPECT_DOUBLE_EQ(o.duration_s, 20.0);
  o = Parse({"scan", "--max-id", "64"});
  EXPECT_EQ(o.max_id, 64u);
  o = Parse({"calibrate", "--pose", "stand"});
  EXPECT_EQ(o.pose, "stand");
  o = Parse({"zero", "Neck_Yaw", "--confirm"});
  EXPECT_TRUE(o.confirm);
  o = Parse({"check-direction", "L_Elbow", "--amount", "0.2"});
  EXPECT_DOUBLE_EQ(o.amount_rad, 0.2);
  o = Parse({"check-direction", "L_Elbow", "--model", "robot.xml", "--calibrated-at", "0.3"});
  EXPECT_EQ(o.model, "robot.xml");
  EXPECT_DOUBLE_EQ(o.amount_rad, 0.5) << "a bigger step by default when judging by gravity";
  EXPECT_DOUBLE_EQ(o.pivot_rad, 0.3);
  o = Parse({"clear-fault", "L_Knee"});
  EXPECT_EQ(o.subcommand, Subcommand::kClearFault);
  EXPECT_EQ(o.joint, "L_Knee");
  EXPECT_EQ(MakeHello(o).controller(), "maintainer");
  EXPECT_NE(ErrorOf({"clear-fault"}).find("usage: robot-edgectl clear-fault JOINT"),
            std::string::npos);
  EXPECT_NE(ErrorOf({"jog", "L_Knee"}).find("usage: robot-edgectl jog"), std::string::npos);
  EXPECT_NE(ErrorOf({"jog", "L_Knee", "1", "--speed", "3"}).find("--speed"), std::string::npos);
  EXPECT_NE(ErrorOf({"scan", "--max-id", "300"}).find("1..255"), std::string::npos);
  EXPECT_NE(ErrorOf({"calibrate", "--pose", "sitting"}).find("zero or stand"), std::string::npos);
  EXPECT_NE(ErrorOf({"check-direction", "L_Elbow", "--amount", "2"}).find("0..0.8"),
            std::string::npos);
  EXPECT_NE(ErrorOf({"stand", "--confirm"}).find("does not apply"), std::string::npos);
}

TEST(EdgectlHello, BringUpSubcommandsAreMaintainersAndWantResults) {
  for (const char* sub : {"scan", "calibrate"}) {
    const edge::Hello h = MakeHello(Parse({sub}));
    EXPECT_EQ(h.controller(), "maintainer") << sub;
    EXPECT_TRUE(h.want_command_results()) << sub;
  }
  EXPECT_EQ(MakeHello(Parse({"jog", "L_Knee", "0.1"})).controller(), "maintainer");
  EXPECT_EQ(MakeHello(Parse({"scan", "--controller", "tech"})).controller(), "tech");
}

TEST(EdgectlHello, CommandingSubcommandsAreCloudAndWantResults) {
  for (const char* sub : {"stand", "hold"}) {
    const edge::Hello h = MakeHello(Parse({sub}));
    EXPECT_EQ(h.controller(), "cloud") << sub;
    EXPECT_TRUE(h.want_command_results()) << sub;
  }
  EXPECT_EQ(MakeHello(Parse({"walk", "0", "0", "0"})).controller(), "cloud");
  EXPECT_EQ(MakeHello(Parse({"move", "L_Knee=1"})).controller(), "cloud");
  EXPECT_FALSE(MakeHello(Parse({"hold"})).no_telemetry());  // hold needs the measured pose
}

TEST(EdgectlHello, DampIsAnObserverThatWantsItsResult) {
  const edge::Hello h = MakeHello(Parse({"damp"}));
  EXPECT_EQ(h.controller(), "");
  EXPECT_TRUE(h.want_command_results());
  EXPECT_EQ(MakeHello(Parse({"damp", "--controller", "ble"})).controller(), "ble");
}

TEST(EdgectlHello, ObserversAndTheirStreams) {
  const edge::Hello status = MakeHello(Parse({"status", "--token-file", TokenFile("s3cret")}));
  EXPECT_EQ(status.controller(), "");
  EXPECT_FALSE(status.want_command_results());
  EXPECT_FALSE(status.no_telemetry());
  EXPECT_EQ(status.token(), "s3cret");
  const edge::Hello events = MakeHello(Parse({"events", "--resume", "120"}));
  EXPECT_TRUE(events.no_telemetry());
  EXPECT_EQ(events.resume_after_event(), 120u);
  EXPECT_TRUE(MakeHello(Parse({"diag"})).no_telemetry());
  EXPECT_EQ(MakeHello(Parse({"move", "L_Knee=1", "--controller="})).controller(), "");
}

}  // namespace
}  // namespace robot_edge::edgectl
