// robot-edge-dds: PNDbotics Adam's rt/lowcmd and rt/lowstate in front of robot-edged (HelpText()
// in help.cpp). main() parses the command line, connects and checks the robot, makes the DDS
// entities, runs the two loops (bridge.hpp) and waits for SIGINT / SIGTERM or for a loop to end.
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <thread>
#include <vector>

#include "dds/bridge.hpp"
#include "dds/options.hpp"

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

Setup ConnectToRobot(const Options& o, client::Millis timeout) {
  client::Client states = Connect(o, timeout);
  edge::Hello observer;
  observer.set_token(o.token);
  observer.set_no_telemetry(true);
  const edge::Welcome welcome = states.Hello(observer, timeout);
  const RobotFit fit = FitRobot(o, welcome);
  client::Client commands = Connect(o, timeout);
  edge::Hello controller;
  controller.set_controller(o.controller);
  controller.set_token(o.token);
  controller.set_want_command_results(true);
  controller.set_no_telemetry(true);
  commands.Hello(controller, timeout);
  const auto granted = states.StreamState(fit.rate_hz, timeout);
  if (!granted || *granted == 0) {
    throw client::ClientError(client::ErrorKind::kTimeout,
                              "robot-edged did not grant the state stream (StateStreamRequest; "
                              "is it older than robot-edge-dds?)");
  }
  return Setup{std::move(states), std::move(commands), welcome, fit, *granted};
}

int Bridge(const Options& o, client::Millis timeout, Setup& setup, const sigset_t& signals) {
  const Participant participant(o.domain);
  LowCmdReader reader(participant);
  LowStateWriter writer(participant);
  Log("robot '" + setup.welcome.robot_name() + "' (" + std::to_string(setup.fit.joints) +
      " joints) on DDS domain " + std::to_string(o.domain) + ": rt/lowcmd as controller '" +
      o.controller + "', rt/lowstate at " + std::to_string(setup.granted_hz) + " Hz");
  CommandLoopConfig config;
  config.joints = setup.fit.joints;
  config.settings = {o.command_lifetime_us, o.velocity_safety_limit};
  config.controller = o.controller;
  config.timeout = timeout;
  std::atomic<bool> stop{false};
  int command_status = kExitOk, state_status = kExitOk;
  // From here on setup.commands belongs to the command thread, setup.states to the state one.
  std::thread commands(
      [&] { command_status = RunCommandLoop(setup.commands, reader, config, stop); });
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
    Setup setup = ConnectToRobot(o, timeout);
    return Bridge(o, timeout, setup, signals);
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
  Options options;
  try {
    options = ParseCommandLine(args, {Getenv("ROBOT_EDGE_SOCKET"), Getenv("ROBOT_EDGE_TOKEN")});
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
