// Shared helpers of the state machine tests: the default robot, healthy measurements, commands,
// and a scripted policy. Time is advanced by hand, in µs.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "config/config.hpp"
#include "config/library_options.hpp"
#include "statemachine/state_machine.hpp"

namespace robot_edge::sm::test {

constexpr std::int64_t kMs = 1000;
constexpr std::int64_t kS = 1'000'000;

inline const config::Config& DefaultConfig() {
  static const config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  return c;
}

// The default config without its target_limits: the modes' own behaviour, unshaped.
inline const config::Config& UnlimitedConfig() {
  static const config::Config c = [] {
    config::Config copy = DefaultConfig();
    copy.target_limits.clear();
    return copy;
  }();
  return c;
}

// A policy that returns fixed targets (or a fault) and records what it was given.
class ScriptedPolicy final : public Policy {
 public:
  void Reset(std::int64_t now_us) override {
    ++resets;
    last_reset_us = now_us;
  }
  PolicyResult Targets(std::int64_t, const Velocity& command, const Inputs&,
                       std::span<JointTarget> out) override {
    last_command = command;
    ++calls;
    if (fault) return {PolicyStatus::kFault, *fault, fault_detail};
    if (!ready) return {PolicyStatus::kWaiting, PolicyFault::kStale, 0};
    std::copy(targets.begin(), targets.end(), out.begin());
    return {PolicyStatus::kTargets, PolicyFault::kStale, 0};
  }
  bool ready = true;
  std::optional<PolicyFault> fault;  // reported instead of targets when set
  std::uint32_t fault_detail = 0;
  std::vector<JointTarget> targets = std::vector<JointTarget>(25, JointTarget{0.1f, 0, 50, 2, 0});
  Velocity last_command;
  int resets = 0;
  int calls = 0;
  std::int64_t last_reset_us = -1;
};

// The robot as the state machine sees it: every motor replying, IMU upright, buses fine.
struct Robot {
  std::vector<JointMeasurement> joints = std::vector<JointMeasurement>(25);
  ImuMeasurement imu;
  std::vector<BusStatus> buses = std::vector<BusStatus>(5);

  // Fresh replies and IMU at `now_us`.
  Inputs At(std::int64_t now_us) {
    for (auto& j : joints) j.last_reply_us = now_us;
    imu.last_update_us = now_us;
    return Inputs{joints, imu, buses};
  }
  // As last measured, without refreshing anything.
  Inputs Stale() { return Inputs{joints, imu, buses}; }
};

// Commands received (and sent) at `t` unless said otherwise.
inline Command ModeCmd(ModeRequest m, std::int64_t t = 0) {
  Command c;
  c.kind = CommandKind::kMode;
  c.mode = m;
  c.received_us = c.sent_us = t;
  return c;
}

inline Command VelocityCmd(float vx, float vy, float vyaw, std::int64_t t = 0) {
  Command c;
  c.kind = CommandKind::kVelocity;
  c.velocity = {vx, vy, vyaw};
  c.received_us = c.sent_us = t;
  return c;
}

// A one-segment trajectory at `pose` with the default gains.
class TrajectoryMaker {
 public:
  TrajectoryMaker() : trajectory_(25, 256) {}
  Command Make(const std::vector<float>& pose, std::int64_t t) {
    trajectory_.Clear();
    std::vector<float> kp, kd;
    for (const auto& j : DefaultConfig().joints) {
      kp.push_back(static_cast<float>(j.kp));
      kd.push_back(static_cast<float>(j.kd));
    }
    trajectory_.Append(pose, kp, kd);
    Command c;
    c.kind = CommandKind::kTrajectory;
    c.trajectory = &trajectory_;
    c.received_us = c.sent_us = t;
    return c;
  }
  Command Zero(std::int64_t t) { return Make(std::vector<float>(25, 0.0f), t); }
  Trajectory& trajectory() { return trajectory_; }

 private:
  Trajectory trajectory_;
};

// A joint command at `pose` with kp 40, kd 1.5, ending `lasts_us` after `t`.
class JointStreamMaker {
 public:
  JointStreamMaker() : command_(25) {}
  Command Make(const std::vector<float>& pose, std::int64_t t, std::int64_t lasts_us = 100'000) {
    command_.position_rad = pose;
    std::fill(command_.velocity_rad_s.begin(), command_.velocity_rad_s.end(), 0.0f);
    std::fill(command_.torque_nm.begin(), command_.torque_nm.end(), 0.0f);
    std::fill(command_.kp.begin(), command_.kp.end(), 40.0f);
    std::fill(command_.kd.begin(), command_.kd.end(), 1.5f);
    command_.has_gains = true;
    command_.end_us = t + lasts_us;
    command_.reference_us = 0;
    command_.extrapolation_us = 0;
    command_.key = 0;
    command_.velocity_limit_rad_s = 0;
    return Wrap(t);
  }
  Command Zero(std::int64_t t) { return Make(std::vector<float>(25, 0.0f), t); }
  // The command as it stands (after editing command()), received and sent at `t`.
  Command Wrap(std::int64_t t) {
    Command c;
    c.kind = CommandKind::kJointStream;
    c.joint_stream = &command_;
    c.received_us = c.sent_us = t;
    return c;
  }
  JointStreamCommand& command() { return command_; }

 private:
  JointStreamCommand command_;
};

// A state machine booted and stepped once with a healthy robot, at t = 0.
struct Machine {
  // `target_limits`: the default config's guards on streamed targets (off: the modes unshaped).
  explicit Machine(bool with_policy = true, bool target_limits = false)
      : sm(config::MachineOptionsOf(target_limits ? DefaultConfig() : UnlimitedConfig()),
           config::BuildJointTable(target_limits ? DefaultConfig() : UnlimitedConfig()),
           with_policy ? &policy : nullptr) {
    sm.Step(0, robot.At(0));
  }
  // Brings the machine to `mode` at time `t` (healthy robot).
  void BringTo(Mode mode, std::int64_t t) {
    switch (mode) {
      case Mode::kDamp: sm.Submit(t, ModeCmd(ModeRequest::kDamp, t)); break;
      case Mode::kStand: sm.Submit(t, ModeCmd(ModeRequest::kStand, t)); break;
      case Mode::kMovePolicy:
        sm.Submit(t, ModeCmd(ModeRequest::kStand, t));
        sm.Submit(t, VelocityCmd(0.5f, 0, 0, t));
        break;
      case Mode::kMoveTrajectory: sm.Submit(t, traj.Zero(t)); break;
      case Mode::kMoveJointStream: sm.Submit(t, joint.Zero(t)); break;
    }
    sm.Step(t, robot.At(t));
    ASSERT_EQ(sm.mode(), mode);
  }
  const Outputs& Step(std::int64_t t) { return sm.Step(t, robot.At(t)); }

  ScriptedPolicy policy;
  Robot robot;
  StateMachine sm;
  TrajectoryMaker traj;
  JointStreamMaker joint;
};

inline bool HasEvent(const Outputs& out, EventKind kind) {
  for (const auto& e : out.events) {
    if (e.kind == kind) return true;
  }
  return false;
}

}  // namespace robot_edge::sm::test
