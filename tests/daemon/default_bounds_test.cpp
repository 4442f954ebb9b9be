// docs/safety.md's column "Bound on the robot (default config)", asserted in process: the control
// loop on the shipped config/robot-edge.yaml over the in-memory robot, with time passed by hand
// in 2 ms ticks. What is measured is the logic's own latency, without a kernel or a scheduler:
// each bound here is the table's minus its 10 ms kernel margin, and each fault is first checked
// to take no less than its configured time (so that the DAMP seen is the one the fault decides).
// tests/e2e runs the same faults on vcan buses, where user-mode-linux adds its margin.
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

#include "can/motor_protocol.hpp"
#include "daemon/control/control_loop.hpp"
#include "sim/control_protocol.hpp"
#include "sim/in_memory_robot.hpp"
#include "statemachine/trajectory.hpp"

namespace robot_edge::daemon {
namespace {

constexpr std::int64_t kMs = 1000;
constexpr std::int64_t kTick = 2 * kMs;  // the default config's 500 Hz (the IMU answers each tick)

const config::Config& Config() {
  static const config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  return c;
}

class DefaultBounds : public testing::Test {
 protected:
  DefaultBounds() : robot_(Config()), channels_(Config(), 8, 256), trajectory_(25, 4) {
    channels_.wake_fd = ::eventfd(0, EFD_NONBLOCK);
    loop_ = std::make_unique<ControlLoop>(Config(), robot_.transport(), nullptr, &channels_);
  }
  ~DefaultBounds() override { ::close(channels_.wake_fd); }

  void Tick() {
    robot_.Answer(now_);  // the last tick's frames reach the motors (and are forgotten)
    loop_->Tick(now_);
    for (std::size_t j = 0; j < last_.size(); ++j) {
      if (auto c = SentTo(j)) last_[j] = *c;
    }
    now_ += kTick;
  }
  void RunFor(std::int64_t us) {
    for (const std::int64_t end = now_ + us; now_ < end;) Tick();
  }
  void Send(sm::Command command) {
    command.received_us = command.sent_us = now_;
    CommandSlot* slot = channels_.commands.Acquire();
    ASSERT_NE(slot, nullptr);
    slot->command = command;
    slot->client_id = 1;
    slot->want_result = true;
    channels_.commands.Send(slot);
  }
  void Stand() {
    RunFor(200 * kMs);  // every motor has replied, the IMU is fresh
    sm::Command stand;
    stand.kind = sm::CommandKind::kMode;
    stand.mode = sm::ModeRequest::kStand;
    Send(stand);
    RunFor(100 * kMs);
    ASSERT_EQ(channels_.snapshots.Latest().mode, sm::Mode::kStand);
  }
  void Trajectory() {
    trajectory_.Clear();
    std::vector<float> pose(25), kp(25), kd(25);
    for (std::size_t j = 0; j < 25; ++j) {
      pose[j] = last_[j].position_rad;
      kp[j] = static_cast<float>(Config().joints[j].kp);
      kd[j] = static_cast<float>(Config().joints[j].kd);
    }
    trajectory_.Append(pose, kp, kd);
    sm::Command c;
    c.kind = sm::CommandKind::kTrajectory;
    c.trajectory = &trajectory_;
    Send(c);
  }
  void Sim(const std::string& line) {
    const sim::ParseResult p = sim::ParseControlLine(line, Config());
    ASSERT_TRUE(p.command) << p.error;
    robot_.robot().Execute(*p.command, now_);
  }

  bool Engaged(const std::vector<int>& joints) const {
    for (int j : joints) {
      if (last_[j].kp <= 0.0f) return false;
    }
    return true;
  }
  bool Damped(const std::vector<int>& joints) const {
    for (int j : joints) {
      const double kd = Config().joints[j].damp_kd;
      if (last_[j].kp != 0.0f || std::abs(last_[j].kd - kd) > 5.0 / 4095 * 10) return false;
    }
    return true;
  }
  // Ticks until every joint of `joints` was last sent kp 0 with its damp_kd; the time (ms) from
  // `fault_us` to the tick that sent it, or nullopt after 2 s.
  std::optional<double> MsToDamp(std::int64_t fault_us, const std::vector<int>& joints) {
    for (const std::int64_t end = now_ + 2000 * kMs; now_ < end;) {
      const std::int64_t tick = now_;
      Tick();
      if (Damped(joints)) return static_cast<double>(tick - fault_us) / kMs;
    }
    return std::nullopt;
  }
  static std::vector<int> All() {
    std::vector<int> all(25);
    for (int j = 0; j < 25; ++j) all[j] = j;
    return all;
  }

  sim::InMemoryRobot robot_;
  ControlChannels channels_;
  std::unique_ptr<ControlLoop> loop_;
  sm::Trajectory trajectory_;
  std::vector<can::MitCommand> last_ = std::vector<can::MitCommand>(25);
  std::int64_t now_ = 0;

 private:
  std::optional<can::MitCommand> SentTo(std::size_t j) {
    const auto& joint = Config().joints[j];
    std::optional<can::MitCommand> last;
    for (const can_frame& f : robot_.transport().sent(joint.bus)) {
      can::MitCommand c;
      if (f.can_id == joint.can_id &&
          can::DecodeCommand(std::span(f.data, 8), can::ProtocolOf(Config().motor_of(j)).ranges,
                             &c)) {
        last = c;
      }
    }
    return last;
  }
};

// The table's rows: the configured time that decides each, plus 2 ticks (the one that sees it,
// the one that sends), without the 10 ms kernel margin.
TEST_F(DefaultBounds, ATrajectoryStreamThatStopsDampsWithin204Ms) {
  ASSERT_EQ(Config().control.trajectory_timeout_ms, 200);
  Stand();
  Trajectory();
  Tick();
  ASSERT_TRUE(Engaged(All()));
  const std::int64_t last_packet = now_ - kTick;
  const auto ms = MsToDamp(last_packet, All());
  ASSERT_TRUE(ms) << "no DAMP";
  EXPECT_GE(*ms, 200.0) << "DAMP before the watchdog's 200 ms: not the stream's stop";
  EXPECT_LE(*ms, 204.0) << "measured " << *ms << " ms";
  RecordProperty("ms", std::to_string(*ms));
}

TEST_F(DefaultBounds, OneMotorSilentDampsWithin54Ms) {
  ASSERT_EQ(Config().control.motor_reply_timeout_ms, 50);
  Stand();
  ASSERT_TRUE(Engaged(All()));
  const std::int64_t fault = now_;
  Sim("silence L_Knee on");
  const auto ms = MsToDamp(fault, All());
  ASSERT_TRUE(ms) << "no DAMP";
  EXPECT_GE(*ms, 50.0);
  EXPECT_LE(*ms, 54.0) << "measured " << *ms << " ms";
  RecordProperty("ms", std::to_string(*ms));
}

TEST_F(DefaultBounds, TheImuSilentDampsWithin104Ms) {
  ASSERT_EQ(Config().imu.timeout_ms, 100);
  Stand();
  ASSERT_TRUE(Engaged(All()));
  const std::int64_t fault = now_;
  Sim("imu off");
  const auto ms = MsToDamp(fault, All());
  ASSERT_TRUE(ms) << "no DAMP";
  EXPECT_GE(*ms, 100.0 - 2.0) << "before the IMU timeout (its last frame came a tick before)";
  EXPECT_LE(*ms, 104.0) << "measured " << *ms << " ms";
  RecordProperty("ms", std::to_string(*ms));
}

TEST_F(DefaultBounds, AnOvertemperatureDampsWithin4Ms) {
  Stand();
  ASSERT_TRUE(Engaged(All()));
  const std::int64_t fault = now_;
  Sim("temp L_Knee 85");
  const auto ms = MsToDamp(fault, All());
  ASSERT_TRUE(ms) << "no DAMP";
  EXPECT_LE(*ms, 4.0) << "measured " << *ms << " ms";
  RecordProperty("ms", std::to_string(*ms));
}

TEST_F(DefaultBounds, AFallDampsWithin109Ms) {
  ASSERT_EQ(Config().safety.fall_hold_ms, 100);
  Stand();
  ASSERT_TRUE(Engaged(All()));
  const std::int64_t fault = now_;
  Sim("tilt 0 75");
  const auto ms = MsToDamp(fault, All());
  ASSERT_TRUE(ms) << "no DAMP";
  EXPECT_GE(*ms, 100.0) << "before safety.fall_hold_ms";
  EXPECT_LE(*ms, 109.0) << "measured " << *ms << " ms";
  RecordProperty("ms", std::to_string(*ms));  // + an IMU period (5 ms at 200 Hz) + 2 ticks
}

}  // namespace
}  // namespace robot_edge::daemon
