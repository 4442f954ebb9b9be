// robot-edge-dds: PNDbotics Adam's rt/lowcmd and rt/lowstate in front of robot-edged (HelpText()
// in help.cpp). main() parses the command line, joins the DDS domain and checks that DDS Security
// is in effect (security.hpp) unless --insecure, connects and checks the robot, makes the DDS
// entities, runs the two loops (bridge.hpp) and waits for SIGINT / SIGTERM or for a loop to end.
#include <pthread.h>
#include <signal.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>
#include <vector>

#include "dds/bridge.hpp"
#include "dds/options.hpp"
#include "dds/security.hpp"

namespace {

using namespace robot_edge;
using namespace robot_edge::dds;

std::string Getenv(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// SIGINT and SIGTERM are blocked in every thread (Cyclone's too: they inherit the mask) and
// taken by sigtimedwait in main: no signal handler at all.
sigset_t StopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

// The signal that came (0 when `stop` was set first), looking at `stop` every 100 ms.
int WaitForSignal(const sigset_t& signals, const std::atomic<bool>& stop) {
  const timespec poll{0, 100'000'000};
  while (!stop) {
    const int signal = sigtimedwait(&signals, nullptr, &poll);
    if (signal > 0) return signal;
  }
  return 0;
}

client::Client Connect(const Options& o, client::Millis timeout) {
  if (!o.tcp_host.empty()) return client::Client::ConnectTcp(o.tcp_host, o.tcp_port, timeout);
  return client::Client::ConnectUnix(o.socket, timeout);
}

// Everything robot-edge-dds talks to, set up before the loops start (so that every mistake is
// reported before anything is published).
struct Setup {
  client::Client states;    // observer: the state stream (then the state thread's)
  client::Client commands;  // the controller (then the command thread's)
  edge::Welcome welcome;
  RobotFit fit;
  std::uint32_t granted_hz = 0;
};

// A controlling connection (Hello answered): one per rt/lowcmd writer followed.
client::Client ConnectController(const Options& o, client::Millis timeout) {
  client::Client commands = Connect(o, timeout);
  edge::Hello controller;
  controller.set_controller(o.controller);
  controller.set_token(o.token);
  controller.set_want_command_results(true);
  controller.set_no_telemetry(true);
  commands.Hello(controller, timeout);
  return commands;
}

Setup ConnectToRobot(const Options& o, client::Millis timeout) {
  client::Client states = Connect(o, timeout);
  edge::Hello observer;
  observer.set_token(o.token);
  observer.set_no_telemetry(true);
  const edge::Welcome welcome = states.Hello(observer, timeout);
  const RobotFit fit = FitRobot(o, welcome);
  client::Client commands = ConnectController(o, timeout);
  const auto granted = states.StreamState(fit.rate_hz, timeout);
  if (!granted || *granted == 0) {
    throw client::ClientError(client::ErrorKind::kTimeout,
                              "robot-edged did not grant the state stream (StateStreamRequest; "
                              "is it older than robot-edge-dds?)");
  }
  return Setup{std::move(states), std::move(commands), welcome, fit, *granted};
}

// --security DIR's files, absolute; a UsageError names the first one missing or unreadable.
std::string SecurityDir(const std::string& dir) {
  const std::string absolute = std::filesystem::absolute(dir).lexically_normal().string();
  for (const SecurityFile& file : kSecurityFiles) {
    const std::string path = absolute + "/" + file.name;
    if (::access(path.c_str(), R_OK) != 0) {
      throw UsageError("--security " + dir + ": cannot read " + path + " (" + file.what + ")");
    }
  }
  return absolute;
}

// Cyclone's configuration for the domain (security.hpp); "" = $CYCLONEDDS_URI's.
std::string DomainConfig(const Options& o) {
  const std::string env = Getenv("CYCLONEDDS_URI");
  if (o.insecure) {
    if (!env.empty()) Log("--insecure: $CYCLONEDDS_URI is ignored (loopback only)");
    return LoopbackXml();
  }
  if (!o.security_dir.empty()) return WithSecurity(env, SecurityDir(o.security_dir));
  return "";
}

// What the bridge says about its security, in the log and in systemd's status.
std::string SecurityStatus(const Options& o) {
  if (o.insecure) {
    return "INSECURE (--insecure): no DDS Security, DDS on 127.0.0.1 only; every local user can "
           "command the robot through this bridge as '" +
           o.controller + "'";
  }
  return "DDS Security in effect (" +
         (o.security_dir.empty() ? std::string("$CYCLONEDDS_URI")
                                 : "--security " + o.security_dir) +
         "): only permitted writers reach rt/lowcmd";
}

// The domain joined as configured; unless --insecure, a UsageError when DDS Security does not
// control who writes rt/lowcmd.
Participant JoinDomain(const Options& o) {
  Participant participant(o.domain, DomainConfig(o));
  if (!o.insecure && !participant.WritingLowCmdIsControlled()) {
    throw UsageError(
        "DDS Security is not in effect for rt/lowcmd (robot-edge-dds could make a writer of "
        "it): configure <Security> with a governance that enables write access control on "
        "rt/lowcmd and permissions that grant robot-edge-dds only rt/lowcmd (subscribe) and "
        "rt/lowstate (publish), or give --security DIR (docs/api.md, \"DDS bridge\")");
  }
  Log(SecurityStatus(o));
  return participant;
}

int Bridge(const Options& o, client::Millis timeout, const Participant& participant, Setup& setup,
           const sigset_t& signals) {
  LowCmdReader reader(participant);
  LowStateWriter writer(participant);
  const std::string started =
      "robot '" + setup.welcome.robot_name() + "' (" + std::to_string(setup.fit.joints) +
      " joints) on DDS domain " + std::to_string(o.domain) + ": rt/lowcmd as controller '" +
      o.controller + "', rt/lowstate at " + std::to_string(setup.granted_hz) + " Hz";
  Log(started);
  sd_notify(0, ("READY=1\nSTATUS=" + started + "; " + SecurityStatus(o)).c_str());
  CommandLoopConfig config;
  config.joints = setup.fit.joints;
  config.settings = {o.command_lifetime_us, o.velocity_safety_limit};
  config.controller = o.controller;
  config.timeout = timeout;
  config.reconnect = [&o, timeout] { return ConnectController(o, timeout); };
  std::atomic<bool> stop{false};
  int command_status = kExitOk, state_status = kExitOk;
  // From here on setup.commands belongs to the command thread, setup.states to the state one.
  std::thread commands(
      [&] { command_status = RunCommandLoop(std::move(setup.commands), reader, config, stop); });
  std::thread states(
      [&] { state_status = RunStateLoop(setup.states, writer, config.joints, stop); });
  const int signal = WaitForSignal(signals, stop);
  if (signal != 0) {
    Log(std::string(signal == SIGINT ? "SIGINT" : "SIGTERM") +
        ": stopping; no DAMP sent (robot-edged's watchdog DAMPs 200 ms after the last command)");
  }
  stop = true;
  commands.join();
  states.join();
  return std::max(command_status, state_status);
}

int Run(const Options& o, const sigset_t& signals) {
  const client::Millis timeout(static_cast<long long>(std::ceil(o.timeout_s * 1000)));
  try {
    const Participant participant = JoinDomain(o);
    Setup setup = ConnectToRobot(o, timeout);
    return Bridge(o, timeout, participant, setup, signals);
  } catch (const UsageError& e) {
    Log(e.what());
    return kExitUsage;
  } catch (const client::ClientError& e) {
    Log(std::string("robot-edged: ") + e.what());
    return e.kind() == client::ErrorKind::kConnect ? kExitNoDaemon : kExitFailed;
  } catch (const DdsError& e) {
    Log(e.what());
    return kExitFailed;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (cli::WantsCompletion(args)) {
    std::cout << CompletionScript();
    return kExitOk;
  }
  Options options;
  try {
    options = ParseCommandLine(
        args, {Getenv("ROBOT_EDGE_SOCKET"), Getenv("ROBOT_EDGE_TOKEN"), Getenv("CYCLONEDDS_URI")});
  } catch (const UsageError& e) {
    std::cerr << "robot-edge-dds: " << e.what() << "\nTry 'robot-edge-dds --help'.\n";
    return kExitUsage;
  }
  if (options.help) {
    std::cout << HelpText();
    return kExitOk;
  }
  if (options.version) {
    std::cout << "robot-edge-dds " << ROBOT_EDGE_VERSION << "\n";
    return kExitOk;
  }
  const sigset_t signals = StopSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return Run(options, signals);
}
