// Drives every motor of every bus once per control tick, pipelined: Send() puts one command frame
// per motor on every bus in one batch (no waiting between motors), and the replies are collected
// by the next tick's Receive() as they arrived in between. A motor that has not
// replied for the configured timeout is reported through its feedback's age.
//
// Start-up: EnterMotorMode() sends FC to every motor; motors that stay silent are sent FC again
// every kMotorModeRetryUs while they are silent (a motor that rebooted is back in motor mode
// without help; it receives DAMP until the state machine decides otherwise).
// Shutdown: SendDampThenExit() sends the DAMP targets, then FD (exit motor mode) to every motor.
// FE (set zero) is never sent.
//
// Threads: one owner (the control thread). After construction nothing allocates, blocks, logs or
// throws. missed_replies() may be read from any thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "can/transport.hpp"
#include "can/mit_codec.hpp"
#include "config/config.hpp"

namespace robot_edge::can {

// Latest reply of one motor, in the joint's units.
struct MotorFeedback {
  float position_rad = 0;
  float velocity_rad_s = 0;
  float torque_nm = 0;
  float temperature_c = 0;     // 0 for motors with the classic 6-byte reply
  std::uint8_t error_code = 0; // MotorError; 0 for the classic reply
  std::int64_t last_reply_us = -1;  // time (µs, the caller's clock) of the Receive() that got it;
                                    // -1 = never replied
  std::uint64_t replies = 0;
  std::uint32_t unanswered = 0;     // commands sent since its last reply
};

// Latest IMU frames.
struct ImuFeedback {
  std::array<float, 4> quat_wxyz{1, 0, 0, 0};
  std::array<float, 3> gyro_rad_s{0, 0, 0};
  std::int64_t last_quat_us = -1;  // -1 = never received
  std::int64_t last_gyro_us = -1;
};

// The MIT field ranges of a configured motor model.
MitRanges RangesOf(const config::MotorModel& motor);
ReplyLayout LayoutOf(const config::MotorModel& motor);

// The kernel receive filter the daemon's transport needs: every bus's master id (motor replies)
// and the IMU's two ids. (The filter applies to every interface; frames are routed by bus.)
std::vector<can_filter> ReceiveFilters(const config::Config& config);

class MotorScheduler {
 public:
  static constexpr std::int64_t kMotorModeRetryUs = 100'000;
  static constexpr std::size_t kReceiveBatch = 64;  // frames taken from a bus per Receive() call

  // Bus i of `transport` carries config.buses[i]; not owned, must outlive the scheduler. Throws
  // std::invalid_argument at start-up if the counts differ.
  MotorScheduler(const config::Config& config, Transport& transport);

  // Sends FC (enter motor mode) to every motor.
  void EnterMotorMode(std::int64_t now_us);

  // Takes every frame waiting on every bus without blocking: motor replies update motors(),
  // IMU frames update imu(); frames from unknown ids are ignored. `now_us` stamps them.
  void Receive(std::int64_t now_us);

  // Encodes targets[j] for joint j (firmware order, targets.size() == joint count) and sends them
  // in one batch. Motors silent for longer than the reply timeout are also sent FC, at most
  // every kMotorModeRetryUs.
  void Send(std::span<const MitCommand> targets, std::int64_t now_us);

  // Off the ticks' schedule (an emergency stop that woke the control thread): one command per
  // motor in one batch, without FC retries or reply accounting (the next Send() counts as usual).
  void SendNow(std::span<const MitCommand> targets);

  // Shutdown: one batch of `damp_targets`, then one batch of FD to every motor.
  void SendDampThenExit(std::span<const MitCommand> damp_targets);

  std::span<const MotorFeedback> motors() const { return feedback_; }
  const ImuFeedback& imu() const { return imu_; }
  std::size_t bus_count() const { return bus_count_; }
  // Commands on bus `bus` whose reply had not arrived when the next command was sent.
  std::uint64_t missed_replies(std::size_t bus) const {
    return missed_replies_[bus].load(std::memory_order_relaxed);
  }

 private:
  struct Motor {
    std::size_t joint;
    std::size_t bus;
    std::uint32_t can_id;
    MitRanges ranges;
    ReplyLayout layout;
    bool awaiting_reply = false;
    // Never asked yet: a silent motor is asked at the first tick, whatever the clock reads.
    std::int64_t last_motor_mode_request_us = std::numeric_limits<std::int64_t>::min() / 2;
  };

  void HandleFrame(std::size_t bus, const can_frame& frame, std::int64_t now_us);
  void Push(const Motor& motor, const Payload& payload);

  Transport& transport_;
  std::size_t bus_count_;
  std::vector<Motor> motors_;                     // firmware order
  std::vector<MotorFeedback> feedback_;           // firmware order
  // bus -> (CAN id -> joint + 1, 0 = none): reply lookup without searching.
  std::vector<std::array<std::uint16_t, 0x800>> joint_by_id_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> missed_replies_;
  std::vector<std::uint32_t> master_id_;  // per bus
  std::size_t imu_bus_;
  std::uint32_t imu_quat_id_;
  std::uint32_t imu_gyro_id_;
  std::int64_t reply_timeout_us_;
  ImuFeedback imu_;
  std::vector<std::uint64_t> missed_this_tick_;   // scratch, per bus
  std::vector<BusFrame> tx_;  // scratch, one batch
  std::vector<BusFrame> rx_;  // scratch
};

}  // namespace robot_edge::can
