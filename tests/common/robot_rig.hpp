// The robot of the end-to-end tests and benchmarks: robot-edge-sim and robot-edged as real
// processes on real vcan buses (run inside tests/vcan/run), clients on the daemon's real socket,
// a monitor that records every command frame on the buses, and the simulator's fault-injection
// socket. No test framework: tests/e2e and bench/ both use it.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "can/mit_codec.hpp"
#include "can/motor_scheduler.hpp"
#include "can/socketcan/socketcan_transport.hpp"
#include "child_process.hpp"
#include "client/client.hpp"
#include "config/config.hpp"

namespace robot_edge::test {

using namespace std::chrono_literals;
using Millis = std::chrono::milliseconds;

std::int64_t NowUs();  // steady clock

// A command frame seen on a bus, decoded with the motor's ranges.
struct SeenFrame {
  std::int64_t t_us;
  std::uint32_t bus;
  std::uint32_t can_id;
  bool special;                 // FF..FC / FD / FE
  can::SpecialCommand which{};  // when special
  can::MitCommand command{};    // when not special
};

// Records every frame sent to a motor (ids 1..0x7FF except master ids) on every configured bus,
// from a thread of its own, with the time it was read.
class BusMonitor {
 public:
  explicit BusMonitor(const config::Config& config);
  ~BusMonitor();
  std::vector<SeenFrame> Since(std::int64_t t_us) const;
  // The joint a frame is for, or -1.
  int JointOf(const SeenFrame& f) const;
  // Waits until some frame recorded after `t_us` satisfies `match`; returns it.
  std::optional<SeenFrame> WaitFor(std::int64_t t_us,
                                   const std::function<bool(const SeenFrame&)>& match,
                                   Millis timeout) const;
  // Forgets the frames recorded before `t_us` (a long benchmark would keep gigabytes).
  void Forget(std::int64_t t_us);

 private:
  void Run();
  const config::Config& config_;
  asio::io_context io_;
  std::unique_ptr<can::SocketCanTransport> transport_;
  mutable std::mutex mutex_;
  std::vector<SeenFrame> frames_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// The datagram socket a daemon's sd_notify writes to (NOTIFY_SOCKET).
class NotifySocket {
 public:
  explicit NotifySocket(const std::string& path);
  ~NotifySocket();
  const std::string& path() const { return path_; }
  // Every datagram received so far plus those arriving within `timeout`, in order.
  std::vector<std::string> Messages(Millis timeout);
  bool WaitFor(const std::string& text, Millis timeout);
  // How many datagrams so far (and within `timeout`) contain `text`.
  std::size_t Count(const std::string& text, Millis timeout = Millis(50));

 private:
  std::string path_;
  int fd_ = -1;
  std::vector<std::string> received_;
};

// Options of one robot: the default config with some text replaced.
struct RobotOptions {
  std::vector<std::pair<std::string, std::string>> config_edits;  // {from, to} in the YAML text
  std::vector<std::string> daemon_env;                            // e.g. "WATCHDOG_USEC=200000"
  // {name, content} written beside the config (token files)
  std::vector<std::pair<std::string, std::string>> files = {};
  // user-mode-linux on a busy host can hold a process for 100 ms and more: the timeouts of
  // scripts/emulator-slack.tsv get room for that (IMU, motor reply, control stall, loop-rate
  // floor), so that a test is not failed by the emulator. The trajectory session timeout
  // (200 ms) is never changed.
  bool emulator_slack = true;
  // The live view: robot-edge-live started beside the daemon (its own process, an observer of
  // the API), on a free port that the config's live.address then names (Welcome.live_url).
  bool live_view = false;
};

// The simulated robot and the daemon driving it, started fresh for one test. Built from the
// default config (config/robot-edge.yaml) with RobotOptions' edits; the programs are the build's.
class Robot {
 public:
  explicit Robot(RobotOptions options = {});
  virtual ~Robot();
  Robot(const Robot&) = delete;
  Robot& operator=(const Robot&) = delete;

  // The last lines of both programs' logs, on stderr (a test that failed shows them).
  void DumpLogs() const;
  // The YAML a robot with `options` runs: the default config with the emulator's slack and the
  // edits.
  static std::string ConfigText(RobotOptions options);

  const config::Config& config() const { return config_; }
  const std::string& api_socket() const { return api_socket_; }
  // The config is dir()/robot-edge.yaml; dir() is also the daemon's RUNTIME_DIRECTORY (its DAMP
  // plan, dir()/damp-plan).
  const std::string& dir() const { return dir_; }
  BusMonitor& monitor() { return *monitor_; }
  NotifySocket& notify() { return *notify_; }

  // A connected client: controller "" = observer; results requested.
  client::Client Connect(const std::string& controller, std::uint32_t resume_after = 0,
                         edge::Welcome* welcome = nullptr);
  // One line to the simulator's control socket; returns its reply ("ok ..." / "error: ...").
  std::string Sim(const std::string& line);
  // `signal` to the daemon; its exit code, or -1 when it was still running after `timeout` (its
  // threads' states are printed, then it is killed).
  int StopDaemon(Millis timeout = 10s, int signal = SIGTERM);
  bool DaemonRunning() { return daemon_->Running(); }
  pid_t daemon_pid() const { return daemon_->pid(); }
  pid_t sim_pid() const { return sim_->pid(); }
  // Every run's log, oldest first (RestartLikeSystemd() may have started several).
  std::string DaemonLog() const;
  // From now on the rig restarts robot-edged as its unit (systemd/robot-edge.service) would:
  // Restart=on-failure, RestartSec=1, RestartForceExitStatus=75. A daemon that exits with a
  // status other than 0 is started again 1 s later, with the same command line and config path,
  // by a thread of the rig's, until StopDaemon(). Not for tests that use daemon_pid().
  void RestartLikeSystemd();
  // The exit statuses of the daemons that ended under RestartLikeSystemd(), in order.
  std::vector<int> DaemonExits();
  // `signal` to the daemon running now, also under RestartLikeSystemd() (which then restarts it
  // when it dies of it).
  void SignalDaemon(int signal);
  // After StopDaemon(): starts robot-edged again as `systemctl start` would (same command line,
  // config and directories); returns once it reported READY=1 again (throws after 20 s).
  void StartDaemonAgain();
  // A client connected as `controller` once the daemon accepts connections again (after a
  // restart), within `timeout`; throws after it.
  client::Client ConnectWhenUp(const std::string& controller, Millis timeout = 20s);
  // robot-edge-live's log ("" without RobotOptions::live_view).
  std::string LiveLog() const { return live_ ? live_->Stderr() : ""; }
  std::string SimLog() const { return sim_->Stderr(); }

  // The unit's ExecStopPost= command line (systemd/robot-edge.service of the build), with the
  // installed paths replaced by the build's binary and this robot's config; empty when the unit
  // has none.
  std::vector<std::string> ExecStopPost() const;
  // Runs it as systemd does once the main process is gone, with the daemon's RUNTIME_DIRECTORY;
  // its exit code (`output`: its stderr).
  int RunExecStopPost(std::string* output = nullptr);

 private:
  std::string dir_;
  std::string api_socket_;
  std::string sim_socket_;
  config::Config config_;
  std::unique_ptr<NotifySocket> notify_;
  std::unique_ptr<Child> sim_;
  std::unique_ptr<BusMonitor> monitor_;
  std::unique_ptr<Child> daemon_;  // under daemon_mutex_ while systemd_ runs
  std::vector<std::string> daemon_argv_, daemon_env_;
  std::mutex daemon_mutex_;
  std::thread systemd_;  // RestartLikeSystemd()
  std::atomic<bool> systemd_on_{false};
  std::vector<int> daemon_exits_;  // under daemon_mutex_
  int daemon_runs_ = 1;            // under daemon_mutex_
  std::unique_ptr<Child> live_;    // robot-edge-live (RobotOptions::live_view), else null
};

// Stops one thread of a process, found by its name (/proc/PID/task/TID/comm), with ptrace until
// destroyed; the process's other threads run on. How a test makes one thread stall.
// The id of the thread of process `pid` named `name` (its comm); throws when there is none.
pid_t ThreadId(pid_t pid, const std::string& name);

class StoppedThread {
 public:
  // Throws std::runtime_error when no such thread exists or ptrace is refused.
  StoppedThread(pid_t pid, const std::string& name);
  ~StoppedThread();  // the thread runs again
  StoppedThread(const StoppedThread&) = delete;
  StoppedThread& operator=(const StoppedThread&) = delete;

 private:
  pid_t tid_ = -1;
};

// Sends `command` (sequence set by the caller) and returns its CommandResult.
edge::CommandResult Command(client::Client& c, edge::CloudCommand command, Millis timeout = 3s);
// STAND, sent again every 100 ms for up to `timeout` while it is refused: user-mode-linux can
// hold the whole emulator for a second (a process starting beside robot-edged), and the
// CONTROL_LOOP_SLOW that raises blocks STAND until it clears. True once accepted.
bool StandWithin(client::Client& c, Millis timeout = 5s);
// The next telemetry frame satisfying `match` within `timeout`.
std::optional<edge::EdgeTelemetry> WaitTelemetry(
    client::Client& c, const std::function<bool(const edge::EdgeTelemetry&)>& match,
    Millis timeout);
// The next EdgeEvent satisfying `match` within `timeout`.
std::optional<edge::EdgeEvent> WaitEvent(client::Client& c,
                                         const std::function<bool(const edge::EdgeEvent&)>& match,
                                         Millis timeout);
std::optional<edge::EdgeEvent> WaitError(client::Client& c, const std::string& code,
                                         Millis timeout);
// The next telemetry frame, with robot-edge's TelemetryExtension beside it, satisfying `match`.
std::optional<edge::ServerMessage> WaitTelemetryMessage(
    client::Client& c, const std::function<bool(const edge::ServerMessage&)>& match,
    Millis timeout);
// The next diagnostics event (m.event().diagnostics(), m.diagnostics_extension()) satisfying
// `match` (default: any).
std::optional<edge::ServerMessage> WaitDiagnostics(
    client::Client& c, Millis timeout,
    const std::function<bool(const edge::ServerMessage&)>& match = nullptr);

// 25 positions: the stand pose of the config.
std::vector<float> StandPose(const config::Config& c);

// Commands as a client builds them, unchecked (the tests send what the daemon must refuse too).
// Sequence and timestamp are left 0: Command() stamps them.
edge::CloudCommand Mode(edge::Mode m);
edge::CloudCommand Velocity(float vx, float vy, float vyaw);
edge::CloudCommand Trajectory(const std::vector<float>& pose, const std::vector<float>& kp = {},
                              const std::vector<float>& kd = {});
// `command` with the next sequence of this test process and the wall clock now: what Command()
// sends (for tests that send without waiting for the result).
edge::CloudCommand Stamped(edge::CloudCommand command);
// The same for a JointCommand (one sequence for all of a client's commands, as Sequencer): the
// next sequence of this test process (the counter Stamped(CloudCommand) uses) and the wall clock
// now, each where 0.
edge::JointCommand Stamped(edge::JointCommand command);
// Sends `command`, stamped, and returns its CommandResult (a result with accepted false and a
// reason saying so when none came within `timeout`).
edge::CommandResult Command(client::Client& c, edge::JointCommand command, Millis timeout = 3s);

// Until every motor has replied recently (the daemon accepts STAND only then); false on timeout.
bool MotorsReady(client::Client& c, Millis timeout = std::chrono::seconds(10));

// ---- The physics backend (robot-edge-sim's MuJoCo humanoid) ----

// `options` with the simulator on the MuJoCo humanoid, hanging from the gantry at 1 m.
RobotOptions WithPhysics(RobotOptions options = {});

// What the simulator's `truth` says (base=x,y,z ... vel=... torso_height=H tilt=T feet=F).
struct Truth {
  double base_vz = 0;  // m/s
  double torso_height_m = 0;
  double tilt_deg = 0;
  int feet = 0;  // foot contacts
};
// Throws std::runtime_error when the simulator has no ground truth (the kinematic backend).
Truth GetTruth(Robot& robot);

// As on a bring-up stand: STAND while hanging, lowered onto the feet, released, settled (~6 s).
// Empty when done, else what went wrong.
std::string StandOnTheFloor(Robot& robot, client::Client& c);

// Where the robot ended: on its feet (torso within 10 % of `standing_m` and tilt under
// `fall_tilt_deg`), sitting (lower, not tipped over), fallen (tilted past `fall_tilt_deg`).
enum class Posture { kOnItsFeet, kSitting, kFallen };
Posture PostureOf(const Truth& t, double standing_m, double fall_tilt_deg);
const char* NameOf(Posture p);

}  // namespace robot_edge::test
