#include "robot_rig.hpp"

#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "emulator_slack.hpp"
#include "mosquitto_broker.hpp"  // FreePort

namespace robot_edge::test {
namespace {

std::string Tail(const std::string& text, std::size_t lines) {
  std::size_t at = text.size();
  for (std::size_t n = 0; n <= lines && at > 0; ++n) at = text.rfind('\n', at - 1);
  return at == std::string::npos ? text : text.substr(at + 1);
}

}  // namespace

std::int64_t NowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// ---- BusMonitor ----

BusMonitor::BusMonitor(const config::Config& config) : config_(config) {
  can::SocketCanOptions options;
  std::set<std::uint32_t> ids;
  for (const auto& b : config.buses) options.interfaces.push_back(b.interface);
  for (const auto& j : config.joints) ids.insert(j.can_id);
  for (std::uint32_t id : ids) options.filters.push_back(can::ExactStandardId(id));
  options.receive_errors = false;
  options.receive_buffer_bytes = 8 << 20;
  transport_ = std::make_unique<can::SocketCanTransport>(io_, options);
  frames_.reserve(1 << 20);
  thread_ = std::thread([this] { Run(); });
}

BusMonitor::~BusMonitor() {
  stop_ = true;
  thread_.join();
}

void BusMonitor::Run() {
  std::vector<can::BusFrame> batch(256);
  pollfd pfd{transport_->socket().native_handle(), POLLIN, 0};
  while (!stop_) {
    ::poll(&pfd, 1, 5);
    const std::size_t n = transport_->Receive(batch);
    if (n == 0) continue;
    const std::int64_t t = NowUs();
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < n; ++i) {
      SeenFrame f{t, batch[i].bus, batch[i].frame.can_id & CAN_SFF_MASK, false};
      const std::span<const std::uint8_t> data(batch[i].frame.data, batch[i].frame.len);
      f.special = can::DecodeSpecial(data, &f.which);
      const int joint = JointOf(f);
      if (!f.special && joint >= 0) {
        can::DecodeCommand(
            data, can::ProtocolOf(config_.motor_of(static_cast<std::size_t>(joint))).ranges,
            &f.command);
      }
      frames_.push_back(f);
    }
  }
}

int BusMonitor::JointOf(const SeenFrame& f) const {
  for (std::size_t j = 0; j < config_.joints.size(); ++j) {
    if (config_.joints[j].bus == f.bus && config_.joints[j].can_id == f.can_id) {
      return static_cast<int>(j);
    }
  }
  return -1;
}

std::vector<SeenFrame> BusMonitor::Since(std::int64_t t_us) const {
  std::lock_guard lock(mutex_);
  std::vector<SeenFrame> out;
  for (auto it = frames_.rbegin(); it != frames_.rend() && it->t_us >= t_us; ++it) {
    out.push_back(*it);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::optional<SeenFrame> BusMonitor::WaitFor(std::int64_t t_us,
                                             const std::function<bool(const SeenFrame&)>& match,
                                             Millis timeout) const {
  std::optional<SeenFrame> found;
  Eventually(
      [&] {
        for (const SeenFrame& f : Since(t_us)) {
          if (match(f)) {
            found = f;
            return true;
          }
        }
        return false;
      },
      timeout);
  return found;
}

void BusMonitor::Forget(std::int64_t t_us) {
  std::lock_guard lock(mutex_);
  const auto first_kept = std::find_if(frames_.begin(), frames_.end(),
                                       [&](const SeenFrame& f) { return f.t_us >= t_us; });
  frames_.erase(frames_.begin(), first_kept);
}

// ---- NotifySocket ----

NotifySocket::NotifySocket(const std::string& path) : path_(path) {
  fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    throw std::runtime_error("cannot bind " + path + ": " + std::strerror(errno));
  }
}

NotifySocket::~NotifySocket() { ::close(fd_); }

std::vector<std::string> NotifySocket::Messages(Millis timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<Millis>(deadline - std::chrono::steady_clock::now());
    pollfd pfd{fd_, POLLIN, 0};
    if (::poll(&pfd, 1, static_cast<int>(std::max<long>(0, left.count()))) <= 0) break;
    char buffer[4096];
    const ssize_t n = ::recv(fd_, buffer, sizeof(buffer), 0);
    if (n > 0) received_.emplace_back(buffer, static_cast<std::size_t>(n));
  }
  return received_;
}

bool NotifySocket::WaitFor(const std::string& text, Millis timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    for (const auto& m : Messages(50ms)) {
      if (m.find(text) != std::string::npos) return true;
    }
  }
  return false;
}

std::size_t NotifySocket::Count(const std::string& text, Millis timeout) {
  std::size_t n = 0;
  for (const auto& m : Messages(timeout)) n += m.find(text) != std::string::npos ? 1 : 0;
  return n;
}

// ---- Robot ----

std::string Robot::ConfigText(RobotOptions options) {
  std::string yaml = ReadFile(ROBOT_EDGE_DEFAULT_CONFIG);
  if (options.emulator_slack) yaml = WithEmulatorSlack(yaml);
  // Each robot's own: its recordings beside its config, its live view on a free port (served by
  // robot-edge-live, started only with live_view).
  const std::string live_address =
      "127.0.0.1:" + std::to_string(options.live_view ? FreePort() : 0);
  options.config_edits.insert(
      options.config_edits.begin(),
      {{"directory: /var/lib/robot-edge/recordings", "directory: recordings"},
       {"address: 127.0.0.1:8765 ", "address: " + live_address + " "}});
  for (const auto& [from, to] : options.config_edits) {
    const auto at = yaml.find(from);
    if (at == std::string::npos) throw std::runtime_error("config edit: '" + from + "' not found");
    yaml.replace(at, from.size(), to);
  }
  return yaml;
}

Robot::Robot(RobotOptions options) {
  char tmpl[] = "/tmp/robot-edge-e2e.XXXXXX";
  dir_ = ::mkdtemp(tmpl);
  api_socket_ = dir_ + "/api.sock";
  sim_socket_ = dir_ + "/sim.sock";
  for (const auto& [name, content] : options.files) std::ofstream(dir_ + "/" + name) << content;
  const std::string config_path = dir_ + "/robot-edge.yaml";
  std::ofstream(config_path) << ConfigText(options);
  config_ = config::LoadConfig(config_path);

  notify_ = std::make_unique<NotifySocket>(dir_ + "/notify.sock");
  monitor_ = std::make_unique<BusMonitor>(config_);
  sim_ = std::make_unique<Child>(std::vector<std::string>{ROBOT_EDGE_SIM, "--config", config_path,
                                                          "--control", sim_socket_, "--quiet"},
                                 dir_ + "/sim");
  if (!Eventually([this] { return sim_->Stdout().find("ready") != std::string::npos; }, 20s)) {
    throw std::runtime_error("robot-edge-sim did not start:\n" + sim_->Stderr());
  }
  // As systemd's RuntimeDirectory=: where the daemon leaves its DAMP plan for ExecStopPost.
  std::vector<std::string> env = {"NOTIFY_SOCKET=" + notify_->path(), "RUNTIME_DIRECTORY=" + dir_};
  env.insert(env.end(), options.daemon_env.begin(), options.daemon_env.end());
  daemon_argv_ = {ROBOT_EDGED, "--config",    config_path, "--api-socket",
                  api_socket_, "--log-level", "debug"};
  daemon_env_ = env;
  daemon_ = std::make_unique<Child>(daemon_argv_, dir_ + "/daemon", env);
  if (!notify_->WaitFor("READY=1", 20s)) {
    throw std::runtime_error("robot-edged did not report READY=1:\n" + daemon_->Stderr());
  }
  if (!options.live_view) return;
  live_ = std::make_unique<Child>(std::vector<std::string>{ROBOT_EDGE_LIVE, "--config", config_path,
                                                           "--api-socket", api_socket_},
                                  dir_ + "/live");
  if (!Eventually(
          [this] { return live_->Stderr().find("connected to robot-edged") != std::string::npos; },
          20s)) {
    throw std::runtime_error("robot-edge-live did not connect:\n" + live_->Stderr());
  }
}

void Robot::DumpLogs() const {
  std::fprintf(stderr,
               "---- robot-edged log (tail) ----\n%s\n---- robot-edge-sim log (tail) ----\n%s\n",
               Tail(DaemonLog(), 60).c_str(), Tail(sim_->Stderr(), 20).c_str());
}

namespace {

// Each thread of `pid`: its name, state and the kernel function it waits in (a hung shutdown).
std::string ThreadStates(pid_t pid) {
  std::string out;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    const auto read = [&](const char* file) {
      std::ifstream in(task.path() / file);
      std::string text;
      std::getline(in, text);
      return text;
    };
    const std::string stat = read("stat");
    const std::size_t paren = stat.rfind(')');
    out +=
        "  " + task.path().filename().string() + " " + read("comm") + " state " +
        (paren != std::string::npos && paren + 2 < stat.size() ? stat.substr(paren + 2, 1) : "?") +
        " wchan " + read("wchan") + "\n";
  }
  return out;
}

}  // namespace

Robot::~Robot() {
  if (live_) live_->Stop(SIGTERM, 10s);
  StopDaemon(10s);
  sim_->Stop(SIGTERM, 10s);
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

client::Client Robot::Connect(const std::string& controller, std::uint32_t resume_after,
                              edge::Welcome* welcome) {
  auto c = client::Client::ConnectUnix(api_socket_, 5s);
  edge::Hello hello;
  hello.set_controller(controller);
  hello.set_want_command_results(true);
  hello.set_resume_after_event(resume_after);
  const edge::Welcome w = c.Hello(hello, 5s);
  if (welcome != nullptr) *welcome = w;
  return c;
}

std::string Robot::Sim(const std::string& line) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, sim_socket_.c_str(), sizeof(address.sun_path) - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return "error: cannot connect to the simulator";
  }
  const std::string request = line + "\n";
  [[maybe_unused]] const ssize_t w = ::write(fd, request.data(), request.size());
  std::string reply;
  pollfd pfd{fd, POLLIN, 0};
  char buffer[1024];
  while (reply.find('\n') == std::string::npos && ::poll(&pfd, 1, 5000) > 0) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n <= 0) break;
    reply.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (!reply.empty() && reply.back() == '\n') reply.pop_back();
  return reply;
}

std::string Robot::DaemonLog() const {
  std::string log = ReadFile(dir_ + "/daemon.err");
  for (int run = 2; std::filesystem::exists(dir_ + "/daemon-" + std::to_string(run) + ".err");
       ++run) {
    log += "---- robot-edged, run " + std::to_string(run) + " ----\n" +
           ReadFile(dir_ + "/daemon-" + std::to_string(run) + ".err");
  }
  return log;
}

void Robot::RestartLikeSystemd() {
  systemd_on_ = true;
  systemd_ = std::thread([this] {
    while (systemd_on_) {
      std::this_thread::sleep_for(20ms);
      std::unique_lock lock(daemon_mutex_);
      if (daemon_->Running()) continue;
      const int status = daemon_->Stop(0, 0s);
      daemon_exits_.push_back(status);
      if (status == 0) break;  // Restart=on-failure: a clean stop stays stopped
      lock.unlock();
      std::this_thread::sleep_for(1s);  // RestartSec=1
      lock.lock();
      if (!systemd_on_) break;
      daemon_ = std::make_unique<Child>(
          daemon_argv_, dir_ + "/daemon-" + std::to_string(++daemon_runs_), daemon_env_);
    }
  });
}

void Robot::SignalDaemon(int signal) {
  std::lock_guard lock(daemon_mutex_);
  if (daemon_->Running()) ::kill(daemon_->pid(), signal);
}

void Robot::StartDaemonAgain() {
  std::lock_guard lock(daemon_mutex_);
  const std::size_t ready_before = notify_->Count("READY=1");
  daemon_ = std::make_unique<Child>(
      daemon_argv_, dir_ + "/daemon-" + std::to_string(++daemon_runs_), daemon_env_);
  if (!Eventually([&] { return notify_->Count("READY=1") > ready_before; }, 20s)) {
    throw std::runtime_error("robot-edged did not report READY=1 again:\n" + daemon_->Stderr());
  }
}

client::Client Robot::ConnectWhenUp(const std::string& controller, Millis timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    try {
      return Connect(controller);
    } catch (const std::exception& e) {
      if (std::chrono::steady_clock::now() > until) {
        throw std::runtime_error(std::string("robot-edged did not come back: ") + e.what());
      }
      std::this_thread::sleep_for(100ms);
    }
  }
}

std::vector<int> Robot::DaemonExits() {
  std::lock_guard lock(daemon_mutex_);
  return daemon_exits_;
}

int Robot::StopDaemon(Millis timeout, int signal) {
  systemd_on_ = false;
  if (systemd_.joinable()) systemd_.join();
  if (daemon_->Running()) {
    ::kill(daemon_->pid(), signal);
    if (!Eventually([this] { return !daemon_->Running(); }, timeout)) {
      std::fprintf(stderr, "robot-edged did not exit within %lld ms of signal %d; its threads:\n%s",
                   static_cast<long long>(timeout.count()), signal,
                   ThreadStates(daemon_->pid()).c_str());
      daemon_->Stop(SIGKILL, 1s);
      return -1;
    }
  }
  return daemon_->Stop(0, 0s);
}

std::vector<std::string> Robot::ExecStopPost() const {
  std::ifstream unit(ROBOT_EDGE_UNIT);
  std::string line;
  while (std::getline(unit, line)) {
    if (line.rfind("ExecStopPost=", 0) != 0) continue;
    std::istringstream words(line.substr(13));
    std::vector<std::string> argv;
    for (std::string w; words >> w;) argv.push_back(w);
    if (argv.empty() || argv[0].find("robot-edged") == std::string::npos) return {};
    argv[0] = ROBOT_EDGED;
    for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
      if (argv[i] == "--config") argv[i + 1] = dir_ + "/robot-edge.yaml";
    }
    return argv;
  }
  return {};
}

int Robot::RunExecStopPost(std::string* output) {
  const std::vector<std::string> argv = ExecStopPost();
  if (argv.empty()) throw std::runtime_error(std::string(ROBOT_EDGE_UNIT) + ": no ExecStopPost");
  Child post(argv, dir_ + "/exec-stop-post", {"RUNTIME_DIRECTORY=" + dir_});
  const int status = post.Wait(10s);
  if (output != nullptr) *output = post.Stderr();
  return status;
}

// ---- Helpers ----

pid_t ThreadId(pid_t pid, const std::string& name) {
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& entry : std::filesystem::directory_iterator(tasks)) {
    std::string comm = ReadFile(entry.path().string() + "/comm");
    while (!comm.empty() && comm.back() == '\n') comm.pop_back();
    if (comm == name) return std::stoi(entry.path().filename().string());
  }
  throw std::runtime_error("no thread '" + name + "' in process " + std::to_string(pid));
}

StoppedThread::StoppedThread(pid_t pid, const std::string& name) : tid_(ThreadId(pid, name)) {
  if (::ptrace(PTRACE_SEIZE, tid_, nullptr, nullptr) != 0 ||
      ::ptrace(PTRACE_INTERRUPT, tid_, nullptr, nullptr) != 0) {
    throw std::runtime_error("ptrace(" + name + "): " + std::strerror(errno));
  }
  int status = 0;
  ::waitpid(tid_, &status, __WALL);  // stopped
}

StoppedThread::~StoppedThread() { ::ptrace(PTRACE_DETACH, tid_, nullptr, nullptr); }

namespace {

// The next sequence of the test process: one counter for every kind of command and every client
// (each client sees it increase, whatever it sends).
std::uint32_t NextSequence() {
  static std::atomic<std::uint32_t> sequence{1000};
  return ++sequence;
}

// Sequence and timestamp of a command, where the caller left them 0.
template <typename Message>
Message StampedCommand(Message command) {
  if (command.sequence() == 0) command.set_sequence(NextSequence());
  if (command.timestamp_us() == 0) command.set_timestamp_us(client::WallClockMicros());
  return command;
}

template <typename Message>
edge::CommandResult SendAndWait(client::Client& c, Message command, Millis timeout) {
  command = StampedCommand(std::move(command));
  c.Send(command);
  const auto result = c.WaitCommandResult(command.sequence(), timeout);
  if (!result) {
    edge::CommandResult none;
    none.set_reason("no CommandResult within the timeout");
    return none;
  }
  return *result;
}

}  // namespace

edge::CloudCommand Stamped(edge::CloudCommand command) {
  return StampedCommand(std::move(command));
}

edge::JointCommand Stamped(edge::JointCommand command) {
  return StampedCommand(std::move(command));
}

edge::CommandResult Command(client::Client& c, edge::CloudCommand command, Millis timeout) {
  return SendAndWait(c, std::move(command), timeout);
}

edge::CommandResult Command(client::Client& c, edge::JointCommand command, Millis timeout) {
  return SendAndWait(c, std::move(command), timeout);
}

bool StandWithin(client::Client& c, Millis timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!Command(c, Mode(edge::MODE_STAND)).accepted()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(100ms);
  }
  return true;
}

std::optional<edge::EdgeTelemetry> WaitTelemetry(
    client::Client& c, const std::function<bool(const edge::EdgeTelemetry&)>& match,
    Millis timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto left =
        std::chrono::duration_cast<Millis>(deadline - std::chrono::steady_clock::now());
    const auto t = c.WaitTelemetry(left);
    if (t && match(*t)) return t;
  }
  return std::nullopt;
}

std::optional<edge::EdgeEvent> WaitEvent(client::Client& c,
                                         const std::function<bool(const edge::EdgeEvent&)>& match,
                                         Millis timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto left =
        std::chrono::duration_cast<Millis>(deadline - std::chrono::steady_clock::now());
    const auto e = c.WaitEvent(left);
    if (e && match(*e)) return e;
  }
  return std::nullopt;
}

std::optional<edge::EdgeEvent> WaitError(client::Client& c, const std::string& code,
                                         Millis timeout) {
  return WaitEvent(
      c, [&](const edge::EdgeEvent& e) { return e.has_error() && e.error().code() == code; },
      timeout);
}

namespace {

std::optional<edge::ServerMessage> WaitMessage(
    client::Client& c, edge::ServerMessage::MsgCase kind,
    const std::function<bool(const edge::ServerMessage&)>& match, Millis timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto left =
        std::chrono::duration_cast<Millis>(deadline - std::chrono::steady_clock::now());
    const auto m = c.ReadUntil(kind, left);
    if (m && match(*m)) return m;
  }
  return std::nullopt;
}

}  // namespace

std::optional<edge::ServerMessage> WaitTelemetryMessage(
    client::Client& c, const std::function<bool(const edge::ServerMessage&)>& match,
    Millis timeout) {
  return WaitMessage(c, edge::ServerMessage::kTelemetry, match, timeout);
}

std::optional<edge::ServerMessage> WaitDiagnostics(
    client::Client& c, Millis timeout,
    const std::function<bool(const edge::ServerMessage&)>& match) {
  return WaitMessage(
      c, edge::ServerMessage::kEvent,
      [&](const edge::ServerMessage& m) {
        return m.event().has_diagnostics() && (match == nullptr || match(m));
      },
      timeout);
}

std::vector<float> StandPose(const config::Config& c) {
  std::vector<float> pose;
  for (const auto& j : c.joints) pose.push_back(static_cast<float>(j.stand_rad));
  return pose;
}

edge::CloudCommand Mode(edge::Mode m) {
  edge::CloudCommand c;
  c.mutable_mode()->set_mode(m);
  return c;
}

edge::CloudCommand Velocity(float vx, float vy, float vyaw) {
  edge::CloudCommand c;
  c.mutable_velocity()->set_vx(vx);
  c.mutable_velocity()->set_vy(vy);
  c.mutable_velocity()->set_vyaw(vyaw);
  return c;
}

edge::CloudCommand Trajectory(const std::vector<float>& pose, const std::vector<float>& kp,
                              const std::vector<float>& kd) {
  edge::CloudCommand c;
  auto* seg = c.mutable_trajectory()->mutable_full()->add_segments();
  for (float p : pose) seg->add_positions(p);
  for (float k : kp) seg->add_kp(k);
  for (float k : kd) seg->add_kd(k);
  return c;
}

bool MotorsReady(client::Client& c, Millis timeout) {
  return WaitTelemetry(
             c, [](const auto& msg) { return msg.fw_age_ms() < 100; }, timeout)
      .has_value();
}

RobotOptions WithPhysics(RobotOptions options) {
  options.config_edits.push_back({"physics: kinematic", "physics: mujoco"});
  options.config_edits.push_back({"gantry_height_m: 0 ", "gantry_height_m: 1.0 "});
  return options;
}

namespace {

// The number after " KEY=" in `line` (its `index`-th when comma-separated); NAN when absent.
double TruthField(const std::string& line, const std::string& key, int index = 0) {
  std::size_t at = line.find(" " + key + "=");
  if (at == std::string::npos) return NAN;
  at += key.size() + 2;
  for (int i = 0; i < index; ++i) at = line.find(',', at) + 1;
  return std::strtod(line.c_str() + at, nullptr);
}

}  // namespace

Truth GetTruth(Robot& robot) {
  const std::string line = robot.Sim("truth");
  if (line.rfind("ok ", 0) != 0) throw std::runtime_error("sim truth: " + line);
  Truth t;
  t.base_vz = TruthField(line, "vel", 2);
  t.torso_height_m = TruthField(line, "torso_height");
  t.tilt_deg = TruthField(line, "tilt");
  t.feet = static_cast<int>(TruthField(line, "feet"));
  return t;
}

std::string StandOnTheFloor(Robot& robot, client::Client& c) {
  if (!MotorsReady(c)) return "the motors never all replied";
  const edge::CommandResult r = Command(c, Mode(edge::MODE_STAND));
  if (!r.accepted()) return "STAND refused: " + r.reason();
  std::this_thread::sleep_for(2500ms);  // the 2 s ramp, hanging
  if (const std::string g = robot.Sim("gantry 0.62"); g.rfind("ok", 0) != 0) return g;
  std::this_thread::sleep_for(2s);  // lowered at 0.25 m/s
  if (const std::string g = robot.Sim("gantry off"); g != "ok gantry released") return g;
  std::this_thread::sleep_for(1s);
  return {};
}

Posture PostureOf(const Truth& t, double standing_m, double fall_tilt_deg) {
  if (t.tilt_deg >= fall_tilt_deg) return Posture::kFallen;
  return t.torso_height_m >= 0.9 * standing_m ? Posture::kOnItsFeet : Posture::kSitting;
}

const char* NameOf(Posture p) {
  switch (p) {
    case Posture::kOnItsFeet: return "on its feet";
    case Posture::kSitting: return "sitting";
    case Posture::kFallen: return "fallen";
  }
  return "?";
}

}  // namespace robot_edge::test
