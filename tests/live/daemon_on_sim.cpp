// live_daemon_on_sim: robot-edged as daemon.cpp wires it (daemon::RunDaemon: control loop, API
// socket, recorder) on this machine's kernel, driving the simulated robot in memory
// (sim::InMemoryRobot, kinematic plant) instead of CAN buses, and the live view as it is deployed:
// robot-edge-live, a process of its own (a child, started first, so that it also shows its
// reconnection to a robot-edged that is not up yet), with its DAMP service. It lets the
// dashboard's Chromium check (tests/js/dashboard_daemon_check.mjs) press DAMP on the real live
// view: Chromium does not load a page under user-mode-linux, where the vcan tests run.
//
//   live_daemon_on_sim --config config/robot-edge.yaml --dir DIR --web-root live/web [--live no]
//
// DIR/api.sock is the API socket, DIR/recordings the recorder's directory, DIR/operator.token the
// operator's token when that file exists at start-up (else nobody may press DAMP), DIR/live.pid
// robot-edge-live's pid (its log goes to this program's stderr). The live view listens on
// 127.0.0.1, a port free when this program starts (robot-edgectl status names it: Welcome's
// live_url). Everything else is the config's. robot-edge-live is sent SIGTERM at the end.
// `--live no`: no robot-edge-live (a test runs its own).
//
// stdin: robot-edge-sim's fault-injection lines (sim/control_protocol.hpp: temp, silence, ...),
// run on the control thread between two ticks; each reply printed "sim: ...". End of stdin or
// SIGTERM: the daemon's clean shutdown.
// stdout, a line whenever it changes: "motors: H holding, D damped, O off" (holding: motor mode
// with kp > 0; damped: motor mode with kp 0; off: out of motor mode).
#include <netinet/in.h>
#include <signal.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "config/config.hpp"
#include "daemon/daemon.hpp"
#include "mosquitto_broker.hpp"  // FreePort (robot_edge_test_process)
#include "sim/control_protocol.hpp"
#include "sim/in_memory_robot.hpp"

namespace {

using namespace robot_edge;

std::int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Fault-injection lines from the stdin thread to the control thread, and their replies back.
struct SimControl {
  std::mutex mutex;
  std::vector<std::string> lines, replies;
};

// The control thread's transport: each batch sent reaches the simulated motors at once, and their
// replies come back with the next Receive(). After each batch, stores the motors holding,
// damped and off in `motors` (holding | damped << 8 | off << 16) for the main thread.
class SimBuses final : public daemon::Buses, public can::Transport {
 public:
  SimBuses(const config::Config& config, SimControl* control, std::atomic<std::uint32_t>* motors)
      : config_(config),
        robot_(config),
        fake_(robot_.transport()),
        control_(control),
        motors_(motors),
        start_us_(NowMicros()) {}

  can::Transport& transport() override { return *this; }

  std::size_t bus_count() const override { return fake_.bus_count(); }
  std::size_t Send(std::span<const can::BusFrame> frames) override {
    const std::size_t sent = fake_.Send(frames);
    const std::int64_t now = NowMicros() - start_us_;
    robot_.Answer(now);
    RunFaultInjection(now);
    CountMotors();
    return sent;
  }
  std::size_t Receive(std::span<can::BusFrame> out) override { return fake_.Receive(out); }
  const can::BusCounters& counters(std::size_t bus) const override { return fake_.counters(bus); }
  const std::string& interface(std::size_t bus) const override { return fake_.interface(bus); }

 private:
  void RunFaultInjection(std::int64_t now) {
    std::unique_lock lock(control_->mutex, std::try_to_lock);
    if (!lock.owns_lock()) return;  // next tick
    for (const std::string& line : control_->lines) {
      const sim::ParseResult parsed = sim::ParseControlLine(line, config_);
      control_->replies.push_back(parsed.command ? robot_.robot().Execute(*parsed.command, now)
                                                 : "error: " + parsed.error);
    }
    control_->lines.clear();
  }

  void CountMotors() {
    std::uint32_t holding = 0, damped = 0, off = 0;
    for (std::size_t j = 0; j < robot_.robot().joint_count(); ++j) {
      const sim::SimMotorState s = robot_.robot().motor(j).state();
      if (!s.motor_mode)
        ++off;
      else if (s.kp > 0)
        ++holding;
      else
        ++damped;
    }
    motors_->store(holding | damped << 8 | off << 16, std::memory_order_relaxed);
  }

  const config::Config& config_;
  sim::InMemoryRobot robot_;
  can::FakeTransport& fake_;  // robot_'s
  SimControl* control_;
  std::atomic<std::uint32_t>* motors_;
  std::int64_t start_us_;
};

struct Args {
  std::string config, dir, web_root;
  bool live = true;  // --live no: robot-edge-live is not started (a test starts its own)
};

bool ParseArgs(int argc, char** argv, Args* args) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--config")
      args->config = argv[i + 1];
    else if (key == "--dir")
      args->dir = argv[i + 1];
    else if (key == "--web-root")
      args->web_root = argv[i + 1];
    else if (key == "--live")
      args->live = std::string(argv[i + 1]) != "no";
    else
      return false;
  }
  return !args->config.empty() && !args->dir.empty() && !args->web_root.empty();
}

// The main thread's: prints the motors' count when it changes and the fault injections' replies
// until `done`.
void Report(const std::atomic<std::uint32_t>& motors, SimControl* control,
            const std::atomic<bool>& done) {
  std::uint32_t shown = ~0u;
  while (!done) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (motors != shown) {
      shown = motors;
      std::printf("motors: %u holding, %u damped, %u off\n", shown & 0xff, shown >> 8 & 0xff,
                  shown >> 16);
    }
    std::lock_guard lock(control->mutex);
    for (const std::string& reply : control->replies) std::printf("sim: %s\n", reply.c_str());
    control->replies.clear();
    std::fflush(stdout);
  }
}

// robot-edge-live on `args` and the daemon's socket; its pid (also written to DIR/live.pid).
pid_t StartLiveView(const Args& args, const config::Config& config) {
  const std::string address = "127.0.0.1:" + std::to_string(config.live.port);
  const std::string socket = args.dir + "/api.sock";
  std::vector<std::string> argv = {ROBOT_EDGE_LIVE, "--config",   args.config,
                                   "--api-socket",  socket,       "--address",
                                   address,         "--web-root", args.web_root};
  if (!config.live.operator_token_path.empty()) {
    argv.insert(argv.end(), {"--operator-token-file", config.live.operator_token_path});
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<char*> c;
    for (std::string& a : argv) c.push_back(a.data());
    c.push_back(nullptr);
    ::execv(ROBOT_EDGE_LIVE, c.data());
    ::_exit(127);
  }
  std::ofstream(args.dir + "/live.pid") << pid << "\n";
  return pid;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!ParseArgs(argc, argv, &args)) {
    std::fprintf(stderr,
                 "usage: live_daemon_on_sim --config FILE --dir DIR --web-root DIR [--live no]\n");
    return 2;
  }
  spdlog::set_default_logger(spdlog::stderr_color_mt("robot-edged"));
  config::Config config;
  try {
    config = config::LoadConfig(args.config);
  } catch (const config::ConfigError& e) {
    std::fprintf(stderr, "live_daemon_on_sim: invalid configuration:\n%s\n", e.what());
    return 1;
  }
  config.live.port = static_cast<std::uint16_t>(robot_edge::test::FreePort());
  config.live.address = "127.0.0.1:" + std::to_string(config.live.port);
  config.live.host = "127.0.0.1";
  config.live.token_path.clear();
  const std::string operator_token = args.dir + "/operator.token";
  config.live.operator_token_path =
      ::access(operator_token.c_str(), F_OK) == 0 ? operator_token : "";
  config.live.web_root = args.web_root;
  config.recorder.directory_path = args.dir + "/recordings";

  const pid_t live = args.live ? StartLiveView(args, config) : -1;

  static SimControl control;  // static: the stdin thread may still wait on stdin after main
  std::atomic<std::uint32_t> motors{static_cast<std::uint32_t>(config.joints.size()) << 16};
  std::atomic<bool> done{false};
  std::thread report([&] { Report(motors, &control, done); });
  std::thread stdin_reader([] {
    std::string line;
    while (std::getline(std::cin, line)) {
      std::lock_guard lock(control.mutex);
      control.lines.push_back(line);
    }
    ::kill(::getpid(), SIGTERM);
  });
  stdin_reader.detach();  // it may still wait on stdin when main returns

  const int code = daemon::RunDaemon(
      config, daemon::DaemonOptions{args.dir + "/api.sock", "", ""},
      [&](const config::Config& c) { return std::make_unique<SimBuses>(c, &control, &motors); });
  done = true;
  report.join();
  if (live > 0 && ::kill(live, SIGTERM) == 0) ::waitpid(live, nullptr, 0);
  return code;
}
