// End to end on vcan: MOVE/JOINT_STREAM (edge_api.proto JointCommand,
// statemachine/joint_stream.hpp) driving the simulated motors, checked on the wire (every command
// frame's decoded MIT command), in telemetry and in the EdgeErrors. Also the robot's clock
// (TimeSync) the stream's times use.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "client/commands.hpp"
#include "harness.hpp"

namespace robot_edge::e2e {
namespace {

constexpr int kJoints = 25;
constexpr int kKnee = 3;  // L_Knee

// The MIT codec's quantization (ak80_9: 12 bits for kp over 0..500, kd over 0..5, velocity over
// ±50, torque over ±18; 16 bits for position over ±12.5), with some room.
constexpr float kKpTol = 0.2f;
constexpr float kKdTol = 0.005f;
constexpr float kVelocityTol = 0.05f;
constexpr float kTorqueTol = 0.03f;
constexpr float kPositionTol = 0.002f;

// A stream's commands end this long after they are sent (robot time).
constexpr std::int64_t kEndAfterUs = 100'000;
// A single command, whose refusal or acceptance a test checks, ends this long after it is sent:
// no stall of the emulator makes it expire first.
constexpr std::int64_t kSingleEndUs = 1'000'000;
// How much earlier than its arrival a command may be stamped applied: the control tick's time is
// read when the tick begins, and the emulator can hold a tick for a few milliseconds.
constexpr std::int64_t kTickSlackUs = 20'000;

// The robot's clock (robot-edged's CLOCK_MONOTONIC, µs) as this test process sees it, learnt by
// TimeSync. The monitor's frame times (NowUs) are the same clock as client::MonotonicMicros.
struct RobotClock {
  client::ClockOffset offset;
  std::int64_t Now() const { return offset.ToRobot(client::MonotonicMicros()); }
  std::int64_t ToLocal(std::int64_t robot_us) const { return robot_us - offset.offset_us; }
};

RobotClock SyncedClock(client::Client& c) { return RobotClock{c.SyncClock(5, 2s)}; }

// The joints' measured positions (telemetry), one per joint; empty when no telemetry came.
std::vector<float> MeasuredPose(client::Client& c) {
  const auto t = WaitTelemetry(
      c, [](const auto& m) { return m.joint_pos_size() == kJoints; }, 2s);
  if (!t) return {};
  return {t->joint_pos().begin(), t->joint_pos().end()};
}

// Per-joint gains, all different, so that a frame with another joint's gains shows.
std::vector<float> StreamKp() {
  std::vector<float> kp;
  for (int j = 0; j < kJoints; ++j) kp.push_back(30.0f + 1.5f * static_cast<float>(j));
  return kp;
}
std::vector<float> StreamKd() {
  std::vector<float> kd;
  for (int j = 0; j < kJoints; ++j) kd.push_back(1.0f + 0.05f * static_cast<float>(j));
  return kd;
}

// A JointCommand (unstamped: Stamped() / Command() stamp it). Gains only when given.
edge::JointCommand JointCmd(const std::vector<float>& position, std::int64_t end_us,
                            std::uint32_t key, const std::vector<float>& velocity = {},
                            const std::vector<float>& torque = {},
                            const std::vector<float>& kp = {}, const std::vector<float>& kd = {},
                            float velocity_limit = 0) {
  client::JointCommandFields f;
  f.position = position;
  f.velocity = velocity;
  f.torque = torque;
  f.kp = kp;
  f.kd = kd;
  f.end_time_us = end_us;
  f.user_command_key = key;
  f.velocity_safety_limit = velocity_limit;
  return client::MakeJointCommand(f);
}

// Everything one client received while the test streamed.
struct Received {
  std::map<std::uint32_t, edge::CommandResult> results;  // by sequence
  std::vector<edge::ServerMessage> telemetry;            // with the TelemetryExtension
  std::vector<edge::EdgeEvent> events;

  bool HasError(const std::string& code) const {
    for (const auto& e : events) {
      if (e.has_error() && e.error().code() == code) return true;
    }
    return false;
  }
};

// Reads what has arrived, and what arrives within `wait`, into `into`.
void Drain(client::Client& c, Received* into, Millis wait = 0ms) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  for (;;) {
    const auto left = std::max(
        Millis(0), std::chrono::duration_cast<Millis>(deadline - std::chrono::steady_clock::now()));
    const auto m = c.Read(left);
    if (!m) return;
    if (m->has_command_result()) {
      into->results[m->command_result().sequence()] = m->command_result();
    }
    if (m->has_telemetry()) into->telemetry.push_back(*m);
    if (m->has_event()) into->events.push_back(m->event());
  }
}

// A JointCommand as sent, and when (client::MonotonicMicros just before Send: the daemon may
// apply it before Send returns).
struct Sent {
  edge::JointCommand command;
  std::int64_t sent_us;
};

// Sends make(i) every `period` (a late send is not made up for) until `duration` has passed or
// `stop()` says so, reading `c`'s messages into `received` meanwhile.
std::vector<Sent> Stream(client::Client& c, Received* received, Millis period, Millis duration,
                         const std::function<edge::JointCommand(int)>& make,
                         const std::function<bool()>& stop = nullptr) {
  std::vector<Sent> sent;
  const auto start = std::chrono::steady_clock::now();
  auto next = start;
  for (int i = 0; std::chrono::steady_clock::now() - start < duration; ++i) {
    const edge::JointCommand command = Stamped(make(i));
    sent.push_back({command, client::MonotonicMicros()});
    c.Send(command);
    Drain(c, received);
    if (stop && stop()) break;
    next = std::max(next + period, std::chrono::steady_clock::now());
    std::this_thread::sleep_until(next);
  }
  return sent;
}

// The motors' command frames (not DAMP's: kp > 0) from `since_us` to `until_us` (test clock),
// by joint.
std::vector<std::vector<SeenFrame>> DrivingFrames(Robot& robot, std::int64_t since_us,
                                                  std::int64_t until_us) {
  std::vector<std::vector<SeenFrame>> by_joint(kJoints);
  for (const auto& f : robot.monitor().Since(since_us)) {
    const int j = robot.monitor().JointOf(f);
    if (f.special || j < 0 || j >= kJoints || f.t_us > until_us || f.command.kp <= 0) continue;
    by_joint[static_cast<std::size_t>(j)].push_back(f);
  }
  return by_joint;
}

// The refusals among `results`, by reason.
std::map<std::string, int> Refusals(const Received& received) {
  std::map<std::string, int> out;
  for (const auto& [sequence, r] : received.results) {
    if (!r.accepted()) ++out[r.reason()];
  }
  return out;
}

std::string ToString(const std::map<std::string, int>& counts) {
  std::string s;
  for (const auto& [reason, n] : counts) s += reason + " x" + std::to_string(n) + " ";
  return s.empty() ? "none" : s;
}

// Refusals the emulator may cause (a late packet, a full queue), not the stream's semantics.
bool TimingRefusal(const std::string& reason) {
  return reason == "command_stale" || reason == "joint_stream_expired" || reason == "queue_full";
}

// Proves: a stream entered from DAMP with per-joint gains (given on its first command only)
// drives every motor with exactly those gains, the commanded position, zero velocity and the
// feed-forward torque on the one joint that has it (which moves that joint by torque / kp);
// telemetry says MOVE_JOINT_STREAM / FW_MODE_MOVE and echoes a user_command_key the stream sent,
// with when it was applied (the command's latency, on the robot's clock).
// Each command ends 100 ms after it is sent (api.max_command_age_ms: a later packet is stale
// anyway), so that the emulator's stalls make few of them expire; those that do make the
// motors hold (no feed-forward) until the next one, which the checks allow.
TEST(JointStream, StreamDrivesTheMotorsWithItsGains) {
  Robot robot;
  auto c = robot.Connect("cloud");
  WaitMotorsReady(c);
  const RobotClock clock = SyncedClock(c);
  const std::vector<float> pose = StandPose(robot.config());
  const std::vector<float> kp = StreamKp(), kd = StreamKd();
  const std::vector<float> velocity(kJoints, 0.0f);
  std::vector<float> torque(kJoints, 0.0f);
  torque[kKnee] = 1.5f;

  // The first command carries the gains; the rest of the stream does not (they are kept).
  const std::int64_t began = NowUs();
  std::uint32_t key = 7000;
  std::map<std::uint32_t, std::int64_t> key_sent_us{{key + 1, client::MonotonicMicros()}};
  const auto first =
      Command(c, JointCmd(pose, clock.Now() + kEndAfterUs, ++key, velocity, torque, kp, kd));
  ASSERT_TRUE(first.accepted()) << first.reason();
  EXPECT_EQ(first.control_mode(), edge::CONTROL_MODE_MOVE_JOINT_STREAM);

  Received rx;
  const auto sent = Stream(c, &rx, 2ms, 1500ms, [&](int) {
    return JointCmd(pose, clock.Now() + kEndAfterUs, ++key, velocity, torque);
  });
  const std::int64_t last_sent = NowUs();
  for (const auto& s : sent) key_sent_us[s.command.user_command_key()] = s.sent_us;
  Drain(c, &rx, 500ms);  // the last results (the stream DAMPs 200 ms after it, by its timeout)

  // Every command was answered; most were accepted, and the others only for being late.
  int accepted = 0;
  for (const auto& s : sent) {
    const auto r = rx.results.find(s.command.sequence());
    ASSERT_NE(r, rx.results.end()) << "no CommandResult for sequence " << s.command.sequence();
    accepted += r->second.accepted();
  }
  const auto refusals = Refusals(rx);
  EXPECT_GE(accepted, static_cast<int>(sent.size()) / 2) << ToString(refusals);
  RecordProperty("accepted", std::to_string(accepted) + " of " + std::to_string(sent.size()));
  for (const auto& [reason, n] : refusals) {
    EXPECT_TRUE(TimingRefusal(reason)) << reason << " x" << n;
  }

  // On the wire: every driving frame of the stream has the joint's gains and the feed-forward on
  // the knee only (0 there only when a late packet let the command expire: the hold). Once the
  // stream has run 1 s, every frame has the commanded position and no velocity: before that a
  // joint with target_limits (config; the arms) travels from the measured pose, shaped.
  const auto frames = DrivingFrames(robot, began, last_sent);
  const std::int64_t settled_us = began + 1'000'000;
  for (int j = 0; j < kJoints; ++j) {
    const auto& fs = frames[static_cast<std::size_t>(j)];
    ASSERT_GE(fs.size(), 100u) << "joint " << j << ": too few frames for 1.5 s at 500 Hz";
    int with_torque = 0, settled = 0;
    for (const auto& f : fs) {
      ASSERT_NEAR(f.command.kp, kp[j], kKpTol) << "joint " << j;
      ASSERT_NEAR(f.command.kd, kd[j], kKdTol) << "joint " << j;
      if (f.t_us >= settled_us) {
        ++settled;
        ASSERT_NEAR(f.command.position_rad, pose[j], kPositionTol) << "joint " << j;
        ASSERT_NEAR(f.command.velocity_rad_s, 0.0f, kVelocityTol) << "joint " << j;
      }
      if (j != kKnee) {
        ASSERT_NEAR(f.command.torque_nm, 0.0f, kTorqueTol) << "joint " << j;
      } else if (std::fabs(f.command.torque_nm - 1.5f) <= kTorqueTol) {
        ++with_torque;
      } else {
        ASSERT_NEAR(f.command.torque_nm, 0.0f, kTorqueTol)
            << "knee: neither the feed-forward nor the hold";
      }
    }
    EXPECT_GE(settled, 30) << "joint " << j << ": too few frames in the stream's last 0.5 s";
    if (j == kKnee) {
      EXPECT_GE(with_torque, static_cast<int>(fs.size()) / 2)
          << "the knee's feed-forward torque was missing from " << fs.size() - with_torque << " of "
          << fs.size() << " frames";
    }
  }

  // Telemetry during the stream: MOVE_JOINT_STREAM, FW_MODE_MOVE, a key the stream sent, applied
  // after it was sent and less than a second later. applied_us is the control tick's time, read
  // when the tick began: a tick the emulator held between its clock reading and the command's
  // arrival stamps the command earlier than it came (milliseconds), hence the slack.
  int streaming = 0;
  // The knee, pushed by 1.5 N·m against its kp, settles 1.5 / kp past the stand pose, the other
  // joints at it (the kinematic plant: no gravity): seen in a frame after 1 s of streaming.
  int pushed = 0;
  std::int64_t max_latency_us = 0;
  for (const auto& m : rx.telemetry) {
    const auto& x = m.telemetry_extension();
    if (x.control_mode() != edge::CONTROL_MODE_MOVE_JOINT_STREAM) continue;
    ++streaming;
    if (x.robot_time_us() >= clock.offset.ToRobot(settled_us) &&
        x.robot_time_us() <= clock.offset.ToRobot(last_sent)) {
      const auto& t = m.telemetry();
      bool at = std::fabs(t.joint_pos(kKnee) - (pose[kKnee] + 1.5f / kp[kKnee])) < 0.01f;
      for (int j = 0; j < kJoints; ++j) {
        at = at && (j == kKnee || std::fabs(t.joint_pos(j) - pose[j]) < 0.01f);
      }
      pushed += at;
    }
    EXPECT_EQ(m.telemetry().fw_mode(), edge::FW_MODE_MOVE);
    const auto sent_at = key_sent_us.find(x.last_user_command_key());
    ASSERT_NE(sent_at, key_sent_us.end())
        << "key " << x.last_user_command_key() << " was never sent";
    EXPECT_GT(x.user_command_key_applied_us(), 0);
    EXPECT_LE(x.user_command_key_applied_us(), x.robot_time_us());
    const std::int64_t latency_us =
        x.user_command_key_applied_us() - clock.offset.ToRobot(sent_at->second);
    EXPECT_GE(latency_us, -clock.offset.round_trip_us - kTickSlackUs)
        << "applied before it was sent";
    EXPECT_LT(latency_us, 1'000'000);
    max_latency_us = std::max(max_latency_us, latency_us);
  }
  RecordProperty("max_key_latency_us", std::to_string(max_latency_us));
  ASSERT_GE(streaming, 5) << "1.5 s of streaming at 10 Hz telemetry";
  EXPECT_GE(pushed, 1) << "no telemetry frame with the knee at stand + 1.5 / kp ("
                       << pose[kKnee] + 1.5f / kp[kKnee] << ") and the others at the stand pose";

  // The key of the last command applied stays in telemetry after the stream has ended.
  std::uint32_t last_accepted_key = 0;
  for (const auto& s : sent) {
    if (rx.results[s.command.sequence()].accepted()) {
      last_accepted_key = s.command.user_command_key();
    }
  }
  const auto after = WaitTelemetryMessage(
      c, [](const auto&) { return true; }, 2s);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->telemetry_extension().last_user_command_key(), last_accepted_key);
}

// Proves: once a command's end_time has passed the motors hold (the command's position, no
// velocity, no feed-forward, the stream's gains) instead of going on with the command's
// velocity and torque; and 200 ms after the last JointCommand the watchdog DAMPs with an
// EdgeError TRAJECTORY_TIMEOUT that names JointCommand. The commanded pose is where the joints
// are (so that no target_limits shaping of a travelling joint is mistaken for the hold).
TEST(JointStream, EndTimePassedHoldsThenDamps) {
  Robot robot;
  auto c = robot.Connect("cloud");
  auto observer = robot.Connect("");
  WaitMotorsReady(c);
  const RobotClock clock = SyncedClock(c);
  const std::vector<float> pose = MeasuredPose(c);
  ASSERT_EQ(pose.size(), static_cast<std::size_t>(kJoints)) << "no telemetry";
  const std::vector<float> kp = StreamKp(), kd = StreamKd();
  const std::vector<float> velocity(kJoints, 0.5f), torque(kJoints, 2.0f);

  // The first command, with the gains; sent again (a few times at most) when the emulator held
  // it past its 30 ms.
  const std::int64_t began = NowUs();
  std::uint32_t key = 100;
  edge::CommandResult first;
  for (int attempt = 0; attempt < 5 && !first.accepted(); ++attempt) {
    first = Command(c, JointCmd(pose, clock.Now() + 30'000, ++key, velocity, torque, kp, kd));
    if (!first.accepted()) {
      ASSERT_EQ(first.reason(), "joint_stream_expired");
    }
  }
  ASSERT_TRUE(first.accepted()) << first.reason();
  std::int64_t end_us = 0;
  std::uint32_t last_applied_key = key;
  std::vector<edge::JointCommand> more;
  for (int i = 0; i < 4; ++i) {  // a few more, 5 ms apart, then silence
    std::this_thread::sleep_for(5ms);
    end_us = clock.Now() + 30'000;
    more.push_back(Stamped(JointCmd(pose, end_us, ++key, velocity, torque)));
    c.Send(more.back());
  }
  const std::int64_t last_sent = NowUs();

  const auto error = WaitError(observer, "TRAJECTORY_TIMEOUT", 3s);
  ASSERT_TRUE(error) << "no TRAJECTORY_TIMEOUT after the stream stopped";
  EXPECT_NE(error->error().message().find("JointCommand"), std::string::npos)
      << error->error().message();
  Received rx;
  Drain(c, &rx);
  for (const auto& m : more) {
    const auto r = rx.results.find(m.sequence());
    ASSERT_NE(r, rx.results.end()) << "no CommandResult for sequence " << m.sequence();
    if (r->second.accepted()) {
      last_applied_key = m.user_command_key();
    } else {
      EXPECT_TRUE(TimingRefusal(r->second.reason())) << r->second.reason();
    }
  }
  const auto damp = WaitTelemetryMessage(
      c,
      [](const auto& m) {
        return m.telemetry_extension().control_mode() == edge::CONTROL_MODE_DAMP;
      },
      2s);
  ASSERT_TRUE(damp);
  EXPECT_EQ(damp->telemetry().fw_mode(), edge::FW_MODE_DAMP);
  EXPECT_EQ(damp->telemetry_extension().last_user_command_key(), last_applied_key)
      << "kept after the stream";

  // The DAMP frames began with the watchdog, not at end_time: ~200 ms after the last packet,
  // not ~30. The floor allows for the emulator's clock under load (189.9 ms seen, beside a
  // busy host, when robot-edged logged its watchdog at 201 ms).
  const auto first_damp = robot.monitor().WaitFor(
      last_sent, [](const SeenFrame& f) { return !f.special && f.command.kp == 0.0f; }, 1s);
  ASSERT_TRUE(first_damp);
  const double damp_after_ms = static_cast<double>(first_damp->t_us - last_sent) / 1000.0;
  EXPECT_GE(damp_after_ms, 150.0) << "DAMP long before the 200 ms watchdog: at end_time?";
  EXPECT_LE(damp_after_ms, 600.0) << "DAMP much later than the 200 ms watchdog";
  RecordProperty("damp_after_last_packet_ms", std::to_string(damp_after_ms));

  const auto frames = DrivingFrames(robot, began, first_damp->t_us);
  const std::int64_t hold_from_us = clock.ToLocal(end_us + 20'000);
  for (int j = 0; j < kJoints; ++j) {
    int executing = 0, holding = 0;
    for (const auto& f : frames[static_cast<std::size_t>(j)]) {
      ASSERT_NEAR(f.command.kp, kp[j], kKpTol) << "joint " << j;
      ASSERT_NEAR(f.command.kd, kd[j], kKdTol) << "joint " << j;
      ASSERT_NEAR(f.command.position_rad, pose[j], kPositionTol) << "joint " << j;
      if (f.t_us >= hold_from_us) {  // after the last end_time: the hold
        ++holding;
        ASSERT_NEAR(f.command.velocity_rad_s, 0.0f, kVelocityTol) << "joint " << j << " holding";
        ASSERT_NEAR(f.command.torque_nm, 0.0f, kTorqueTol) << "joint " << j << " holding";
      } else if (std::fabs(f.command.velocity_rad_s - 0.5f) <= kVelocityTol &&
                 std::fabs(f.command.torque_nm - 2.0f) <= kTorqueTol) {
        ++executing;
      }
    }
    EXPECT_GE(executing, 1) << "joint " << j
                            << ": no frame carried the command's velocity and torque";
    EXPECT_GE(holding, 10) << "joint " << j << ": too few hold frames between end_time and DAMP";
  }
}

// Proves: velocity_safety_limit does not trip while the joints are still, and DAMPs at once
// (EdgeError JOINT_VELOCITY_LIMIT naming the joint) when a position step makes one move faster;
// the stream's next packets are refused (trajectory_stream_damped) until it pauses for the 200 ms
// timeout, after which a new stream is accepted.
TEST(JointStream, VelocitySafetyLimitDamps) {
  Robot robot;
  auto c = robot.Connect("cloud");
  auto observer = robot.Connect("");
  WaitMotorsReady(c);
  const RobotClock clock = SyncedClock(c);
  const std::vector<float> hold = MeasuredPose(c);
  ASSERT_EQ(hold.size(), static_cast<std::size_t>(kJoints)) << "no telemetry";
  std::vector<float> step = hold;
  step[kKnee] += 0.4f;
  const std::vector<float> kp(kJoints, 60.0f), kd(kJoints, 2.0f);
  constexpr float kLimit = 0.3f;  // rad/s
  std::uint32_t key = 0;

  // Holding where the joints are, with the limit: no trip.
  const auto first =
      Command(c, JointCmd(hold, clock.Now() + kSingleEndUs, ++key, {}, {}, kp, kd, kLimit));
  ASSERT_TRUE(first.accepted()) << first.reason();
  Received rx, obs;
  Stream(c, &rx, 2ms, 400ms, [&](int) {
    return JointCmd(hold, clock.Now() + kEndAfterUs, ++key, {}, {}, {}, {}, kLimit);
  });
  Drain(observer, &obs);
  ASSERT_FALSE(obs.HasError("JOINT_VELOCITY_LIMIT")) << "tripped while holding still";
  ASSERT_FALSE(rx.telemetry.empty());
  EXPECT_EQ(rx.telemetry.back().telemetry_extension().control_mode(),
            edge::CONTROL_MODE_MOVE_JOINT_STREAM);

  // The knee steps 0.4 rad at kp 60: it moves far faster than 0.3 rad/s. Streamed until the
  // observer sees the error (at most 1 s).
  const std::int64_t step_began = NowUs();
  Stream(
      c, &rx, 2ms, 1000ms,
      [&](int) { return JointCmd(step, clock.Now() + kEndAfterUs, ++key, {}, {}, {}, {}, kLimit); },
      [&] {
        Drain(observer, &obs);
        return obs.HasError("JOINT_VELOCITY_LIMIT");
      });
  edge::EdgeError error;
  for (const auto& e : obs.events) {
    if (e.has_error() && e.error().code() == "JOINT_VELOCITY_LIMIT") error = e.error();
  }
  ASSERT_EQ(error.code(), "JOINT_VELOCITY_LIMIT") << "the limit never tripped";
  EXPECT_NE(error.message().find("L_Knee"), std::string::npos) << error.message();
  EXPECT_NE(error.message().find("velocity_safety_limit"), std::string::npos) << error.message();

  // The same stream, at once: refused, the robot stays in DAMP.
  const auto refused =
      Command(c, JointCmd(hold, clock.Now() + kSingleEndUs, ++key, {}, {}, kp, kd));
  EXPECT_FALSE(refused.accepted());
  EXPECT_EQ(refused.reason(), "trajectory_stream_damped");
  EXPECT_EQ(refused.control_mode(), edge::CONTROL_MODE_DAMP);
  const auto damp = WaitTelemetryMessage(
      c,
      [](const auto& m) {
        return m.telemetry_extension().control_mode() == edge::CONTROL_MODE_DAMP;
      },
      2s);
  ASSERT_TRUE(damp);
  EXPECT_EQ(damp->telemetry().fw_mode(), edge::FW_MODE_DAMP);
  EXPECT_TRUE(robot.monitor().WaitFor(
      step_began,
      [&](const SeenFrame& f) {
        return !f.special && robot.monitor().JointOf(f) == kKnee && f.command.kp == 0.0f;
      },
      1s))
      << "no DAMP frame for the knee after the trip";

  // After a pause longer than the 200 ms timeout, a new stream is accepted.
  std::this_thread::sleep_for(300ms);
  const auto again = Command(c, JointCmd(hold, clock.Now() + kSingleEndUs, ++key, {}, {}, kp, kd));
  EXPECT_TRUE(again.accepted()) << again.reason();
  EXPECT_EQ(again.control_mode(), edge::CONTROL_MODE_MOVE_JOINT_STREAM);
  EXPECT_TRUE(Command(c, Mode(edge::MODE_DAMP)).accepted());
}

// Proves the per-joint velocity limit (safety.max_joint_velocity, 20 rad/s) without the client's
// velocity_safety_limit, as the audit probed it: from DAMP, kp = kd = 0 and τ = −1000 N·m on
// L_Shoulder_Pitch. The torque reaches the wire clamped to the joint's bound (ak80_9: 18 N·m),
// the joint speeds up, and the robot DAMPs with JOINT_VELOCITY_LIMIT naming it.
TEST(JointStream, AJointFasterThanItsMaxVelocityDampsWithoutAClientLimit) {
  constexpr int kShoulder = 12;
  Robot robot;
  auto c = robot.Connect("cloud");
  auto observer = robot.Connect("");
  WaitMotorsReady(c);
  const RobotClock clock = SyncedClock(c);
  std::vector<float> torque(kJoints, 0.0f);
  torque[kShoulder] = -1000.0f;
  const std::vector<float> zero(kJoints, 0.0f), pose = MeasuredPose(c);
  ASSERT_EQ(pose.size(), static_cast<std::size_t>(kJoints));
  const std::int64_t t = NowUs();
  std::uint32_t key = 0;
  const auto first =
      Command(c, JointCmd(pose, clock.Now() + kSingleEndUs, ++key, {}, torque, zero, zero));
  ASSERT_TRUE(first.accepted()) << first.reason();
  const auto error = WaitError(observer, "JOINT_VELOCITY_LIMIT", 3s);
  ASSERT_TRUE(error) << "no JOINT_VELOCITY_LIMIT";
  EXPECT_NE(error->error().message().find("L_Shoulder_Pitch"), std::string::npos)
      << error->error().message();
  EXPECT_NE(error->error().message().find("max_velocity"), std::string::npos)
      << error->error().message();
  float strongest = 0;
  for (const auto& f : robot.monitor().Since(t)) {
    if (!f.special && robot.monitor().JointOf(f) == kShoulder) {
      strongest = std::max(strongest, std::fabs(f.command.torque_nm));
    }
  }
  EXPECT_LE(strongest, 18.0f + kTorqueTol) << "the torque was not bounded";
  EXPECT_TRUE(robot.monitor().WaitFor(
      t,
      [&](const SeenFrame& f) {
        return !f.special && robot.monitor().JointOf(f) == kShoulder && f.command.kp == 0.0f &&
               std::fabs(f.command.torque_nm) < kTorqueTol;
      },
      2s))
      << "no DAMP frame for the shoulder";
}

// Issue 40 item 3: a joint's max_torque below its motor's t_max is what reaches the wire, and
// it decides where the joint ends. L_Shoulder_Pitch gets max_torque 3 N·m (t_max 18); from DAMP,
// kp = kd = 0 and τ = +1000 N·m stream toward its upper limit (1.5 rad). Every frame's torque is
// 3 N·m, so the joint stays under its 20 rad/s velocity trip (the simulator's friction,
// 0.2 N·m·s/rad: 15 rad/s at most), passes its limit (JOINT_PAST_LIMIT, a warning) and ends
// against the simulator's hard stop, kHardStopMarginRad (0.05) past it, where the stream's
// timeout DAMPs it. Broken by hand (max_torque 18, t_max's), it failed both ways: 18 N·m on
// the wire, the velocity trip and the joint coasting to the stop all the same; and the trip's
// DAMP stopping it before its limit.
TEST(JointStream, AJointsMaxTorqueBoundsTheWireAndWhereTheJointEnds) {
  constexpr int kShoulder = 12;
  constexpr float kMaxTorque = 3.0f, kUpper = 1.5f, kHardStop = 0.05f, kAtRest = 0.01f;
  RobotOptions o;
  o.config_edits = {{"{name: L_Shoulder_Pitch, ", "{name: L_Shoulder_Pitch, max_torque: 3, "}};
  Robot robot(o);
  auto c = robot.Connect("cloud");
  auto observer = robot.Connect("");
  WaitMotorsReady(c);
  const RobotClock clock = SyncedClock(c);
  std::vector<float> torque(kJoints, 0.0f);
  torque[kShoulder] = 1000.0f;
  const std::vector<float> zero(kJoints, 0.0f), pose = MeasuredPose(c);
  ASSERT_EQ(pose.size(), static_cast<std::size_t>(kJoints));
  const std::int64_t t = NowUs();
  std::uint32_t key = 0;
  const auto first =
      Command(c, JointCmd(pose, clock.Now() + kEndAfterUs, ++key, {}, torque, zero, zero));
  ASSERT_TRUE(first.accepted()) << first.reason();
  Received rx;  // streamed: a single command's timeout would DAMP before the limit
  Stream(c, &rx, 2ms, 1000ms,
         [&](int) { return JointCmd(pose, clock.Now() + kEndAfterUs, ++key, {}, torque); });
  bool velocity_trip = false;  // seen before the joint passed its limit
  const auto past = WaitEvent(
      observer,
      [&](const edge::EdgeEvent& e) {
        velocity_trip |= e.has_error() && e.error().code() == "JOINT_VELOCITY_LIMIT";
        return e.has_error() && e.error().code() == "JOINT_PAST_LIMIT";
      },
      3s);
  ASSERT_TRUE(past) << "the joint never passed its limit";
  EXPECT_NE(past->error().message().find("L_Shoulder_Pitch"), std::string::npos)
      << past->error().message();
  float strongest = 0;
  for (const auto& f : robot.monitor().Since(t)) {
    if (!f.special && robot.monitor().JointOf(f) == kShoulder) {
      strongest = std::max(strongest, std::fabs(f.command.torque_nm));
    }
  }
  EXPECT_GT(strongest, kMaxTorque - kTorqueTol) << "the push never reached the wire";
  EXPECT_LE(strongest, kMaxTorque + kTorqueTol) << "max_torque did not bound the wire's torque";
  std::this_thread::sleep_for(500ms);  // the stream's timeout DAMPs; the joint is at rest
  const std::vector<float> end = MeasuredPose(c);
  ASSERT_EQ(end.size(), static_cast<std::size_t>(kJoints));
  std::printf(
      "L_Shoulder_Pitch ended at %.3f rad (limit %.2f, hard stop %.2f past it); the "
      "strongest torque on the wire %.2f N·m (max_torque %.1f)\n",
      end[kShoulder], kUpper, kHardStop, strongest, kMaxTorque);
  EXPECT_NEAR(end[kShoulder], kUpper + kHardStop, kAtRest) << "not at the stop";
  EXPECT_FALSE(velocity_trip || WaitError(observer, "JOINT_VELOCITY_LIMIT", 10ms))
      << "the velocity trip: the torque was not bounded";
}

// Proves the stop latch, as the audit probed it: an observer's DAMP interrupts the controller's
// stream; after a 250 ms pause the same stream is still refused (stop_latched, one MODE_BLOCKED
// naming the observer) and the motors stay limp; the controller's STAND releases it.
TEST(JointStream, AnObserversDampHoldsUntilTheControllerStands) {
  Robot robot;
  auto c = robot.Connect("cloud");
  auto observer = robot.Connect("");
  WaitMotorsReady(c);
  const RobotClock clock = SyncedClock(c);
  const std::vector<float> hold = MeasuredPose(c);
  ASSERT_EQ(hold.size(), static_cast<std::size_t>(kJoints)) << "no telemetry";
  const std::vector<float> kp(kJoints, 40.0f), kd(kJoints, 2.0f);
  std::uint32_t key = 0;
  const auto first = Command(c, JointCmd(hold, clock.Now() + kSingleEndUs, ++key, {}, {}, kp, kd));
  ASSERT_TRUE(first.accepted()) << first.reason();
  Received rx;
  Stream(c, &rx, 10ms, 200ms,
         [&](int) { return JointCmd(hold, clock.Now() + kEndAfterUs, ++key); });

  ASSERT_TRUE(Command(observer, Mode(edge::MODE_DAMP)).accepted());
  std::this_thread::sleep_for(250ms);
  const std::int64_t resumed_us = NowUs();
  Received again;
  const auto resent = Stream(c, &again, 10ms, 400ms, [&](int) {
    return JointCmd(hold, clock.Now() + kEndAfterUs, ++key, {}, {}, kp, kd);
  });
  Drain(c, &again, 200ms);
  // Only the answers to the packets after the pause (late answers to the first stream may come).
  Received after;
  after.events = again.events;
  for (const Sent& s : resent) {
    const auto it = again.results.find(s.command.sequence());
    if (it != again.results.end()) after.results.insert(*it);
  }
  again = after;
  EXPECT_GE(again.results.size(), resent.size() / 2) << "answers missing";
  const auto refusals = Refusals(again);
  for (const auto& [reason, n] : refusals) {
    EXPECT_TRUE(reason == "stop_latched" || TimingRefusal(reason)) << ToString(refusals);
  }
  EXPECT_GE(refusals.count("stop_latched") ? refusals.at("stop_latched") : 0, 20)
      << ToString(refusals);
  for (const auto& [sequence, result] : again.results) {
    EXPECT_FALSE(result.accepted()) << "packet " << sequence << " re-engaged the motors";
  }
  int blocked = 0;
  for (const auto& e : again.events) {
    if (!e.has_error() || e.error().code() != "MODE_BLOCKED") continue;
    ++blocked;
    EXPECT_NE(e.error().message().find("an observer (client"), std::string::npos)
        << e.error().message();
    EXPECT_NE(e.error().message().find("ModeCommand(STAND)"), std::string::npos)
        << e.error().message();
  }
  EXPECT_EQ(blocked, 1) << "one MODE_BLOCKED per stream";
  const auto driving = DrivingFrames(robot, resumed_us, NowUs());
  for (int j = 0; j < kJoints; ++j) {
    EXPECT_TRUE(driving[static_cast<std::size_t>(j)].empty()) << "joint " << j << " driven";
  }

  // The controller's STAND releases the stop; its stream is then accepted.
  const auto stand = Command(c, Mode(edge::MODE_STAND));
  ASSERT_TRUE(stand.accepted()) << stand.reason();
  const auto resumed =
      Command(c, JointCmd(hold, clock.Now() + kSingleEndUs, ++key, {}, {}, kp, kd));
  EXPECT_TRUE(resumed.accepted()) << resumed.reason();
  EXPECT_TRUE(Command(c, Mode(edge::MODE_DAMP)).accepted());
}

// Proves: from DAMP a JointCommand is refused, with the reason, when it cannot start a stream:
// no gains, an end_time already past, a position count that is not one per joint, no end_time;
// the robot stays in DAMP; a well-formed one is then accepted.
TEST(JointStream, FirstCommandWithoutGainsIsRefused) {
  Robot robot;
  auto c = robot.Connect("cloud");
  WaitMotorsReady(c);
  const RobotClock clock = SyncedClock(c);
  const std::vector<float> pose = StandPose(robot.config());
  const std::vector<float> kp = StreamKp(), kd = StreamKd();

  auto r = Command(c, JointCmd(pose, clock.Now() + kSingleEndUs, 1));
  EXPECT_FALSE(r.accepted());
  EXPECT_EQ(r.reason(), "joint_stream_no_gains");
  EXPECT_EQ(r.control_mode(), edge::CONTROL_MODE_DAMP);

  r = Command(c, JointCmd(pose, clock.Now() - 10'000, 2, {}, {}, kp, kd));
  EXPECT_FALSE(r.accepted());
  EXPECT_EQ(r.reason(), "joint_stream_expired");
  EXPECT_EQ(r.control_mode(), edge::CONTROL_MODE_DAMP);

  const std::vector<float> three = {0.0f, 0.0f, 0.0f};
  r = Command(c, JointCmd(three, clock.Now() + kSingleEndUs, 3, {}, {}, {1, 1, 1}, {1, 1, 1}));
  EXPECT_FALSE(r.accepted());
  EXPECT_EQ(r.reason(), "joint_stream_bad_length");

  edge::JointCommand no_end = JointCmd(pose, clock.Now() + kSingleEndUs, 4, {}, {}, kp, kd);
  no_end.clear_end_time_us();
  r = Command(c, no_end);
  EXPECT_FALSE(r.accepted());
  EXPECT_EQ(r.reason(), "joint_stream_no_end_time");

  const auto t = WaitTelemetryMessage(
      c, [](const auto&) { return true; }, 2s);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->telemetry_extension().control_mode(), edge::CONTROL_MODE_DAMP);
  EXPECT_EQ(t->telemetry_extension().last_user_command_key(), 0u) << "a refused command applied";

  r = Command(c, JointCmd(pose, clock.Now() + kSingleEndUs, 5, {}, {}, kp, kd));
  EXPECT_TRUE(r.accepted()) << r.reason();
  EXPECT_EQ(r.control_mode(), edge::CONTROL_MODE_MOVE_JOINT_STREAM);
  EXPECT_TRUE(Command(c, Mode(edge::MODE_DAMP)).accepted());
}

// Proves: TimeSync answers (to any client), with a round trip under a second, and on the same
// machine (both clocks CLOCK_MONOTONIC) an offset within its uncertainty, half the round trip;
// telemetry's robot_time_us is on that clock.
TEST(JointStream, TimeSync) {
  Robot robot;
  auto observer = robot.Connect("");
  WaitMotorsReady(observer);
  const client::ClockOffset clock = observer.SyncClock(5, 2s);
  EXPECT_GT(clock.round_trip_us, 0);
  EXPECT_LT(clock.round_trip_us, 1'000'000);
  EXPECT_LE(std::llabs(clock.offset_us), clock.round_trip_us / 2 + 1)
      << "offset " << clock.offset_us << " µs, round trip " << clock.round_trip_us << " µs";
  RecordProperty("round_trip_us", std::to_string(clock.round_trip_us));
  RecordProperty("offset_us", std::to_string(clock.offset_us));

  const auto t = WaitTelemetryMessage(
      observer, [](const auto&) { return true; }, 2s);
  ASSERT_TRUE(t);
  const std::int64_t now = clock.ToRobot(client::MonotonicMicros());
  const std::int64_t stamped = t->telemetry_extension().robot_time_us();
  EXPECT_LE(stamped, now + clock.round_trip_us) << "a frame from the future";
  EXPECT_GT(stamped, now - 1'000'000) << "a frame over a second old, or another clock";
}

}  // namespace
}  // namespace robot_edge::e2e
