// End to end on vcan: an Adam client (this test's DDS peer: rt/lowcmd writer, rt/lowstate
// reader, Cyclone DDS on loopback) drives robot-edged through robot-edge-dds, with
// robot-edge-sim and robot-edged really running (tests/common/robot_rig.hpp). DDS Security is
// on: this process is the permitted Adam client ("adam-client"), the bridge "robot-edge-dds";
// unpermitted participants run as processes of their own (dds_vcan_peer).
#include <dds/dds.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "dds/security.hpp"
#include "pnd_adam.h"
#include "robot_rig.hpp"

namespace robot_edge::test {
namespace {

constexpr std::size_t kJoints = 25;
constexpr std::size_t kElbow = 15;  // L_Elbow
// The latency phase marks command i with a feed-forward torque of (i + 1) x kMarkerStepNm on
// this joint: a JointState whose commanded tau_ff carries it shows when it reached the motors.
constexpr std::size_t kMarkerJoint = 24;  // Neck_Yaw
constexpr float kMarkerStepNm = 0.01f;
constexpr std::uint32_t kDomain = 42;

// Cyclone DDS on loopback only, unicast discovery: inside the vcan harness there is no other
// network (tests/vcan/run brings lo up).
constexpr const char* kLoopbackOnly =
    "<CycloneDDS><Domain><General><Interfaces><NetworkInterface name=\"lo\"/></Interfaces>"
    "<AllowMulticast>false</AllowMulticast></General><Discovery><Peers>"
    "<Peer address=\"127.0.0.1\"/></Peers><ParticipantIndex>auto</ParticipantIndex>"
    "</Discovery></Domain></CycloneDDS>";

// The robot; its logs (and robot-edge-dds's) are shown when the test failed.
class Robot : public test::Robot {
 public:
  using test::Robot::Robot;
  ~Robot() override {
    if (testing::Test::HasFailure()) DumpLogs();
  }
};

// One rt/lowstate sample as the peer saw it.
struct State {
  std::int64_t published_us;  // the bridge's wall clock when it wrote it (source timestamp)
  std::uint32_t tick;
  std::uint32_t motors;
  std::vector<float> q;
  float battery_v = 0;         // battery_data.voltage
  std::string battery_status;  // battery_data.status
};

// Where the joints settled: the mean of the last 100 ms of `states` (non-empty), not one sample
// (the emulator's stalls make the simulator skip and a single state jitter).
std::vector<float> Settled(const std::vector<State>& states) {
  std::vector<float> mean(states.back().q.size(), 0.0f);
  int n = 0;
  for (const State& st : states) {
    if (st.published_us < states.back().published_us - 100'000) continue;
    for (std::size_t j = 0; j < mean.size(); ++j) mean[j] += st.q[j];
    ++n;
  }
  for (float& q : mean) q /= static_cast<float>(n);
  return mean;
}

// How near a settled joint must be to its target: 0.05 rad on a real kernel; 0.08 under
// user-mode Linux, where one slow hour left the last sample 0.055 past it (2026-11-30).
float SettledTolerance() {
  const char* harness = std::getenv("ROBOT_EDGE_VCAN_HARNESS");
  return harness != nullptr && std::string_view(harness) == "uml" ? 0.08f : 0.05f;
}

// The DDS Security material (tests/dds/make_test_pki.sh), made once per run in a temporary
// directory: one --security directory per participant (bridge, adam, viewer, forged, rogue).
const std::string& Pki() {
  static const std::string dir = [] {
    std::string path = (std::filesystem::temp_directory_path() / "dds-pki-XXXXXX").string();
    if (::mkdtemp(path.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    const std::string command = std::string(ROBOT_EDGE_TEST_PKI) + " " + path;
    if (std::system(command.c_str()) != 0) throw std::runtime_error(command + " failed");
    return path;
  }();
  return dir;
}

// $CYCLONEDDS_URI of a participant with the identity `who` (a directory of Pki()), on loopback,
// as an Adam program sets it.
std::string SecureUri(const std::string& who) {
  return std::string(kLoopbackOnly) + "," + dds::SecurityXml(Pki() + "/" + who);
}

// An Adam client on the raw Cyclone C API: writes rt/lowcmd, reads rt/lowstate (reliable,
// keeping up to 1000 unread samples so that none is lost between two Take()s).
class AdamPeer {
 public:
  // The permitted Adam client: Cyclone reads CYCLONEDDS_URI when it makes the domain, here,
  // and the children this process starts must not inherit it (each has its own).
  explicit AdamPeer(std::uint32_t domain) {
    ::setenv("CYCLONEDDS_URI", SecureUri("adam").c_str(), 1);
    participant_ = dds_create_participant(domain, nullptr, nullptr);
    ::unsetenv("CYCLONEDDS_URI");
    if (participant_ < 0) throw std::runtime_error("participant: " + Error(participant_));
    const dds_entity_t cmd_topic = dds_create_topic(participant_, &pnd_adam_msg_dds__LowCmd__desc,
                                                    "rt/lowcmd", nullptr, nullptr);
    const dds_entity_t state_topic = dds_create_topic(
        participant_, &pnd_adam_msg_dds__LowState__desc, "rt/lowstate", nullptr, nullptr);
    dds_qos_t* qos = dds_create_qos();
    dds_qset_reliability(qos, DDS_RELIABILITY_RELIABLE, DDS_MSECS(100));
    dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, 1000);
    reader_ = dds_create_reader(participant_, state_topic, qos, nullptr);
    dds_delete_qos(qos);
    cmd_topic_ = cmd_topic;
    writer_ = AddWriter();
    if (reader_ < 0 || writer_ < 0) throw std::runtime_error("reader / writer failed");
  }

  // Another writer of rt/lowcmd in this participant (a second Adam program, as DDS sees it).
  dds_entity_t AddWriter() {
    const dds_entity_t writer = dds_create_writer(participant_, cmd_topic_, nullptr, nullptr);
    if (writer < 0) throw std::runtime_error("writer: " + Error(writer));
    return writer;
  }
  ~AdamPeer() { dds_delete(participant_); }
  dds_entity_t writer() const { return writer_; }

  // Every sample that arrived since the last call.
  void Take(std::vector<State>* into) {
    for (;;) {
      void* samples[64] = {};
      dds_sample_info_t infos[64];
      const dds_return_t n = dds_take(reader_, samples, infos, 64, 64);
      if (n <= 0) return;
      for (dds_return_t i = 0; i < n; ++i) {
        if (!infos[i].valid_data) continue;
        const auto* s = static_cast<const pnd_adam_msg_dds__LowState_*>(samples[i]);
        State state{
            infos[i].source_timestamp / 1000, s->tick,
            s->motor_state._length,           {},
            s->battery_data.voltage,          s->battery_data.status ? s->battery_data.status : ""};
        for (std::uint32_t j = 0; j < s->motor_state._length; ++j) {
          state.q.push_back(s->motor_state._buffer[j].q);
        }
        into->push_back(std::move(state));
      }
      dds_return_loan(reader_, samples, n);
    }
  }

  // A LowCmd_: every motor at q with kp, kd, no velocity, no torque but `marker_nm` on
  // kMarkerJoint, mode 1 as Adam clients send it, by `writer` (0: the first), stamped
  // `source_ns` (0: now). Returns NowUs() just before the write.
  std::int64_t Publish(const std::vector<float>& q, float kp, float kd, float marker_nm = 0,
                       dds_entity_t writer = 0, dds_time_t source_ns = 0) {
    std::vector<pnd_adam_msg_dds__MotorCmd_> motors(q.size());
    for (std::size_t i = 0; i < q.size(); ++i) {
      motors[i] = {1, q[i], 0, i == kMarkerJoint ? marker_nm : 0.0f, kp, kd, 0, 0};
    }
    pnd_adam_msg_dds__LowCmd_ cmd{};
    cmd.motor_cmd._buffer = motors.data();
    cmd.motor_cmd._length = cmd.motor_cmd._maximum = static_cast<std::uint32_t>(motors.size());
    const std::int64_t at = NowUs();
    const dds_entity_t w = writer != 0 ? writer : writer_;
    const dds_return_t r = source_ns != 0 ? dds_write_ts(w, &cmd, source_ns) : dds_write(w, &cmd);
    if (r != DDS_RETCODE_OK) throw std::runtime_error("write failed: " + Error(r));
    return at;
  }

  std::uint32_t Publishers() {
    dds_subscription_matched_status_t s{};
    dds_get_subscription_matched_status(reader_, &s);
    return s.current_count;
  }
  std::uint32_t Subscribers(dds_entity_t writer = 0) {
    dds_publication_matched_status_t s{};
    dds_get_publication_matched_status(writer != 0 ? writer : writer_, &s);
    return s.current_count;
  }

 private:
  static std::string Error(dds_return_t r) { return dds_strretcode(r); }
  dds_entity_t participant_ = 0, cmd_topic_ = 0, reader_ = 0, writer_ = 0;
};

// The bridge, its security from --security DIR (or, `uri_security`, from $CYCLONEDDS_URI as an
// Adam program's), on loopback.
std::unique_ptr<Child> StartBridge(Robot& robot, std::vector<std::string> extra = {},
                                   bool uri_security = false) {
  std::vector<std::string> argv = {ROBOT_EDGE_DDS, "--socket", robot.api_socket(), "--domain",
                                   std::to_string(kDomain)};
  if (!uri_security) argv.insert(argv.end(), {"--security", Pki() + "/bridge"});
  argv.insert(argv.end(), extra.begin(), extra.end());
  const std::string uri = uri_security ? SecureUri("bridge") : kLoopbackOnly;
  return std::make_unique<Child>(argv, robot.dir() + "/dds",
                                 std::vector<std::string>{"CYCLONEDDS_URI=" + uri});
}

// Waits until the bridge publishes rt/lowstate to `peer` and reads its rt/lowcmd.
bool BridgeUp(AdamPeer& peer) {
  std::vector<State> states;
  return Eventually(
      [&] {
        peer.Take(&states);
        return !states.empty() && peer.Subscribers() > 0;
      },
      20s);
}

// The next rt/lowstate sample (throws when none comes within 2 s).
State NextState(AdamPeer& peer) {
  std::vector<State> states;
  if (!Eventually(
          [&] {
            peer.Take(&states);
            return !states.empty();
          },
          2s)) {
    throw std::runtime_error("no rt/lowstate for 2 s");
  }
  return states.back();
}

// What the observer saw meanwhile: whether telemetry said MOVE/JOINT_STREAM.
struct Observed {
  bool joint_stream = false;

  void Note(const edge::ServerMessage& m) {
    joint_stream = joint_stream ||
                   m.telemetry_extension().control_mode() == edge::CONTROL_MODE_MOVE_JOINT_STREAM;
  }
  void Drain(client::Client& observer) {
    while (auto m = observer.Read(Millis(0))) Note(*m);
  }
};

// When each marked command first reached the motors: the robot time of the first JointState
// (robot-edged's state stream) whose commanded tau_ff on kMarkerJoint is its marker.
struct Applied {
  std::map<long, std::int64_t> robot_us;  // by command index

  void Drain(client::Client& stream) {
    while (auto m = stream.Read(Millis(0))) {
      if (!m->has_joint_state() ||
          m->joint_state().tau_ff_size() <= static_cast<int>(kMarkerJoint)) {
        continue;
      }
      const edge::JointState& s = m->joint_state();
      const long i = std::lround(s.tau_ff(static_cast<int>(kMarkerJoint)) / kMarkerStepNm) - 1;
      if (i >= 0) robot_us.emplace(i, static_cast<std::int64_t>(s.robot_time_us()));
    }
  }
};

// rt/lowstate over `duration`: how many samples, at what rate (by the bridge's timestamps), and
// how many per control tick (by their ticks).
struct StateRate {
  std::size_t samples = 0;
  double rate_hz = 0;
  double per_tick = 0;
  bool all_25_motors = true;
  std::vector<float> last_q;
  float battery_v = 0;  // the last state's
  std::string battery_status;
};

StateRate MeasureStates(AdamPeer& peer, Millis duration) {
  std::vector<State> states;
  peer.Take(&states);  // older ones
  states.clear();
  std::this_thread::sleep_for(duration);
  peer.Take(&states);
  StateRate r;
  r.samples = states.size();
  if (states.size() < 2) return r;
  const auto span_us = states.back().published_us - states.front().published_us;
  const std::uint32_t ticks = states.back().tick - states.front().tick;
  r.rate_hz = static_cast<double>(states.size() - 1) / (static_cast<double>(span_us) * 1e-6);
  r.per_tick = static_cast<double>(states.size() - 1) / std::max<std::uint32_t>(ticks, 1);
  for (const State& s : states) r.all_25_motors = r.all_25_motors && s.motors == kJoints;
  r.last_q = states.back().q;
  r.battery_v = states.back().battery_v;
  r.battery_status = states.back().battery_status;
  std::printf("rt/lowstate: %zu samples, %.1f Hz, %.3f per control tick\n", r.samples, r.rate_hz,
              r.per_tick);
  return r;
}

// Publishes `q` (kp 40, kd 1) every `period` for `duration`, taking rt/lowstate into `states`
// and the observer's messages into `observed`; with `applied`, each command marked (kMarkerJoint)
// and the `stream` client's JointStates read into it. Returns when each was published (NowUs).
std::vector<std::int64_t> Stream(AdamPeer& peer, client::Client& observer,
                                 const std::vector<float>& q, Millis period, Millis duration,
                                 std::vector<State>* states, Observed* observed,
                                 client::Client* stream = nullptr, Applied* applied = nullptr,
                                 dds_entity_t writer = 0) {
  std::vector<std::int64_t> published_us;
  auto next = std::chrono::steady_clock::now();
  const auto end = next + duration;
  while (std::chrono::steady_clock::now() < end) {
    const float marker =
        applied != nullptr ? kMarkerStepNm * static_cast<float>(published_us.size() + 1) : 0.0f;
    published_us.push_back(peer.Publish(q, 40, 1, marker, writer));
    peer.Take(states);
    observed->Drain(observer);
    if (applied != nullptr) applied->Drain(*stream);
    next += period;
    std::this_thread::sleep_until(next);
  }
  peer.Take(states);
  if (applied != nullptr) applied->Drain(*stream);
  return published_us;
}

// rt/lowcmd written -> the first control tick that sent it to the motors (robot clock), per
// command that arrived.
std::vector<std::int64_t> Latencies(const Applied& applied, const client::ClockOffset& clock,
                                    const std::vector<std::int64_t>& published_us) {
  std::vector<std::int64_t> latencies_us;
  for (const auto& [i, robot_us] : applied.robot_us) {
    if (i >= static_cast<long>(published_us.size())) continue;
    latencies_us.push_back(robot_us - clock.ToRobot(published_us[static_cast<std::size_t>(i)]));
  }
  std::sort(latencies_us.begin(), latencies_us.end());
  return latencies_us;
}

// Proves, with an Adam client's view (DDS) plus an observer of the daemon:
//   - rt/lowstate comes at the requested rate (500 Hz, the control rate: every tick's state),
//     25 motors each;
//   - a LowCmd_ of another motor count (Adam Lite's 23) is refused by the bridge, not sent;
//   - rt/lowcmd puts the robot in MOVE/JOINT_STREAM: first 1 s at 20 Hz holding the measured
//     pose, each command marked, which measures the latency to the motors; then 1.5 s at
//     200 Hz with the left elbow 0.2 rad further (kp 40, kd 1): the elbow gets there, the
//     other joints stay;
//   - when the client stops publishing, robot-edged's watchdog DAMPs the robot; rt/lowstate
//     goes on;
//   - SIGTERM stops the bridge cleanly (exit 0), without sending a DAMP itself.
TEST(DdsBridge, AdamClientDrivesTheRobot) {
  Robot robot;
  auto observer = robot.Connect("");
  ASSERT_TRUE(MotorsReady(observer)) << "the motors never all replied";
  AdamPeer peer(kDomain);
  auto bridge = StartBridge(robot);
  std::vector<State> states;
  ASSERT_TRUE(Eventually(
      [&] {
        peer.Take(&states);
        return !states.empty() && peer.Subscribers() > 0;
      },
      20s))
      << "no rt/lowstate within 20 s, or the bridge never subscribed to rt/lowcmd\n"
      << bridge->Stderr();

  const StateRate rate = MeasureStates(peer, 2s);
  RecordProperty("lowstate_rate_hz", std::to_string(rate.rate_hz));
  RecordProperty("lowstate_per_control_tick", std::to_string(rate.per_tick));
  ASSERT_GE(rate.samples, 100u);
  EXPECT_TRUE(rate.all_25_motors);
  EXPECT_GT(rate.battery_v, 40.0f) << "battery_data from the simulated BMS (robot-edge-sim)";
  EXPECT_EQ(rate.battery_status, "discharging");
  // The rate asked for is the control rate: every tick's state. (The wall-clock rate is the
  // emulated control loop's, which user-mode Linux runs below 500 Hz.) Under user-mode Linux the
  // reader also loses states when the host is busy: 0.9–1.0 per tick on a quiet hour, 0.46–0.64
  // measured on slow ones (2026-11-29), so the floor there is 0.4; on a real kernel, 0.8.
  const char* harness = std::getenv("ROBOT_EDGE_VCAN_HARNESS");
  const bool emulated = harness != nullptr && std::string_view(harness) == "uml";
  const double floor = emulated ? 0.4 : 0.8;
  std::printf("rt/lowstate floor: %.1f per control tick (%s)\n", floor,
              emulated ? "user-mode Linux" : "a real kernel");
  EXPECT_GE(rate.per_tick, floor) << "states missing between ticks";
  EXPECT_LE(rate.per_tick, 1.01);

  peer.Publish(std::vector<float>(23, 0.0f), 40, 1);  // an Adam Lite's: key 1, refused
  ASSERT_TRUE(Eventually(
      [&] { return bridge->Stderr().find("motor_cmd has 23 motors") != std::string::npos; }, 2s))
      << bridge->Stderr();

  const client::ClockOffset clock = observer.SyncClock(5, 2s);
  auto stream = robot.Connect("");
  ASSERT_EQ(stream.StreamState(500, 2s), 500u);
  const std::vector<float> hold = rate.last_q;
  Observed slow;
  Applied applied;
  states.clear();
  const auto slow_published =
      Stream(peer, observer, hold, 50ms, 1s, &states, &slow, &stream, &applied);
  const auto latencies_us = Latencies(applied, clock, slow_published);
  stream.StreamState(0, 2s);
  ASSERT_GE(latencies_us.size(), slow_published.size() / 2)
      << "most marked commands never reached the motors";
  const std::int64_t median_us = latencies_us[latencies_us.size() / 2];
  RecordProperty("lowcmd_to_applied_median_us", std::to_string(median_us));
  RecordProperty("lowcmd_to_applied_max_us", std::to_string(latencies_us.back()));
  std::printf("rt/lowcmd -> motors: median %.2f ms, max %.2f ms (%zu commands)\n",
              static_cast<double>(median_us) / 1000,
              static_cast<double>(latencies_us.back()) / 1000, latencies_us.size());
  EXPECT_LT(median_us, 50'000);

  std::vector<float> target = hold;
  target[kElbow] += 0.2f;
  Observed fast;
  // 1.5 s of streaming at a time, up to 6 times (as OneWriterAtATimeOnItsOwnClock): at a slow
  // hour of the emulator its control loop ran at 265-425 Hz with 30-60 ms stalls, and
  // robot-edged dropped a whole stream's commands as stale (2026-11-30).
  for (int tries = 0; tries < 6; ++tries) {
    states.clear();
    Stream(peer, observer, target, 5ms, 1500ms, &states, &fast);
    if (!states.empty() &&
        std::abs(Settled(states)[kElbow] - target[kElbow]) < SettledTolerance()) {
      break;
    }
  }
  ASSERT_FALSE(states.empty());
  const std::vector<float> settled = Settled(states);
  const float tolerance = SettledTolerance();
  std::printf("elbow: %.3f -> %.3f rad (target %.3f; the last 100 ms; tolerance %.2f)\n",
              hold[kElbow], settled[kElbow], target[kElbow], tolerance);
  RecordProperty("elbow_start_rad", std::to_string(hold[kElbow]));
  RecordProperty("elbow_end_rad", std::to_string(settled[kElbow]));
  EXPECT_NEAR(settled[kElbow], target[kElbow], tolerance) << "from " << hold[kElbow];
  for (std::size_t j = 0; j < kJoints; ++j) {
    if (j == kElbow) continue;
    EXPECT_NEAR(settled[j], hold[j], tolerance) << "joint " << j;
  }

  // Stopped publishing: robot-edged's watchdog DAMPs (200 ms after the last command).
  const auto damp = WaitTelemetryMessage(
      observer,
      [&](const edge::ServerMessage& m) {
        fast.Note(m);
        return m.telemetry_extension().control_mode() == edge::CONTROL_MODE_DAMP;
      },
      3s);
  EXPECT_TRUE(slow.joint_stream && fast.joint_stream) << "telemetry never said MOVE/JOINT_STREAM";
  EXPECT_TRUE(damp) << "no DAMP after rt/lowcmd stopped";
  EXPECT_GE(MeasureStates(peer, 200ms).samples, 10u) << "rt/lowstate stopped with rt/lowcmd";

  EXPECT_EQ(bridge->Stop(SIGTERM, 5s), 0) << bridge->Stderr();
  const std::string log = bridge->Stderr();
  EXPECT_NE(log.find("no DAMP sent"), std::string::npos) << log;
  EXPECT_NE(log.find("refused here: motor_count x1;"), std::string::npos) << log;
  std::printf("%s", log.c_str());
}

// --rate below the control rate: that share of the ticks' states (200 of 500 Hz: 0.4). Then
// robot-edged goes away: robot-edge-dds says so and exits 1 (systemd restarts it).
TEST(DdsBridge, RateBelowTheControlRateThenTheDaemonGoesAway) {
  Robot robot;
  AdamPeer peer(kDomain);
  auto bridge = StartBridge(robot, {"--rate", "200"});
  std::vector<State> states;
  ASSERT_TRUE(Eventually(
      [&] {
        peer.Take(&states);
        return !states.empty();
      },
      20s))
      << bridge->Stderr();
  const StateRate rate = MeasureStates(peer, 2s);
  RecordProperty("lowstate_per_control_tick", std::to_string(rate.per_tick));
  EXPECT_NEAR(rate.per_tick, 0.4, 0.04);
  robot.StopDaemon();
  EXPECT_EQ(bridge->Wait(5s), 1) << bridge->Stderr();
  EXPECT_NE(bridge->Stderr().find("robot-edged ("), std::string::npos) << bridge->Stderr();
}

// An Adam profile that is not this robot: refused at start (exit 2), before any DDS entity.
// Run --insecure: it says so, each start, before anything else.
TEST(DdsBridge, RefusesAnotherAdamModelAtStart) {
  Robot robot;
  auto bridge = StartBridge(robot, {"--motors", "lite", "--insecure"}, /*uri_security=*/true);
  EXPECT_EQ(bridge->Wait(10s), 2) << bridge->Stderr();
  const std::string log = bridge->Stderr();
  EXPECT_NE(log.find("--motors 23: this robot has 25 joints"), std::string::npos) << log;
  EXPECT_NE(log.find("INSECURE (--insecure): no DDS Security, DDS on 127.0.0.1 only"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("$CYCLONEDDS_URI is ignored"), std::string::npos) << log;
}

// Without DDS Security and without --insecure the bridge does not start: $CYCLONEDDS_URI
// configures only the network here, so Cyclone lets the bridge make a writer of rt/lowcmd.
TEST(DdsBridge, RefusesToStartWithoutSecurity) {
  const std::string dir = Pki();  // any writable directory for the logs
  Child bridge(
      {ROBOT_EDGE_DDS, "--socket", dir + "/none.sock", "--domain", std::to_string(kDomain)},
      dir + "/no-security", {std::string("CYCLONEDDS_URI=") + kLoopbackOnly});
  EXPECT_EQ(bridge.Wait(10s), 2) << bridge.Stderr();
  EXPECT_NE(bridge.Stderr().find("DDS Security is not in effect for rt/lowcmd"), std::string::npos)
      << bridge.Stderr();
}

// An unpermitted participant, as a process of its own configured through $CYCLONEDDS_URI.
std::unique_ptr<Child> StartIntruder(const std::string& name, const std::string& uri,
                                     const std::string& log_dir) {
  return std::make_unique<Child>(
      std::vector<std::string>{ROBOT_EDGE_DDS_PEER, std::to_string(kDomain), "1.5", "100"},
      log_dir + "/" + name, std::vector<std::string>{"CYCLONEDDS_URI=" + uri});
}

// Participants that may not write rt/lowcmd publish it at 100 Hz for 1.5 s, all at once, the
// elbow at 2.0 rad (kp 40): the robot stays in DAMP and nothing reaches robot-edged --
//   viewer: a valid identity whose permissions grant only reading rt/lowstate (with a
//           governance that leaves writing unchecked on its side, as a stack that skips its own
//           check would: its own Cyclone would refuse it the writer);
//   forged: a valid identity whose permissions grant rt/lowcmd, signed by another CA;
//   rogue:  an identity from another CA;
//   plain:  no security at all.
// Then the permitted client (this process) takes the robot out of DAMP through the same bridge:
// the test would have seen an intruder get through. The bridge takes its security from
// $CYCLONEDDS_URI, as an Adam program does.
TEST(DdsBridge, UnpermittedParticipantsMoveNothing) {
  Robot robot;
  auto observer = robot.Connect("");
  ASSERT_TRUE(MotorsReady(observer)) << "the motors never all replied";
  AdamPeer peer(kDomain);
  auto bridge = StartBridge(robot, {}, /*uri_security=*/true);
  ASSERT_TRUE(BridgeUp(peer)) << bridge->Stderr();
  ASSERT_NE(bridge->Stderr().find("DDS Security in effect ($CYCLONEDDS_URI)"), std::string::npos)
      << bridge->Stderr();
  std::vector<State> states;
  const float elbow_before = NextState(peer).q[kElbow];

  std::vector<std::unique_ptr<Child>> intruders;
  for (const char* who : {"viewer", "forged", "rogue"}) {
    intruders.push_back(StartIntruder(who, SecureUri(who), robot.dir()));
  }
  intruders.push_back(StartIntruder("plain", kLoopbackOnly, robot.dir()));
  Observed observed;
  const auto end = std::chrono::steady_clock::now() + 2500ms;
  while (std::chrono::steady_clock::now() < end) {
    observed.Drain(observer);
    std::this_thread::sleep_for(10ms);
  }
  for (auto& intruder : intruders) {
    EXPECT_EQ(intruder->Wait(10s), 0) << intruder->Stdout() << intruder->Stderr();
    EXPECT_NE(intruder->Stdout().find("wrote 150 samples, matched 0 readers"), std::string::npos)
        << intruder->Stdout();
  }
  EXPECT_FALSE(observed.joint_stream) << "an intruder took the robot out of DAMP";
  const State after = NextState(peer);
  // Limp in DAMP, the elbow may sag a little; the intruders want it at 2.0 rad.
  EXPECT_NEAR(after.q[kElbow], elbow_before, 0.2f) << "an intruder moved the elbow";
  EXPECT_EQ(bridge->Stderr().find("first command sent"), std::string::npos) << bridge->Stderr();

  // The precondition: the permitted client, through the same bridge, is obeyed. It streams up to
  // 20 × 500 ms: at a slow hour of the emulator the bridge's matching (its DDS Security
  // handshake) took longer than one, and in one CI run longer than 6 (its first command reached
  // robot-edged just after).
  for (int i = 0; i < 20 && !observed.joint_stream; ++i) {
    Stream(peer, observer, after.q, 10ms, 500ms, &states, &observed);
  }
  EXPECT_TRUE(observed.joint_stream) << "the permitted client was not obeyed\n" << bridge->Stderr();
  EXPECT_EQ(bridge->Stop(SIGTERM, 5s), 0) << bridge->Stderr();
  EXPECT_NE(bridge->Stderr().find("as controller 'dds'"), std::string::npos) << bridge->Stderr();
}

// One writer at a time, on its own clock:
//   - a second writer streaming the elbow 0.3 rad away is ignored (logged) while the first
//     streams the held pose: the elbow stays;
//   - once the first writer is deleted the second is followed (a new connection): the elbow
//     gets there;
//   - after it stops and robot-edged's watchdog DAMPs, its earlier samples replayed (their
//     source timestamps again: sequence_not_increasing) and samples buffered since it stopped
//     (timestamps later than its last, delivered most of a second late: command_stale) are
//     refused by robot-edged: the robot stays in DAMP.
TEST(DdsBridge, OneWriterAtATimeOnItsOwnClock) {
  Robot robot;
  auto observer = robot.Connect("");
  ASSERT_TRUE(MotorsReady(observer)) << "the motors never all replied";
  AdamPeer peer(kDomain);
  const dds_entity_t second = peer.AddWriter();
  auto bridge = StartBridge(robot);
  ASSERT_TRUE(BridgeUp(peer)) << bridge->Stderr();
  ASSERT_TRUE(Eventually([&] { return peer.Subscribers(second) > 0; }, 5s));
  std::vector<State> states;
  const std::vector<float> hold = NextState(peer).q;
  std::vector<float> target = hold;
  target[kElbow] += 0.3f;

  // Both writers at 100 Hz for 1 s; the first one heard from is followed.
  peer.Publish(hold, 40, 1);
  Observed both;
  std::vector<dds_time_t> sent_ns;  // the second writer's source timestamps, for the replay
  auto next = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) {
    peer.Publish(hold, 40, 1);
    sent_ns.push_back(dds_time());
    peer.Publish(target, 40, 1, 0, second, sent_ns.back());
    both.Drain(observer);
    next += 10ms;
    std::this_thread::sleep_until(next);
  }
  states.clear();
  peer.Take(&states);
  ASSERT_FALSE(states.empty());
  EXPECT_TRUE(both.joint_stream);
  EXPECT_NEAR(Settled(states)[kElbow], hold[kElbow], SettledTolerance())
      << "the second writer was obeyed";
  EXPECT_NE(bridge->Stderr().find("rt/lowcmd: ignoring writer"), std::string::npos)
      << bridge->Stderr();

  // The first goes away: the second is followed. 1.5 s of streaming at a time, up to 9 s: on a
  // machine too slow for the simulator (CI's once) a stall drops commands as stale and an IMU
  // timeout blocks leaving DAMP until it passes; the stream then takes the robot again.
  dds_delete(peer.writer());
  Observed after;
  for (int tries = 0; tries < 6; ++tries) {
    states.clear();
    Stream(peer, observer, target, 10ms, 1500ms, &states, &after, nullptr, nullptr, second);
    if (!states.empty() &&
        std::abs(Settled(states)[kElbow] - target[kElbow]) < SettledTolerance()) {
      break;
    }
  }
  const dds_time_t stream_end_ns = dds_time();  // later than its last sample's timestamp
  ASSERT_FALSE(states.empty());
  EXPECT_NEAR(Settled(states)[kElbow], target[kElbow], SettledTolerance()) << bridge->Stderr();
  EXPECT_NE(bridge->Stderr().find("went away; following writer"), std::string::npos)
      << bridge->Stderr();

  // Stopped: the watchdog DAMPs. Then old samples of the same writer come back.
  ASSERT_TRUE(WaitTelemetryMessage(
      observer,
      [](const edge::ServerMessage& m) {
        return m.telemetry_extension().control_mode() == edge::CONTROL_MODE_DAMP;
      },
      3s));
  Observed replayed;
  std::vector<float> away = target;
  away[kElbow] += 0.3f;
  for (std::size_t i = 0; i < 50; ++i) {  // replayed: timestamps seen before
    peer.Publish(away, 40, 1, 0, second, sent_ns[i]);
    replayed.Drain(observer);
    std::this_thread::sleep_for(10ms);
  }
  for (int i = 1; i <= 50; ++i) {  // buffered since the stream ended: each later than the last
    peer.Publish(away, 40, 1, 0, second, stream_end_ns + DDS_MSECS(1) * i);
    replayed.Drain(observer);
    std::this_thread::sleep_for(10ms);
  }
  std::this_thread::sleep_for(200ms);
  replayed.Drain(observer);
  EXPECT_FALSE(replayed.joint_stream) << "an old sample took the robot out of DAMP\n"
                                      << bridge->Stderr();
  EXPECT_EQ(bridge->Stop(SIGTERM, 5s), 0) << bridge->Stderr();
  const std::string log = bridge->Stderr();
  EXPECT_NE(log.find("sequence_not_increasing"), std::string::npos) << log;
  EXPECT_NE(log.find("command_stale"), std::string::npos) << log;
  std::printf("%s", log.c_str());
}

}  // namespace
}  // namespace robot_edge::test
