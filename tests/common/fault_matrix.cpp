#include "fault_matrix.hpp"

#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>

#include "command_policy.hpp"
#include "robot_rig.hpp"

namespace robot_edge::test {
namespace {

constexpr const char* kKnee = "L_Knee";
constexpr std::size_t kKneeJoint = 3;
constexpr const char* kDownBus = "vcan2";
constexpr const char* kBusOffBus = "vcan1";
constexpr auto kStall = std::chrono::seconds(3);
// How long after a fault the physics has settled where the robot ends.
constexpr auto kSettle = std::chrono::seconds(3);

// A robot and its two clients: `cloud` commands (it asks for results), `observer` watches.
struct Session {
  explicit Session(RobotOptions options)
      : robot(std::move(options)), cloud(robot.Connect("cloud")), observer(robot.Connect("")) {
    if (!MotorsReady(cloud)) throw std::runtime_error("the motors never all replied");
  }
  // What the clients were sent and did not read (a long run would fill their buffers).
  void Drain() {
    while (cloud.Read(Millis(0))) {
    }
    while (observer.Read(Millis(0))) {
    }
  }
  Robot robot;
  client::Client cloud;
  client::Client observer;
};

// How the trials run: on the kinematic robot (the latency figures), or on the MuJoCo humanoid
// standing on its feet (where it ends). `on_feet` sees the session once it stands on the floor;
// `after` sees a death trial's session before it ends.
struct Setup {
  bool physics = false;
  std::function<void(Session&)> on_feet;
  std::function<void(Session&)> after;
};

// A session ready for a fault: on the MuJoCo robot, standing on the floor.
void Prepare(Session& s, const Setup& setup) {
  if (!setup.physics) return;
  if (const std::string p = StandOnTheFloor(s.robot, s.cloud); !p.empty()) {
    throw std::runtime_error("standing it on the floor: " + p);
  }
  if (setup.on_feet) setup.on_feet(s);
}

// The safe frame itself: kp 0 with the joint's own damp_kd (the MIT codec's kd step over 0..5
// is 1.2e-3), or the exit from motor mode.
bool IsDampFrame(const config::Config& c, int joint, const SeenFrame& f) {
  if (f.special) return f.which == can::SpecialCommand::kExitMotorMode;
  return f.command.kp == 0.0f &&
         std::abs(f.command.kd - static_cast<float>(c.joints[joint].damp_kd)) < 5e-3f;
}

// The precondition of a DAMP trial: every joint of `joints` was driven (kp > 0) by the last
// frame it was sent before `t0`, within 200 ms. A robot already limp proves nothing.
std::string NotEngagedBefore(Robot& robot, std::int64_t t0, const std::vector<int>& joints) {
  std::vector<const SeenFrame*> last(robot.config().joints.size(), nullptr);
  const auto frames = robot.monitor().Since(t0 - 200'000);
  for (const SeenFrame& f : frames) {
    const int j = robot.monitor().JointOf(f);
    if (f.t_us < t0 && j >= 0 && !f.special) last[static_cast<std::size_t>(j)] = &f;
  }
  for (int j : joints) {
    const SeenFrame* f = last[static_cast<std::size_t>(j)];
    if (f == nullptr || f->command.kp <= 0.0f) {
      return robot.config().joints[static_cast<std::size_t>(j)].name +
             " was not engaged before the fault";
    }
  }
  return "";
}

std::vector<int> AllJoints(const config::Config& c) {
  std::vector<int> joints(c.joints.size());
  for (std::size_t j = 0; j < joints.size(); ++j) joints[j] = static_cast<int>(j);
  return joints;
}

std::vector<int> JointsOffBus(const config::Config& c, const std::string& interface) {
  std::vector<int> joints;
  for (std::size_t j = 0; j < c.joints.size(); ++j) {
    if (c.buses[c.joints[j].bus].interface != interface) joints.push_back(static_cast<int>(j));
  }
  return joints;
}

// µs from `t0` until every joint of `joints` has been sent a frame `safe` accepts; nullopt when
// that does not happen within `timeout`.
std::optional<std::int64_t> TimeToSafe(Robot& robot, std::int64_t t0,
                                       const std::vector<int>& joints,
                                       const std::function<bool(int, const SeenFrame&)>& safe,
                                       Millis timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::vector<std::int64_t> first(robot.config().joints.size(), -1);
    for (const SeenFrame& f : robot.monitor().Since(t0)) {
      const int j = robot.monitor().JointOf(f);
      if (j >= 0 && first[j] < 0 && safe(j, f)) first[j] = f.t_us;
    }
    std::int64_t latest = t0;
    bool all = true;
    for (int j : joints) {
      all &= first[j] >= 0;
      latest = std::max(latest, first[j]);
    }
    if (all) return latest - t0;
    if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
    std::this_thread::sleep_for(Millis(10));
  }
}

std::optional<std::int64_t> TimeToDamp(Robot& robot, std::int64_t t0,
                                       const std::vector<int>& joints) {
  const config::Config& c = robot.config();
  return TimeToSafe(
      robot, t0, joints, [&](int j, const SeenFrame& f) { return IsDampFrame(c, j, f); },
      Millis(5000));
}

// STAND for the policy's joints: a frame with the joint's own (stand) gains.
std::optional<std::int64_t> TimeToStand(Robot& robot, std::int64_t t0) {
  std::vector<int> legs(kPolicyJoints);
  for (int j = 0; j < kPolicyJoints; ++j) legs[j] = j;
  const config::Config& c = robot.config();
  return TimeToSafe(
      robot, t0, legs,
      [&](int j, const SeenFrame& f) {
        return !f.special && std::abs(f.command.kp - static_cast<float>(c.joints[j].kp)) < 0.2f;
      },
      Millis(5000));
}

// The first stiff frame (kp > 0) that follows, in wire order, a DAMP frame of the same joint
// since `t0`: "" when there is none, else where it was. The monitor stamps frames when it reads
// them, so a frame sent before `t0` may carry a later stamp: order, not stamps, is the judge.
std::string StiffAfterDamp(Robot& robot, std::int64_t t0) {
  const config::Config& c = robot.config();
  std::vector<std::int64_t> damped_at(c.joints.size(), -1);
  for (const SeenFrame& f : robot.monitor().Since(t0)) {
    const int j = robot.monitor().JointOf(f);
    if (f.special || j < 0) continue;
    auto& at = damped_at[static_cast<std::size_t>(j)];
    if (at < 0 && IsDampFrame(c, j, f)) at = f.t_us;
    if (at >= 0 && f.command.kp > 0.0f) {
      return c.joints[static_cast<std::size_t>(j)].name + " stiff " +
             std::to_string((f.t_us - at) / 1000) + " ms after its DAMP frame";
    }
  }
  return "";
}

bool AnyStiffFrame(Robot& robot, std::int64_t t0) {
  const auto frames = robot.monitor().Since(t0);
  return std::any_of(frames.begin(), frames.end(),
                     [](const SeenFrame& f) { return !f.special && f.command.kp > 0.0f; });
}

// STAND, retried while an alert clears (up to 5 s); then stiff frames flow.
bool Stand(Session& s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    if (Command(s.cloud, Mode(edge::MODE_STAND)).accepted()) {
      std::this_thread::sleep_for(Millis(100));
      return true;
    }
    std::this_thread::sleep_for(Millis(100));
  }
  return false;
}

edge::CloudCommand StandPacket(const Robot& robot) { return Trajectory(StandPose(robot.config())); }

// `packets` trajectory packets at 50 Hz; returns when the last was sent.
std::int64_t Stream(Session& s, int packets) {
  for (int k = 0; k < packets; ++k) {
    if (k > 0) std::this_thread::sleep_for(Millis(20));
    s.cloud.Send(Stamped(StandPacket(s.robot)));
  }
  return NowUs();
}

// One trial: the latency (µs) or why it failed.
struct Trial {
  std::optional<std::int64_t> latency_us;
  std::string problem;
};

Trial Measured(std::optional<std::int64_t> latency, const char* what) {
  if (!latency) return {std::nullopt, std::string("no ") + what + " on the wire within 5 s"};
  return {latency, ""};
}

// A DAMP trial: the motors engaged before `t0`, then the time to DAMP (kp 0, damp_kd) on each.
Trial DampAfter(Robot& robot, std::int64_t t0, const std::vector<int>& joints) {
  if (std::string p = NotEngagedBefore(robot, t0, joints); !p.empty()) return {std::nullopt, p};
  return Measured(TimeToDamp(robot, t0, joints), "DAMP");
}

// ---- Trials on a running robot (it ends each in a state the next can start from) ----

Trial StreamStops(Session& s) {
  const std::int64_t began = NowUs();
  const std::int64_t t0 = Stream(s, 5);
  if (!AnyStiffFrame(s.robot, began)) return {std::nullopt, "the stream did not engage the motors"};
  return DampAfter(s.robot, t0, AllJoints(s.robot.config()));
}

Trial ClientDisconnects(Session& s) {
  Stream(s, 5);
  { const client::Client closing = std::move(s.cloud); }  // closes the connection
  const std::int64_t t0 = NowUs();
  const Trial t = DampAfter(s.robot, t0, AllJoints(s.robot.config()));
  s.cloud = s.robot.Connect("cloud");
  return t;
}

Trial StaleBurst(Session& s) {
  const std::int64_t t0 = Stream(s, 5);
  const std::uint64_t stall_began = client::WallClockMicros();
  const Trial damp = DampAfter(s.robot, t0, AllJoints(s.robot.config()));
  std::this_thread::sleep_for(kStall);
  const std::int64_t delivered = NowUs();
  const std::uint64_t last_stale = client::WallClockMicros() - 300'000;
  std::uint32_t last = 0;
  for (std::uint64_t sent = stall_began; sent < last_stale; sent += 20'000) {
    edge::CloudCommand packet = StandPacket(s.robot);
    packet.set_timestamp_us(sent);
    packet = Stamped(packet);
    last = packet.sequence();
    s.cloud.Send(packet);
  }
  const auto result = s.cloud.WaitCommandResult(last, Millis(3000));
  std::this_thread::sleep_for(Millis(300));
  if (AnyStiffFrame(s.robot, delivered))
    return {std::nullopt, "a stale packet re-engaged the motors"};
  if (!result || result->reason() != "command_stale") {
    return {std::nullopt, "the burst's last packet was not dropped as command_stale"};
  }
  return damp;
}

Trial ReplayedPackets(Session& s) {
  std::vector<edge::CloudCommand> sent;
  for (int k = 0; k < 5; ++k) {
    if (k > 0) std::this_thread::sleep_for(Millis(20));
    sent.push_back(Stamped(StandPacket(s.robot)));
    s.cloud.Send(sent.back());
  }
  const std::int64_t t0 = NowUs();
  // Replays of the last packets, freshly stamped (a gateway resending): they must not keep the
  // stream alive, so DAMP comes at the timeout after the last new packet.
  for (int k : {4, 3, 4, 2}) {
    std::this_thread::sleep_for(Millis(40));
    edge::CloudCommand again = sent[static_cast<std::size_t>(k)];
    again.set_timestamp_us(client::WallClockMicros());
    s.cloud.Send(again);
  }
  const Trial t = DampAfter(s.robot, t0, AllJoints(s.robot.config()));
  int refused = 0;  // the replays' CommandResults, after the originals'
  const auto deadline = std::chrono::steady_clock::now() + Millis(500);
  while (std::chrono::steady_clock::now() < deadline) {
    if (const auto m = s.cloud.ReadUntil(edge::ServerMessage::kCommandResult, Millis(50))) {
      refused += m->command_result().reason() == "sequence_not_increasing";
    }
  }
  if (refused != 4) {
    return {std::nullopt, std::to_string(refused) + " of the 4 replays refused as out of sequence"};
  }
  return t;
}

// The policy walks at 0.4 m/s (its frames on the wire), from STAND.
bool Walk(Session& s) {
  if (!Command(s.cloud, Velocity(0.4f, 0, 0)).accepted()) return false;
  const float want = PolicyTarget(s.robot.config(), 0, 0.4f, 0, 0);
  return s.robot.monitor()
      .WaitFor(
          NowUs(),
          [&](const SeenFrame& f) {
            return !f.special && s.robot.monitor().JointOf(f) == 0 &&
                   std::abs(f.command.kp - kPolicyKp) < 0.2f &&
                   std::abs(f.command.position_rad - want) < 1e-3f;
          },
          Millis(3000))
      .has_value();
}

Trial PolicyNonFinite(Session& s) {
  if (!Walk(s)) return {std::nullopt, "the policy did not walk"};
  const std::int64_t t0 = NowUs();
  s.cloud.Send(Stamped(Velocity(1.5f, 0, 0)));  // the model's output turns infinite
  Trial t = Measured(TimeToStand(s.robot, t0), "STAND");
  const config::Config& c = s.robot.config();
  for (const SeenFrame& f : s.robot.monitor().Since(t0)) {
    const int j = s.robot.monitor().JointOf(f);
    if (f.special || j < 0 || j >= kPolicyJoints || std::abs(f.command.kp - kPolicyKp) > 0.2f)
      continue;
    const auto& joint = c.joints[static_cast<std::size_t>(j)];
    if (std::abs(f.command.position_rad - joint.max_rad) < 1e-3 ||
        std::abs(f.command.position_rad - joint.min_rad) < 1e-3) {
      return {std::nullopt, "the non-finite output reached " + joint.name};
    }
  }
  return t;
}

Trial InferenceStall(Session& s) {
  if (!Walk(s)) return {std::nullopt, "the policy did not walk"};
  StoppedThread inference(s.robot.daemon_pid(), "re-inference");
  const std::int64_t t0 = NowUs();
  return Measured(TimeToStand(s.robot, t0), "STAND");
}

// The control thread alone stopped (ptrace on its tid) from STAND: the supervisor sends DAMP.
// Released, the thread holds DAMP itself: no stiff frame after the supervisor's DAMP.
Trial ControlStall(Session& s) {
  if (!Stand(s)) return {std::nullopt, "STAND was refused before the fault"};
  if (!AnyStiffFrame(s.robot, NowUs() - 50'000)) return {std::nullopt, "not engaged"};
  std::int64_t t0 = 0;
  Trial t;
  {
    StoppedThread control(s.robot.daemon_pid(), "re-control");
    t0 = NowUs();
    t = DampAfter(s.robot, t0, AllJoints(s.robot.config()));
  }
  std::this_thread::sleep_for(Millis(300));  // it runs again
  if (const std::string stiff = StiffAfterDamp(s.robot, t0); t.latency_us && !stiff.empty()) {
    return {std::nullopt, "a stiff frame after the supervisor's DAMP: " + stiff};
  }
  if (s.robot.DaemonLog().find("control thread stalled for") == std::string::npos) {
    return {std::nullopt, "the DAMP was not the supervisor's"};
  }
  std::this_thread::sleep_for(Millis(1000));  // CONTROL_STALLED clears
  return t;
}

// A simulator fault from STAND: `inject` at t0, DAMP on `joints`, then `undo` and STAND again.
Trial SimFault(Session& s, const std::string& inject, const std::string& undo,
               const std::vector<int>& joints, Millis settle = Millis(0)) {
  if (!Stand(s)) return {std::nullopt, "STAND was refused before the fault"};
  const std::int64_t t0 = NowUs();
  const std::string reply = s.robot.Sim(inject);
  if (reply.rfind("ok", 0) != 0) return {std::nullopt, inject + ": " + reply};
  const Trial t = DampAfter(s.robot, t0, joints);
  for (std::size_t from = 0; from < undo.size();) {  // several lines, separated by ';'
    const std::size_t end = std::min(undo.find(';', from), undo.size());
    s.robot.Sim(undo.substr(from, end - from));
    from = end + 1;
  }
  std::this_thread::sleep_for(settle);
  return t;
}

// ---- Trials that end the daemon: one robot each ----

// `thread`: the daemon's thread the signal goes to ("" = the process).
// The end of a trial that ended the daemon at t0: its exit status, then DAMP and, last on every
// motor, the exit from motor mode.
Trial Ended(Session& s, std::int64_t t0, int status, int expected, bool exec_stop_post,
            const Setup& setup) {
  if (status != expected) {
    const std::string log = s.robot.DaemonLog();
    return {std::nullopt, "robot-edged exited " + std::to_string(status) + ", not " +
                              std::to_string(expected) + "; its log ends:\n" +
                              log.substr(log.size() > 1500 ? log.size() - 1500 : 0)};
  }
  if (exec_stop_post) {
    std::string output;
    if (s.robot.RunExecStopPost(&output) != 0) return {std::nullopt, "ExecStopPost: " + output};
  }
  Trial t = DampAfter(s.robot, t0, AllJoints(s.robot.config()));
  std::this_thread::sleep_for(Millis(200));
  const auto frames = s.robot.monitor().Since(t0);
  for (int j : AllJoints(s.robot.config())) {
    const SeenFrame* last = nullptr;
    for (const auto& f : frames) {
      if (s.robot.monitor().JointOf(f) == j) last = &f;
    }
    if (last == nullptr || !last->special || last->which != can::SpecialCommand::kExitMotorMode) {
      return {std::nullopt, s.robot.config().joints[j].name + ": the last frame is not FD"};
    }
  }
  if (setup.after) setup.after(s);
  return t;
}

Trial Death(int signal, bool exec_stop_post, const Setup& setup, const char* thread = "") {
  const rlimit no_core{0, 0};  // no core files from SIGABRT / SIGSEGV
  ::setrlimit(RLIMIT_CORE, &no_core);
  Session s{setup.physics ? WithPhysics() : RobotOptions{}};
  Prepare(s, setup);
  if (!Stand(s)) return {std::nullopt, "STAND was refused"};
  const std::int64_t t0 = NowUs();
  int status = 0;
  if (*thread != '\0') {
    const pid_t tid = ThreadId(s.robot.daemon_pid(), thread);
    ::syscall(SYS_tgkill, s.robot.daemon_pid(), tid, signal);
    status = s.robot.StopDaemon(std::chrono::seconds(10), 0);  // waits for it to die
  } else {
    status = s.robot.StopDaemon(std::chrono::seconds(10), signal);
  }
  const bool clean = signal == SIGTERM || signal == SIGINT || signal == SIGHUP;
  return Ended(s, t0, status, clean ? 0 : 128 + signal, exec_stop_post, setup);
}

// An exception escapes robot-edged's `thread` ("control", "api", "recorder"): the test build's
// injected throw (daemon/channels/injected_throw.hpp), cued through a file. The control and API
// threads catch it and stop the daemon as on SIGTERM (exit 1); any other thread's ends in
// std::terminate, whose SIGABRT the fatal-signal handler turns into DAMP (exit 134).
Trial Thrown(const char* thread, int expected_status, const Setup& setup) {
#ifndef ROBOT_EDGE_FAULT_INJECTION
  (void)thread, (void)expected_status, (void)setup;
  return {std::nullopt,
          "this build has no ROBOT_EDGE_FAULT_INJECTION (a Release build): cannot inject"};
#else
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  char dir[] = "/tmp/robot-edge-throw.XXXXXX";
  if (::mkdtemp(dir) == nullptr) return {std::nullopt, "mkdtemp failed"};
  const std::string cue = std::string(dir) + "/cue";
  RobotOptions options = setup.physics ? WithPhysics() : RobotOptions{};
  options.daemon_env.push_back("ROBOT_EDGE_INJECT_THROW=" + cue);
  Session s{options};
  Prepare(s, setup);
  if (!Stand(s)) return {std::nullopt, "STAND was refused"};
  const std::int64_t t0 = NowUs();
  { std::ofstream(cue + ".tmp") << thread << "\n"; }
  std::filesystem::rename(cue + ".tmp", cue);
  const int status = s.robot.StopDaemon(std::chrono::seconds(10), 0);  // waits for it to die
  std::filesystem::remove_all(dir);
  Trial t = Ended(s, t0, status, expected_status, false, setup);
  // The catch logs it; std::terminate's default handler prints it ("what(): ...").
  if (t.latency_us &&
      s.robot.DaemonLog().find("exception injected by a test") == std::string::npos) {
    return {std::nullopt, "robot-edged's log does not name the injected exception"};
  }
  return t;
#endif
}

// The robot a fault runs on (nullptr: one per trial).
std::unique_ptr<Session> SessionFor(Fault fault, std::unique_ptr<CommandPolicy>* policy,
                                    const Setup& setup) {
  RobotOptions options = setup.physics ? WithPhysics() : RobotOptions{};
  if (fault == Fault::kPolicyNonFinite || fault == Fault::kInferenceStall) {
    *policy = std::make_unique<CommandPolicy>(fault == Fault::kPolicyNonFinite);
    options.config_edits.push_back((*policy)->ConfigEdit());
  }
  if (EndsTheDaemon(fault)) return nullptr;
  auto s = std::make_unique<Session>(options);
  Prepare(*s, setup);
  if ((fault == Fault::kPolicyNonFinite || fault == Fault::kInferenceStall) && !Stand(*s)) {
    throw std::runtime_error("STAND was refused");
  }
  return s;
}

Trial RunOnce(Fault fault, Session* s, const Setup& setup) {
  const config::Config* c = s != nullptr ? &s->robot.config() : nullptr;
  switch (fault) {
    case Fault::kStreamStops: return StreamStops(*s);
    case Fault::kClientDisconnects: return ClientDisconnects(*s);
    case Fault::kStaleBurst: return StaleBurst(*s);
    case Fault::kReplayedPackets: return ReplayedPackets(*s);
    case Fault::kPolicyNonFinite: return PolicyNonFinite(*s);
    case Fault::kInferenceStall: return InferenceStall(*s);
    case Fault::kImuSilent: return SimFault(*s, "imu off", "imu on", AllJoints(*c));
    case Fault::kMotorSilent:
      return SimFault(*s, std::string("silence ") + kKnee + " on",
                      std::string("silence ") + kKnee + " off", AllJoints(*c));
    case Fault::kBusDown:
      return SimFault(*s, std::string("link ") + kDownBus + " down",
                      std::string("link ") + kDownBus + " up", JointsOffBus(*c, kDownBus));
    case Fault::kBusOff:
      // The alert holds for 1 s after the last bus-off so that telemetry shows it.
      return SimFault(*s, std::string("busoff ") + kBusOffBus,
                      std::string("restarted ") + kBusOffBus, AllJoints(*c), Millis(1000));
    case Fault::kOvertemp:
      return SimFault(*s, std::string("temp ") + kKnee + " 85",
                      std::string("temp ") + kKnee + " 60;temp " + kKnee + " release",
                      AllJoints(*c));
    case Fault::kFall:  // the physics falls for real: a push, as in tests/e2e/physics_test
      return setup.physics ? SimFault(*s, "push torso 0 400 0 0.2", "", AllJoints(*c))
                           : SimFault(*s, "tilt 0 75", "tilt 0 0", AllJoints(*c));
    case Fault::kControlStall: return ControlStall(*s);
    case Fault::kSigterm: return Death(SIGTERM, false, setup);
    case Fault::kSigkill: return Death(SIGKILL, true, setup);
    case Fault::kSigabrt: return Death(SIGABRT, false, setup);
    case Fault::kSigsegv: return Death(SIGSEGV, false, setup);
    case Fault::kSigint: return Death(SIGINT, false, setup);
    case Fault::kSighup: return Death(SIGHUP, false, setup);
    case Fault::kSigbus: return Death(SIGBUS, false, setup);
    case Fault::kSigfpe: return Death(SIGFPE, false, setup);
    case Fault::kSigill: return Death(SIGILL, false, setup);
    case Fault::kControlCrash: return Death(SIGSEGV, false, setup, "re-control");
    case Fault::kControlThrows: return Thrown("control", 1, setup);
    case Fault::kApiThrows: return Thrown("api", 1, setup);
    case Fault::kRecorderThrows: return Thrown("recorder", 128 + SIGABRT, setup);
  }
  return {std::nullopt, "unknown fault"};
}

}  // namespace

const std::vector<FaultInfo>& Faults() {
  static const std::vector<FaultInfo> faults = {
      {Fault::kStreamStops, "trajectory stream stops", "MOVE/TRAJECTORY", "DAMP on every motor",
       "control.trajectory_timeout_ms", "a new stream, or STAND"},
      {Fault::kClientDisconnects, "client disconnects mid-trajectory", "MOVE/TRAJECTORY",
       "DAMP on every motor", "control.trajectory_timeout_ms", "reconnect, a new stream"},
      {Fault::kStaleBurst, "3 s network stall, then the buffered packets in a burst",
       "MOVE/TRAJECTORY", "DAMP on every motor; no packet of the burst re-engages",
       "control.trajectory_timeout_ms", "fresh packets (a new stream)"},
      {Fault::kReplayedPackets, "duplicated and reordered packets after the last one",
       "MOVE/TRAJECTORY", "DAMP on every motor at the timeout after the last new packet",
       "control.trajectory_timeout_ms", "packets with new sequences"},
      {Fault::kPolicyNonFinite, "policy outputs infinity", "MOVE/POLICY",
       "STAND on every policy joint (policy.on_fault)", "policy.rate_hz (the next inference)",
       "a new velocity command"},
      {Fault::kInferenceStall, "inference thread stalls", "MOVE/POLICY",
       "STAND on every policy joint (policy.on_fault)", "policy.stall_timeout_ms",
       "a new velocity command (once the thread runs)"},
      {Fault::kImuSilent, "IMU silent", "STAND", "DAMP on every motor", "imu.timeout_ms",
       "IMU frames again, then STAND"},
      {Fault::kMotorSilent, "one motor silent (L_Knee)", "STAND", "DAMP on every motor",
       "control.motor_reply_timeout_ms", "its replies again, then STAND"},
      {Fault::kBusDown, "a bus down (vcan2: ip link set down)", "STAND",
       "DAMP on every motor of the other buses", "control.motor_reply_timeout_ms",
       "link up (motors re-enter motor mode by themselves), then STAND"},
      {Fault::kBusOff, "bus-off (error frame on vcan1)", "STAND", "DAMP on every motor",
       "the next control tick", "controller restarted + 1 s, then STAND"},
      {Fault::kOvertemp, "overtemperature (L_Knee 85 °C)", "STAND", "DAMP on every motor",
       "the next motor reply", "at or below safety.overtemp_clear_c, then STAND"},
      {Fault::kFall, "fall (tilt 75°)", "STAND", "DAMP on every motor", "safety.fall_hold_ms",
       "below safety.fall_clear_deg, then STAND"},
      {Fault::kControlStall, "control thread stopped (ptrace on its tid)", "STAND",
       "DAMP on every motor (the supervisor thread), held when it runs again",
       "safety.control_stall_ms", "CONTROL_STALLED clears after 1 s, then STAND"},
      {Fault::kSigterm, "robot-edged SIGTERM", "STAND", "DAMP, then out of motor mode",
       "the next control tick", "systemd restarts it (Restart=on-failure: not after a stop)"},
      {Fault::kSigkill, "robot-edged SIGKILL (ExecStopPost)", "STAND",
       "DAMP, then out of motor mode", "ExecStopPost starting", "systemd restarts it"},
      {Fault::kSigabrt, "robot-edged SIGABRT (watchdog kill, std::terminate)", "STAND",
       "DAMP, then out of motor mode", "the signal handler", "systemd restarts it"},
      {Fault::kSigsegv, "robot-edged SIGSEGV", "STAND", "DAMP, then out of motor mode",
       "the signal handler", "systemd restarts it"},
      {Fault::kSigint, "robot-edged SIGINT", "STAND", "DAMP, then out of motor mode",
       "the next control tick", "start it again"},
      {Fault::kSighup, "robot-edged SIGHUP", "STAND", "DAMP, then out of motor mode",
       "the next control tick", "start it again"},
      {Fault::kSigbus, "robot-edged SIGBUS", "STAND", "DAMP, then out of motor mode",
       "the signal handler", "systemd restarts it"},
      {Fault::kSigfpe, "robot-edged SIGFPE", "STAND", "DAMP, then out of motor mode",
       "the signal handler", "systemd restarts it"},
      {Fault::kSigill, "robot-edged SIGILL", "STAND", "DAMP, then out of motor mode",
       "the signal handler", "systemd restarts it"},
      {Fault::kControlCrash, "SIGSEGV on the control thread (tgkill)", "STAND",
       "DAMP, then out of motor mode", "the signal handler (no wait for its own tick)",
       "systemd restarts it"},
      {Fault::kControlThrows, "an exception escapes a control tick", "STAND",
       "DAMP, then out of motor mode", "the control thread's catch (its next tick)",
       "systemd restarts it (exit 1)"},
      {Fault::kApiThrows, "an exception escapes the API thread", "STAND",
       "DAMP, then out of motor mode", "the API thread's catch, then the control thread's stop",
       "systemd restarts it (exit 1)"},
      {Fault::kRecorderThrows, "an exception escapes the recorder's thread", "STAND",
       "DAMP, then out of motor mode", "std::terminate's SIGABRT, then the signal handler",
       "systemd restarts it"},
  };
  return faults;
}

const FaultInfo& InfoOf(Fault fault) {
  for (const FaultInfo& f : Faults()) {
    if (f.fault == fault) return f;
  }
  throw std::invalid_argument("unknown fault");
}

double BoundMs(Fault fault, const config::Config& c, double margin_ms) {
  const double tick_ms = 1000.0 / c.control.rate_hz;
  const double ticks = 2 * tick_ms;  // the tick that sees it, and the one that sends
  switch (fault) {
    case Fault::kStreamStops:
    case Fault::kClientDisconnects:
    case Fault::kStaleBurst:
    case Fault::kReplayedPackets: return c.control.trajectory_timeout_ms + ticks + margin_ms;
    case Fault::kPolicyNonFinite: return 1000.0 / c.policy.rate_hz + ticks + margin_ms;
    case Fault::kInferenceStall:
      return static_cast<double>(c.policy.stall_timeout_us()) / 1000.0 + ticks + margin_ms;
    case Fault::kImuSilent: return c.imu.timeout_ms + ticks + margin_ms;
    case Fault::kMotorSilent:
    case Fault::kBusDown: return c.control.motor_reply_timeout_ms + ticks + margin_ms;
    case Fault::kBusOff:
    case Fault::kOvertemp:
    case Fault::kSigterm:
    case Fault::kSigint:
    case Fault::kSighup: return ticks + margin_ms;
    case Fault::kFall:
      return c.safety.fall_hold_ms + 1000.0 / c.sim.imu_rate_hz + ticks + margin_ms;
    case Fault::kControlStall:  // the supervisor checks every control_stall_ms / 4
      return 1.25 * c.safety.control_stall_ms + margin_ms;
    case Fault::kSigkill: return kProcessStartMs + margin_ms;
    case Fault::kSigabrt:
    case Fault::kSigsegv:
    case Fault::kSigbus:
    case Fault::kSigfpe:
    case Fault::kSigill:
    case Fault::kControlCrash: return margin_ms;
    // + 5 ms: robot-edged polls the test's cue every 5 ms.
    case Fault::kControlThrows: return 5 + ticks + margin_ms;
    case Fault::kApiThrows: return 5 + 100 + ticks + margin_ms;  // the 100 ms check it throws in
    case Fault::kRecorderThrows: return 5 + 10 + margin_ms;      // the recorder idles 10 ms at most
  }
  return margin_ms;
}

FaultRun RunFault(Fault fault, int trials, double margin_ms,
                  const std::function<void(const std::string&)>& progress) {
  FaultRun run;
  run.fault = fault;
  std::unique_ptr<CommandPolicy> policy;
  std::unique_ptr<Session> session;
  try {
    session = SessionFor(fault, &policy, Setup{});
  } catch (const std::exception& e) {
    run.problems.push_back(std::string("the robot did not start: ") + e.what());
    return run;
  }
  for (int k = 0; k < trials; ++k) {
    Trial t;
    try {
      if (session) {
        session->Drain();
        session->robot.monitor().Forget(NowUs() - 1'000'000);
      }
      t = RunOnce(fault, session.get(), Setup{});
    } catch (const std::exception& e) {
      t = {std::nullopt, e.what()};
    }
    if (t.latency_us) run.latency_ms.push_back(static_cast<double>(*t.latency_us) / 1000.0);
    if (!t.problem.empty())
      run.problems.push_back("trial " + std::to_string(k + 1) + ": " + t.problem);
    if (progress) {
      progress(std::string(InfoOf(fault).name) + " #" + std::to_string(k + 1) + ": " +
               (t.latency_us ? std::to_string(*t.latency_us / 1000) + " ms" : t.problem));
    }
  }
  const config::Config config =
      session ? session->robot.config()
              : config::ParseConfig(Robot::ConfigText(RobotOptions{}), "robot-edge.yaml");
  run.bound_ms = BoundMs(fault, config, margin_ms);
  return run;
}

Ending OnItsFeet(Fault fault) {
  Ending e;
  std::unique_ptr<CommandPolicy> policy;
  double standing_m = 0, fall_tilt_deg = 60;
  const auto observe = [&](Session& s) {
    std::this_thread::sleep_for(kSettle);
    const Truth t = GetTruth(s.robot);
    e.posture = PostureOf(t, standing_m, fall_tilt_deg);
    e.torso_height_m = t.torso_height_m;
    e.tilt_deg = t.tilt_deg;
  };
  Setup setup;
  setup.physics = true;
  setup.on_feet = [&](Session& s) {
    standing_m = GetTruth(s.robot).torso_height_m;
    fall_tilt_deg = s.robot.config().safety.fall_tilt_deg;
  };
  try {
    std::unique_ptr<Session> session = SessionFor(fault, &policy, setup);
    if (!session) setup.after = observe;  // the death trials start and end their own robot
    const Trial t = RunOnce(fault, session.get(), setup);
    if (!t.latency_us) e.problem = t.problem.empty() ? "no safe state" : t.problem;
    if (session) observe(*session);
  } catch (const std::exception& ex) {
    e.problem = ex.what();
  }
  return e;
}

}  // namespace robot_edge::test
