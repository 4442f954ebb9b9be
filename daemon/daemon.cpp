#include "daemon/daemon.hpp"

#include <pthread.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/signal_set.hpp>
#include <asio/steady_timer.hpp>
#include <csignal>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "access/tokens.hpp"
#include "can/frame_tap.hpp"
#include "can/motor_timeouts.hpp"
#include "can/socketcan/link_supervisor.hpp"
#include "can/socketcan/socketcan_transport.hpp"
#include "config/library_options.hpp"
#include "daemon/api/access.hpp"
#include "daemon/api/apply_config.hpp"
#include "daemon/api/bus_health.hpp"
#include "daemon/api/flight_recorder.hpp"
#include "daemon/api/hub.hpp"
#include "daemon/api/listener.hpp"
#include "daemon/api/stop_latch_file.hpp"
#include "daemon/bus_lock.hpp"
#include "daemon/channels/injected_throw.hpp"
#include "daemon/control/control_loop.hpp"
#include "daemon/control/fatal_signals.hpp"
#include "daemon/control/realtime.hpp"
#include "daemon/damp_plan.hpp"
#include "daemon/notify.hpp"
#include "daemon/supervisor.hpp"
#include "policy/load.hpp"

namespace robot_edge::daemon {
namespace {

// How often the API thread stamps its heartbeat for the supervisor.
constexpr auto kHeartbeatPeriod = std::chrono::milliseconds(100);

// The configured SocketCAN interfaces, claimed before any of them is touched (another daemon's
// buses are left alone).
class CanBuses final : public Buses {
 public:
  explicit CanBuses(const config::Config& config) {
    for (const auto& bus : config.buses) locks_.Claim(bus.interface);
    can::SocketCanOptions options;
    for (const auto& bus : config.buses) {
      auto link = std::make_unique<can::CanLink>(bus.interface, bus);
      link->Configure();  // bitrate / restart-ms on real CAN; a no-op on vcan
      links_.push_back(std::move(link));
      options.interfaces.push_back(bus.interface);
    }
    options.filters = can::ReceiveFilters(config::WiringOf(config));
    transport_ = std::make_unique<can::SocketCanTransport>(io_, options);
    for (const auto& bus : config.buses) spdlog::info("bus {} on {} open", bus.name, bus.interface);
  }

  can::Transport& transport() override { return *transport_; }
  std::vector<std::unique_ptr<can::CanLink>> TakeLinks() override { return std::move(links_); }
  int emergency_socket() const override { return transport_->socket().native_handle(); }

 private:
  BusLocks locks_;
  std::vector<std::unique_ptr<can::CanLink>> links_;
  asio::io_context io_;  // hosts the CAN sockets; never run (the control thread polls them)
  std::unique_ptr<can::SocketCanTransport> transport_;
};

// Everything robot-edged owns, in the order it is built (and the reverse it is torn down).
class Daemon {
 public:
  Daemon(const config::Config& config, const DaemonOptions& options, const BusOpener& open_buses)
      : config_(config),
        options_(options),
        open_buses_(open_buses),
        signals_(io_, SIGINT, SIGTERM, SIGHUP),
        heartbeat_(io_) {}

  ~Daemon() {
    UninstallFatalSignalDamp();  // before the CAN socket closes
    if (wake_fd_ >= 0) ::close(wake_fd_);
  }

  // Start-up: throws with a clear message on anything that prevents running.
  void Start() {
    if (const std::string cue = ArmInjectedThrow(); !cue.empty()) {
      spdlog::warn("fault injection armed: a thread named in {} will throw (a test build only)",
                   cue);
    }
    access_ = std::make_unique<AccessPolicy>(AccessPolicy::Load(config_, ::getuid()));
    for (const std::string& w : access_->warnings()) spdlog::warn("{}", w);
    if (config_.policy.enabled) {  // the model was checked with the config; loaded again here
      policy_ = policy::MakePolicyRunner(config::PolicySetupOf(config_));
      spdlog::info("policy {}: {}", config_.policy.model_path, policy_->Describe());
    }
    buses_ = open_buses_(config_);
    TellMotorsTheirCanTimeouts();
    if (buses_->emergency_socket() >= 0) {
      std::vector<std::string> missing;  // none: every bus is open
      InstallFatalSignalDamp(buses_->emergency_socket(),
                             can::EmergencyFrames(config::WiringOf(config_), &missing),
                             config_.joints.size());
    }
    WriteDampPlanFile();
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) throw std::runtime_error("eventfd failed");
    channels_ = std::make_unique<ControlChannels>(config_, /*command_slots=*/32, /*events=*/4096);
    channels_->wake_fd = wake_fd_;
    loop_ =
        std::make_unique<ControlLoop>(config_, ControlTransport(), policy_.get(), channels_.get());
    bus_health_ = std::make_unique<BusHealth>(config_, buses_->transport(), &loop_->scheduler(),
                                              buses_->TakeLinks());
    live_url_ = LiveUrl(config_.live);
    recorder_ =
        std::make_unique<FlightRecorder>(config_, channels_.get(), kVersion, can_tap_.get());
    hub_ =
        std::make_unique<Hub>(io_, config_, channels_.get(), bus_health_.get(), ::dup(wake_fd_),
                              kVersion, access_.get(), policy_.get(), recorder_.get(), live_url_);
    RestoreStopLatch();
    hub_->SetRestartToApply([this] {
      asio::post(io_, [this] {  // after the answer is queued: Shutdown() flushes it
        exit_code_ = kExitRestartToApply;
        Shutdown("restart to apply the configuration");
      });
    });
    listener_ = std::make_unique<Listener>(
        io_, [hub = hub_.get()](Stream s, Peer p) { hub->Accept(std::move(s), std::move(p)); });
    const std::string socket =
        options_.api_socket.empty() ? config_.api.unix_socket : options_.api_socket;
    if (!socket.empty()) listener_->ListenUnix(socket);
    if (!config_.api.tcp.empty()) {
      std::vector<std::string> tls_warnings;
      auto tls = ApiTlsContext(config_, &tls_warnings);
      for (const std::string& w : tls_warnings) spdlog::warn("{}", w);
      if (!tls && config_.api.allow_plaintext) {
        spdlog::warn("api.allow_plaintext: TCP clients' tokens and commands travel in clear");
      }
      listener_->ListenTcp(config_.api.tcp_host, config_.api.tcp_port, std::move(tls));
    }

    signals_.async_wait([this](const std::error_code& ec, int signal) {
      if (!ec) Shutdown(strsignal(signal));
    });
    for (const std::string& w : recorder_->Start()) spdlog::warn("{}", w);
    control_thread_ = std::thread([this] { ControlThread(); });
    pthread_setname_np(control_thread_.native_handle(), "re-control");
    if (policy_) policy_->Start();
    hub_->Start();
    notifier_.Ready("controlling " + std::to_string(config_.joints.size()) + " joints on " +
                    std::to_string(config_.buses.size()) + " buses");
    StampHeartbeat();
    // After READY=1: systemd expects no WATCHDOG=1 before it.
    // The stall DAMP needs the fatal-signal frames and socket (real CAN buses only).
    const std::int64_t stall_us =
        buses_->emergency_socket() >= 0 ? std::int64_t{config_.safety.control_stall_ms} * 1000 : 0;
    supervisor_ = std::make_unique<Supervisor>(*loop_, channels_.get(), &notifier_,
                                               &api_heartbeat_us_, stall_us);
    supervisor_->Start();
    spdlog::info("robot-edged {} ready: {} joints on {} buses at {} Hz", kVersion,
                 config_.joints.size(), config_.buses.size(), config_.control.rate_hz);
  }

  // The API thread until shutdown. Returns false when a thread failed (an exception: a bug); the
  // motors have then been sent DAMP and taken out of motor mode as on SIGTERM.
  bool Run() {
    try {
      io_.run();
    } catch (const std::exception& e) {
      spdlog::critical("API thread failed: {}", e.what());
      failed_ = true;
      StopControl();
    }
    return !failed_;
  }
  // After a clean Run(): 0, or kExitRestartToApply when an ApplyConfigRequest ended it.
  int exit_code() const { return exit_code_; }

 private:
  // Damiao and Robstride motors are told their own CAN-loss timeout (can/motor_timeouts.hpp).
  // A motor that does not confirm it is named; the daemon runs on (it may be powered later).
  void TellMotorsTheirCanTimeouts() {
    constexpr std::int64_t kWaitUs = 200'000;
    const can::Wiring wiring = config::WiringOf(config_);
    const auto results = can::SetMotorCanTimeouts(wiring, buses_->transport(), kWaitUs);
    std::size_t confirmed = 0;
    for (const auto& r : results) {
      if (r.confirmed()) {
        ++confirmed;
      } else {
        spdlog::warn("{}", can::Describe(wiring, r));
      }
    }
    if (!results.empty()) {
      spdlog::info("CAN-loss timeout set and read back on {} of {} motors", confirmed,
                   results.size());
    }
  }

  // The transport the control thread drives: the buses, through a tap that copies every frame
  // for the recorder when recorder.channels lists "can" (2 s of frames queued: 2 per joint per
  // tick, and a margin for the IMU and the battery).
  can::Transport& ControlTransport() {
    const auto& channels = config_.recorder.channels;
    if (std::find(channels.begin(), channels.end(), "can") == channels.end())
      return buses_->transport();
    const std::size_t per_tick = 2 * config_.joints.size() + 8;
    can_tap_ = std::make_unique<can::FrameTap>(
        buses_->transport(), static_cast<std::size_t>(2 * config_.control.rate_hz) * per_tick,
        &SteadyMicros);
    return *can_tap_;
  }

  void ControlThread() {
    ProvideAltStack();
    for (const std::string& refused : ApplyRealtime(config_.realtime)) spdlog::warn("{}", refused);
    if (const auto w = NotRealtimeWarning(config_.safety.control_stall_ms)) spdlog::warn("{}", *w);
    try {
      loop_->Run();
    } catch (const std::exception& e) {  // never by design; if it happens, leave the robot safe
      spdlog::critical("control thread failed: {}: DAMP on every motor, then exiting", e.what());
      try {
        loop_->Shutdown(SteadyMicros());
      } catch (const std::exception&) {
      }
      asio::post(io_, [this] {
        failed_ = true;
        Shutdown("control thread failure");
      });
    }
  }

  void StopControl() {
    loop_->RequestStop();
    if (control_thread_.joinable()) control_thread_.join();
    if (policy_) policy_->Stop();
  }

  // The frames --emergency-damp (ExecStopPost) sends once this process is gone, whatever the
  // config has become by then. Not fatal: that command falls back to the config.
  // A stop latched before this start (a crash, a kill, a restart, a boot) is in force again.
  void RestoreStopLatch() {
    const std::string& path = options_.stop_latch_path;
    if (path.empty()) return;
    std::string problem;
    std::optional<sm::StopLatch> kept = ReadStopLatch(path, &problem);
    if (!problem.empty()) spdlog::error("stop record {}: {}", path, problem);
    // A record that cannot be written could not have been either: a stop may be in force.
    if (const std::string unwritable = StopLatchDirectoryProblem(path); !unwritable.empty()) {
      spdlog::error("stop record {}: {}: starting latched (robot-edgectl release-stop lifts it)",
                    path, unwritable);
      if (!kept) {
        kept.emplace();
        kept->latched = true;
        kept->stopped_by = sm::MakeSenderLabel("robot-edged: its stop record cannot be kept");
      }
    }
    if (kept) {
      loop_->RestoreStopLatch(*kept);
      spdlog::warn("a stop latched before this start holds (by {}): {}", kept->stopped_by.data(),
                   StopLatchedRefusal(*kept));
    }
    hub_->KeepStopLatch(path, kept.value_or(sm::StopLatch{}));
  }

  void WriteDampPlanFile() {
    const std::string& path = options_.damp_plan_path;
    if (path.empty()) return;
    const DampPlan plan{std::string("robot-edged ") + kVersion + " pid " +
                            std::to_string(::getpid()) + " config " + config_.source,
                        can::DampPlanOf(config::WiringOf(config_))};
    const std::string error = WriteDampPlan(path, plan);
    if (error.empty()) {
      spdlog::info("DAMP plan for --emergency-damp written to {}", path);
    } else {
      spdlog::warn("no DAMP plan for --emergency-damp ({}): it will read the config", error);
    }
  }

  // The API thread's sign of life for the supervisor (which feeds systemd's watchdog).
  void StampHeartbeat() {
    api_heartbeat_us_.store(SteadyMicros(), std::memory_order_relaxed);
    heartbeat_.expires_after(kHeartbeatPeriod);
    heartbeat_.async_wait([this](const std::error_code& ec) {
      // Not after Shutdown(): a handler already queued when it cancelled the timer still gets
      // success, and re-arming would keep io_.run() from ever returning (a hung SIGTERM).
      if (!ec && !shutting_down_) StampHeartbeat();
    });
  }

  void Shutdown(const char* why) {
    spdlog::info("{}: shutting down: DAMP on every motor, then out of motor mode", why);
    shutting_down_ = true;
    if (supervisor_) supervisor_->Stop();
    notifier_.Stopping();
    listener_->Close();
    StopControl();
    hub_->Stop("robot-edged is shutting down");
    recorder_->Stop();  // the recording closed, a pending black box written
    heartbeat_.cancel();
    signals_.cancel();  // its wait is still pending when a thread's failure shut it down
    // io_.run() returns once the last Goodbye is written.
  }

 public:
  void JoinControlThread() {
    if (supervisor_) supervisor_->Stop();
    if (control_thread_.joinable()) {
      loop_->RequestStop();
      control_thread_.join();
    }
  }

 private:
  const config::Config& config_;
  DaemonOptions options_;
  const BusOpener& open_buses_;
  asio::io_context io_;
  asio::signal_set signals_;
  asio::steady_timer heartbeat_;
  bool shutting_down_ = false;  // API thread only
  std::atomic<std::int64_t> api_heartbeat_us_{0};
  SystemdNotifier notifier_;
  std::unique_ptr<Buses> buses_;
  std::unique_ptr<can::FrameTap> can_tap_;  // between the loop and the buses: the /can channel
  int wake_fd_ = -1;
  std::unique_ptr<AccessPolicy> access_;
  std::unique_ptr<policy::PolicyRunner> policy_;  // null without a policy; outlives loop_, hub_
  std::unique_ptr<ControlChannels> channels_;
  std::unique_ptr<ControlLoop> loop_;
  std::unique_ptr<BusHealth> bus_health_;
  std::string live_url_;  // Welcome.live_url: robot-edge-live's, from the config ("" = none)
  std::unique_ptr<FlightRecorder> recorder_;
  std::unique_ptr<Hub> hub_;
  std::unique_ptr<Listener> listener_;
  std::unique_ptr<Supervisor> supervisor_;
  std::thread control_thread_;
  bool failed_ = false;  // API thread only
  int exit_code_ = 0;    // API thread only
};

}  // namespace

std::string LiveUrl(const config::LiveConfig& live) {
  if (live.address.empty() || live.port == 0) return "";
  const std::string host = live.host == "localhost" ? "127.0.0.1" : live.host;
  const bool v6 = host.find(':') != std::string::npos;
  return (live.tls.enabled() ? "https://" : "http://") + (v6 ? "[" + host + "]" : host) + ":" +
         std::to_string(live.port) + "/";
}

std::unique_ptr<Buses> OpenCanBuses(const config::Config& config) {
  return std::make_unique<CanBuses>(config);
}

int RunDaemon(const config::Config& config, const DaemonOptions& options,
              const BusOpener& open_buses) {
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);  // a recording past a file size limit: EFBIG, not a death
  ProvideAltStack();
  Daemon daemon(config, options, open_buses);
  try {
    daemon.Start();
  } catch (const std::exception& e) {
    spdlog::critical("cannot start: {}", e.what());
    daemon.JoinControlThread();
    return 1;
  }
  const bool ok = daemon.Run();
  daemon.JoinControlThread();
  spdlog::info("robot-edged stopped{}", ok ? "" : " after a failure");
  if (ok && daemon.exit_code() == kExitRestartToApply) {
    spdlog::info("exit status {}: systemd restarts robot-edged on the new configuration",
                 kExitRestartToApply);
  }
  return ok ? daemon.exit_code() : 1;
}

}  // namespace robot_edge::daemon
