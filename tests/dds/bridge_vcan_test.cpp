// End to end on vcan: an Adam client (this test's DDS peer: rt/lowcmd writer, rt/lowstate
// reader, Cyclone DDS on loopback) drives robot-edged through robot-edge-dds, with
// robot-edge-sim and robot-edged really running (tests/common/robot_rig.hpp).
#include <dds/dds.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

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

// An Adam client on the raw Cyclone C API: writes rt/lowcmd, reads rt/lowstate (reliable,
// keeping up to 1000 unread samples so that none is lost between two Take()s).
class AdamPeer {
 public:
  explicit AdamPeer(std::uint32_t domain) {
    participant_ = dds_create_participant(domain, nullptr, nullptr);
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
    writer_ = dds_create_writer(participant_, cmd_topic, nullptr, nullptr);
    if (reader_ < 0 || writer_ < 0) throw std::runtime_error("reader / writer failed");
  }
  ~AdamPeer() { dds_delete(participant_); }

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
  // kMarkerJoint, mode 1 as Adam clients send it. Returns NowUs() just before the write.
  std::int64_t Publish(const std::vector<float>& q, float kp, float kd, float marker_nm = 0) {
    std::vector<pnd_adam_msg_dds__MotorCmd_> motors(q.size());
    for (std::size_t i = 0; i < q.size(); ++i) {
      motors[i] = {1, q[i], 0, i == kMarkerJoint ? marker_nm : 0.0f, kp, kd, 0, 0};
    }
    pnd_adam_msg_dds__LowCmd_ cmd{};
    cmd.motor_cmd._buffer = motors.data();
    cmd.motor_cmd._length = cmd.motor_cmd._maximum = static_cast<std::uint32_t>(motors.size());
    const std::int64_t at = NowUs();
    if (dds_write(writer_, &cmd) != DDS_RETCODE_OK) throw std::runtime_error("write failed");
    return at;
  }

  std::uint32_t Publishers() {
    dds_subscription_matched_status_t s{};
    dds_get_subscription_matched_status(reader_, &s);
    return s.current_count;
  }
  std::uint32_t Subscribers() {
    dds_publication_matched_status_t s{};
    dds_get_publication_matched_status(writer_, &s);
    return s.current_count;
  }

 private:
  static std::string Error(dds_return_t r) { return dds_strretcode(r); }
  dds_entity_t participant_ = 0, reader_ = 0, writer_ = 0;
};

// Cyclone reads CYCLONEDDS_URI when a domain is first created: this process's peer and the
// bridge (its child) both run on loopback.
void UseLoopback() { ::setenv("CYCLONEDDS_URI", kLoopbackOnly, 1); }

std::unique_ptr<Child> StartBridge(Robot& robot, std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {ROBOT_EDGE_DDS, "--socket", robot.api_socket(), "--domain",
                                   std::to_string(kDomain)};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return std::make_unique<Child>(
      argv, robot.dir() + "/dds",
      std::vector<std::string>{std::string("CYCLONEDDS_URI=") + kLoopbackOnly});
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
                                 client::Client* stream = nullptr, Applied* applied = nullptr) {
  std::vector<std::int64_t> published_us;
  auto next = std::chrono::steady_clock::now();
  const auto end = next + duration;
  while (std::chrono::steady_clock::now() < end) {
    const float marker =
        applied != nullptr ? kMarkerStepNm * static_cast<float>(published_us.size() + 1) : 0.0f;
    published_us.push_back(peer.Publish(q, 40, 1, marker));
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
  UseLoopback();
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
  // emulated control loop's, which user-mode Linux runs below 500 Hz.)
  EXPECT_GE(rate.per_tick, 0.8) << "states missing between ticks";
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
  states.clear();
  Stream(peer, observer, target, 5ms, 1500ms, &states, &fast);
  ASSERT_FALSE(states.empty());
  RecordProperty("elbow_start_rad", std::to_string(hold[kElbow]));
  RecordProperty("elbow_end_rad", std::to_string(states.back().q[kElbow]));
  EXPECT_NEAR(states.back().q[kElbow], target[kElbow], 0.05f) << "from " << hold[kElbow];
  for (std::size_t j = 0; j < kJoints; ++j) {
    if (j == kElbow) continue;
    EXPECT_NEAR(states.back().q[j], hold[j], 0.05f) << "joint " << j;
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
  UseLoopback();
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

// An Adam profile that is not this robot: refused at start (exit 2), before any DDS.
TEST(DdsBridge, RefusesAnotherAdamModelAtStart) {
  UseLoopback();
  Robot robot;
  auto bridge = StartBridge(robot, {"--motors", "lite"});
  EXPECT_EQ(bridge->Wait(10s), 2) << bridge->Stderr();
  EXPECT_NE(bridge->Stderr().find("--motors 23: this robot has 25 joints"), std::string::npos)
      << bridge->Stderr();
}

}  // namespace
}  // namespace robot_edge::test
