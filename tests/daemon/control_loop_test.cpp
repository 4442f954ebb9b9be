// The control loop's tick over fake buses: frames out, commands in, events and snapshots to the
// API thread, and the shutdown sequence. Time is passed in by hand.
#include "daemon/control/control_loop.hpp"

#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "daemon/control/fatal_signals.hpp"
#include "sim/in_memory_robot.hpp"

namespace robot_edge::daemon {
namespace {

constexpr std::int64_t kMs = 1000;

const config::Config& Config() {
  static const config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  return c;
}

class ControlLoopTest : public testing::Test {
 protected:
  ControlLoopTest() : robot_(Config()), channels_(Config(), 8, 256) {
    channels_.wake_fd = ::eventfd(0, EFD_NONBLOCK);
    loop_ = std::make_unique<ControlLoop>(Config(), robot_.transport(), nullptr, &channels_);
  }
  ~ControlLoopTest() override { ::close(channels_.wake_fd); }

  // Ticks every 2 ms from `from` to `to` with the robot answering.
  void Run(std::int64_t from, std::int64_t to) {
    for (std::int64_t t = from; t < to; t += 2 * kMs) {
      robot_.Answer(t);
      loop_->Tick(t);
      now_ = t;
    }
  }
  void Send(sm::Command command, std::uint64_t client = 1) {
    CommandSlot* slot = channels_.commands.Acquire();
    ASSERT_NE(slot, nullptr);
    slot->command = command;
    slot->client_id = client;
    slot->want_result = true;
    channels_.commands.Send(slot);
  }
  std::vector<ControlEvent> Events() {
    std::vector<ControlEvent> out;
    ControlEvent e;
    while (channels_.events.Pop(&e)) out.push_back(e);
    return out;
  }
  // The command frame last sent to joint j, decoded.
  can::MitCommand Sent(std::size_t j) {
    const auto& joint = Config().joints[j];
    for (const can_frame& f : robot_.transport().sent(joint.bus)) {
      can::MitCommand c;
      if (f.can_id == joint.can_id &&
          can::DecodeCommand(std::span(f.data, 8), can::ProtocolOf(Config().motor_of(j)).ranges,
                             &c)) {
        return c;
      }
    }
    ADD_FAILURE() << "no command frame for joint " << j;
    return {};
  }

  sim::InMemoryRobot robot_;
  ControlChannels channels_;
  std::unique_ptr<ControlLoop> loop_;
  std::int64_t now_ = 0;
};

TEST_F(ControlLoopTest, EveryTickSendsOneDampCommandPerMotorAtBoot) {
  Run(0, 20 * kMs);
  robot_.Answer(20 * kMs);
  loop_->Tick(20 * kMs);
  std::size_t frames = 0;
  for (std::size_t b = 0; b < 5; ++b) frames += robot_.transport().sent(b).size();
  EXPECT_EQ(frames, 25u) << "one frame per motor, no waiting for replies in between";
  for (std::size_t j = 0; j < 25; ++j) {
    EXPECT_EQ(Sent(j).kp, 0.0f) << j;
    EXPECT_NEAR(Sent(j).kd, Config().joints[j].damp_kd, 5.0 / 4095) << j;
  }
}

TEST_F(ControlLoopTest, CommandsReachTheStateMachineAndTheirResultsComeBack) {
  Run(0, 10 * kMs);
  sm::Command stand;
  stand.kind = sm::CommandKind::kMode;
  stand.mode = sm::ModeRequest::kStand;
  stand.sequence = 5;
  Send(stand, 42);
  sm::Command walk;
  walk.kind = sm::CommandKind::kVelocity;
  walk.sequence = 6;
  Send(walk, 42);  // no policy configured: refused
  Run(10 * kMs, 12 * kMs);
  const auto events = Events();
  std::vector<ControlEvent> results;
  for (const auto& e : events) {
    if (e.kind == ControlEvent::Kind::kCommandResult) results.push_back(e);
  }
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].client_id, 42u);
  EXPECT_EQ(results[0].sequence, 5u);
  EXPECT_TRUE(results[0].result.accepted);
  EXPECT_FALSE(results[1].result.accepted);
  EXPECT_EQ(results[1].result.reason, sm::Reason::kVelocityNoPolicy);
  EXPECT_EQ(channels_.snapshots.Latest().mode, sm::Mode::kStand);
  EXPECT_GT(Sent(3).kp, 0.0f) << "STAND drives the motors";
  std::uint64_t woken = 0;
  EXPECT_EQ(::read(channels_.wake_fd, &woken, sizeof(woken)), 8) << "the API thread was woken";
  ASSERT_NE(channels_.commands.Acquire(), nullptr) << "slots come back to the pool";
}

TEST_F(ControlLoopTest, AnUrgentDampIsAppliedAfterThePipesCommandsOnTheNextTick) {
  Run(0, 10 * kMs);
  sm::Command stand;
  stand.kind = sm::CommandKind::kMode;
  stand.mode = sm::ModeRequest::kStand;
  Send(stand);
  Run(10 * kMs, 20 * kMs);
  ASSERT_EQ(channels_.snapshots.Latest().mode, sm::Mode::kStand);
  Send(stand);  // queued before the DAMP that found the pipe full: DAMP still wins
  channels_.urgent.fetch_or(kUrgentDamp);
  Run(20 * kMs, 22 * kMs);
  EXPECT_EQ(channels_.snapshots.Latest().mode, sm::Mode::kDamp);
  EXPECT_EQ(channels_.urgent.load(), 0u) << "the request is consumed";
  for (std::size_t j = 0; j < 25; ++j) EXPECT_EQ(Sent(j).kp, 0.0f) << j;
  stand.received_us = stand.sent_us = 22 * kMs;  // a new STAND, sent after the DAMP
  Send(stand);                                   // and the DAMP is not applied again
  Run(22 * kMs, 24 * kMs);
  EXPECT_EQ(channels_.snapshots.Latest().mode, sm::Mode::kStand);
}

// The supervisor sent DAMP for a stalled control thread (fatal_signals.hpp's handshake): the
// thread, running again, holds DAMP itself with CONTROL_STALLED, which refuses STAND for a second.
TEST_F(ControlLoopTest, AfterTheSupervisorsStallDampTheLoopHoldsDampWithControlStalled) {
  Run(0, 10 * kMs);
  sm::Command stand;
  stand.kind = sm::CommandKind::kMode;
  stand.mode = sm::ModeRequest::kStand;
  Send(stand);
  Run(10 * kMs, 20 * kMs);
  ASSERT_EQ(channels_.snapshots.Latest().mode, sm::Mode::kStand);
  ASSERT_GT(Sent(3).kp, 0.0f) << "the motors engaged before the stall";
  detail::stall_damp_ms.store(57);  // what SendStallDamp() sets before it sends
  Run(77 * kMs, 79 * kMs);
  EXPECT_EQ(detail::stall_damp_ms.load(), 0u) << "taken";
  const ControlSnapshot& s = channels_.snapshots.Latest();
  EXPECT_EQ(s.mode, sm::Mode::kDamp);
  ASSERT_EQ(s.alert_count, 1u);
  EXPECT_EQ(s.alerts[0].id, sm::AlertId::kControlStalled);
  EXPECT_EQ(s.alerts[0].value, 57u);
  EXPECT_EQ(s.alerts[0].threshold, 50u) << "safety.control_stall_ms";
  for (std::size_t j = 0; j < 25; ++j) EXPECT_EQ(Sent(j).kp, 0.0f) << j;
  stand.received_us = stand.sent_us = 80 * kMs;
  Send(stand);
  Run(80 * kMs, 82 * kMs);
  EXPECT_EQ(channels_.snapshots.Latest().mode, sm::Mode::kDamp) << "refused while it is active";
  Run(82 * kMs, 1080 * kMs);
  EXPECT_EQ(channels_.snapshots.Latest().alert_count, 0u) << "cleared a second later";
  EXPECT_EQ(channels_.snapshots.Latest().mode, sm::Mode::kDamp) << "the robot stays in DAMP";
}

TEST_F(ControlLoopTest, AlertsTravelToTheApiThreadAsEvents) {
  Run(0, 10 * kMs);
  robot_.robot().motor(15).PinTemperature(85);
  Run(10 * kMs, 20 * kMs);
  bool raised = false;
  for (const auto& e : Events()) {
    raised |= e.kind == ControlEvent::Kind::kStateMachine &&
              e.event.kind == sm::EventKind::kAlertRaised &&
              e.event.alert.id == sm::AlertId::kMotorOvertemp && e.event.alert.source == 15;
  }
  EXPECT_TRUE(raised);
  const ControlSnapshot& s = channels_.snapshots.Latest();
  EXPECT_EQ(s.alert_count, 1u);
  EXPECT_EQ(s.error_flags, 0x01u);
  EXPECT_FLOAT_EQ(s.joints[15].temperature_c, 85.0f);
}

TEST_F(ControlLoopTest, AnImuWhoseGyroFrameStopsTimesOut) {
  Run(0, 200 * kMs);
  EXPECT_EQ(channels_.snapshots.Latest().alert_count, 0u);
  robot_.set_gyro(false);  // the quaternion keeps coming
  Run(200 * kMs, 600 * kMs);
  bool raised = false;
  for (const auto& e : Events()) {
    raised |= e.kind == ControlEvent::Kind::kStateMachine &&
              e.event.kind == sm::EventKind::kAlertRaised &&
              e.event.alert.id == sm::AlertId::kImuTimeout;
  }
  EXPECT_TRUE(raised) << "the policy would read a frozen base_ang_vel";
}

TEST_F(ControlLoopTest, TheSnapshotCarriesTheMeasurements) {
  Run(0, 10 * kMs);
  const ControlSnapshot& s = channels_.snapshots.Latest();
  EXPECT_EQ(s.tick_us, 8 * kMs);
  EXPECT_EQ(s.joints.size(), 25u);
  EXPECT_GE(s.joints[0].last_reply_us, 0);
  EXPECT_GE(s.imu.last_update_us, 0);
  EXPECT_TRUE(s.imu.has_accel) << "the default config's imu.accel_id";
  EXPECT_NEAR(s.imu.accel_m_s2[2], 9.81f, 0.005f);
  EXPECT_EQ(s.mode, sm::Mode::kDamp);
}

// Every scheduled tick's state goes to the flight recorder while it runs, in order, with what
// each motor was sent; nothing while it does not; a full queue loses (counts) rather than waits.
TEST_F(ControlLoopTest, EveryTicksStateIsQueuedForTheFlightRecorderOnlyWhileItRuns) {
  Run(0, 20 * kMs);
  EXPECT_EQ(channels_.states.Peek(), nullptr) << "nobody records: nothing queued";
  channels_.record_states.store(true);
  Run(20 * kMs, 40 * kMs);
  std::uint64_t previous = 0;
  int count = 0;
  while (const StateSample* s = channels_.states.Peek()) {
    EXPECT_GT(s->tick, previous);
    previous = s->tick;
    EXPECT_EQ(s->joints.size(), 25u);
    EXPECT_EQ(s->commands[3].kp, 0.0f) << "DAMP: kp 0";
    EXPECT_EQ(s->commands[3].kd, Config().joints[3].damp_kd);
    channels_.states.Release();
    ++count;
  }
  EXPECT_EQ(count, 10);
  const std::size_t room = channels_.states.capacity();
  Run(40 * kMs, 40 * kMs + static_cast<std::int64_t>(room + 5) * 2 * kMs);
  EXPECT_EQ(channels_.states_lost.load(), 5u);
}

TEST_F(ControlLoopTest, ShutdownSendsDampThenExitsMotorModeOnEveryBus) {
  sm::Command stand;
  stand.kind = sm::CommandKind::kMode;
  stand.mode = sm::ModeRequest::kStand;
  Run(0, 10 * kMs);
  Send(stand);
  Run(10 * kMs, 20 * kMs);
  robot_.Answer(20 * kMs);  // clears what was sent so far
  loop_->Shutdown(20 * kMs);
  for (std::size_t b = 0; b < 5; ++b) {
    const auto& sent = robot_.transport().sent(b);
    const std::size_t motors = sent.size() / 2;
    ASSERT_GT(motors, 0u);
    for (std::size_t i = 0; i < sent.size(); ++i) {
      can::SpecialCommand special;
      const bool is_exit = can::DecodeSpecial(std::span(sent[i].data, 8), &special) &&
                           special == can::SpecialCommand::kExitMotorMode;
      EXPECT_EQ(is_exit, i >= motors) << "bus " << b << " frame " << i;
      if (i < motors) {
        can::MitCommand c;
        ASSERT_TRUE(can::DecodeCommand(std::span(sent[i].data, 8), {}, &c));
        EXPECT_EQ(c.kp, 0.0f) << "DAMP first";
      }
    }
  }
  EXPECT_EQ(channels_.snapshots.Latest().mode, sm::Mode::kDamp);
}

}  // namespace
}  // namespace robot_edge::daemon
