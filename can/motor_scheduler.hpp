// Drives every motor of every bus once per control tick, pipelined: Send() puts one command frame
// per motor on every bus in one batch (no waiting between motors), and the replies are collected
// by the next tick's Receive() as they arrived in between. A motor that has not
// replied for the configured timeout is reported through its feedback's age.
//
// Targets and feedback are in joint space; each motor's frames are in its family's format and in
// motor space (motor_protocol.hpp, joint_transform.hpp). A bus may mix families.
//
// Start-up: EnterMotorMode() sends enable (ak/damiao FC) to every motor; motors that stay silent
// are sent it again every kMotorModeRetryUs while they are silent (a motor that rebooted is back
// in motor mode without help; it receives DAMP until the state machine decides otherwise).
// Shutdown: SendDampThenExit() sends the DAMP targets, then disable (FD) to every motor.
// Set-zero is never sent by the scheduler.
//
// The BMS frame (battery.source can: battery.can_id on battery.bus, can/bms_codec.hpp) updates
// battery(); like an IMU frame, one that does not decode is dropped, uncounted.
//
// Frames it cannot place are counted: a reply-shaped frame from an id no joint of the bus has
// (strays(), for `robot-edgectl scan`), and a reply from a configured id that does not decode as
// its family and layout (MotorFeedback::malformed_replies: the wrong family or reply setting).
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

#include "can/bms_codec.hpp"
#include "can/joint_transform.hpp"
#include "can/mit_codec.hpp"
#include "can/motor_protocol.hpp"
#include "can/transport.hpp"
#include "can/wiring.hpp"

namespace robot_edge::can {

// Latest reply of one motor, in joint space.
struct MotorFeedback {
  float position_rad = 0;
  float velocity_rad_s = 0;
  float torque_nm = 0;
  float temperature_c = 0;              // 0 for motors with the classic 6-byte reply
  std::uint8_t error_code = 0;          // MotorError (mapped from the family's field); 0 = none
  std::uint32_t raw_fault = 0;          // the family's fault field as sent (motor_protocol.hpp)
  bool enabled = false;                 // the motor says it is enabled (ak: it replied)
  std::uint64_t malformed_replies = 0;  // frames from its id that did not decode
  std::int64_t last_reply_us = -1;  // time (µs, the caller's clock) of the Receive() that got it;
                                    // -1 = never replied
  std::uint64_t replies = 0;
  std::uint32_t unanswered = 0;  // commands sent since its last reply
};

// Latest IMU frames.
struct ImuFeedback {
  std::array<float, 4> quat_wxyz{1, 0, 0, 0};
  std::array<float, 3> gyro_rad_s{0, 0, 0};
  std::array<float, 3> accel_m_s2{0, 0, 0};  // specific force, body frame (imu.accel_id)
  std::int64_t last_quat_us = -1;            // -1 = never received
  std::int64_t last_gyro_us = -1;
  std::int64_t last_accel_us = -1;  // stays -1 without imu.accel_id
};

// Latest BMS frame (battery.source can).
struct BatteryFeedback {
  BmsReading reading;
  std::int64_t last_update_us = -1;  // time of the Receive() that got it; -1 = never received
};

// A reply-shaped frame from a motor id that no joint of its bus has.
struct StraySender {
  MotorFamily family = MotorFamily::kAk;  // whose reply shape it matched first
  std::uint32_t motor_id = 0;
  std::uint64_t frames = 0;
  std::int64_t last_us = -1;
};

// The kernel receive filter the daemon's transport needs: every bus's master id (motor replies),
// the IMU's ids (accel_id when set) and, with battery.source can, the BMS's id. (The filter
// applies to every interface; frames are routed by bus.)
std::vector<can_filter> ReceiveFilters(const Wiring& wiring);

class MotorScheduler {
 public:
  static constexpr std::int64_t kMotorModeRetryUs = 100'000;
  static constexpr std::size_t kReceiveBatch = 64;  // frames taken from a bus per Receive() call

  static constexpr std::size_t kMaxStrays = 16;    // per bus; later strangers are not listed
  static constexpr std::size_t kProbesPerBus = 4;  // scan probes per bus per Send()
  static constexpr std::uint32_t kMaxScanId = 0xFF;

  // Bus i of `transport` carries wiring.buses[i]; not owned, must outlive the scheduler. Throws
  // std::invalid_argument at start-up if the bus counts differ.
  MotorScheduler(const Wiring& wiring, Transport& transport);

  // Sends enable (ak/damiao FC, robstride type 3) to every motor.
  void EnterMotorMode(std::int64_t now_us);

  // Takes every frame waiting on every bus without blocking: motor replies update motors(),
  // IMU frames update imu(), the BMS frame battery(); frames from unknown ids are ignored.
  // `now_us` stamps them.
  void Receive(std::int64_t now_us);

  // Encodes targets[j] for joint j (firmware order, targets.size() == joint count) and sends them
  // in one batch. Motors silent for longer than the reply timeout are also sent FC, at most
  // every kMotorModeRetryUs.
  void Send(std::span<const MitCommand> targets, std::int64_t now_us);

  // Off the ticks' schedule (an emergency stop that woke the control thread): one command per
  // motor in one batch, without FC retries or reply accounting (the next Send() counts as usual).
  void SendNow(std::span<const MitCommand> targets);

  // Shutdown: one batch of `damp_targets`, then one batch of disable to every motor.
  void SendDampThenExit(std::span<const MitCommand> damp_targets);

  // Bring-up (the caller allows them in DAMP only):
  // Probes every id 1..max_id of every bus that no joint of the bus has, once as a standard frame
  // (ak/damiao disable, FD) and once as a 29-bit one (robstride stop), kProbesPerBus per bus with
  // each Send(): a motor at rest answers a disable without moving. Who answers lands in strays()
  // (cleared first). scanning() until every probe went out.
  void StartScan(std::uint32_t max_id);
  bool scanning() const { return scan_max_id_ != 0; }
  // The motor's own request goes out once with the next Send(): kSetZero (ak/damiao FE,
  // robstride type 6) or kClearFault (damiao FB, robstride type 4 with clear), which is followed
  // by an enable (FC, type 3): a motor whose fault is cleared is left disabled by its firmware.
  void RequestSpecial(std::size_t joint, MotorRequest request) {
    special_pending_[joint] = static_cast<std::uint8_t>(static_cast<std::uint8_t>(request) + 1);
  }

  std::span<const MotorFeedback> motors() const { return feedback_; }
  std::span<const StraySender> strays(std::size_t bus) const {
    return {strays_[bus].data(), stray_count_[bus]};
  }
  const ImuFeedback& imu() const { return imu_; }
  // Stays never-received without battery.source can.
  const BatteryFeedback& battery() const { return battery_; }
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
    std::uint32_t master_id;
    MotorProtocol protocol;
    JointTransform transform;
    bool awaiting_reply = false;
    // Never asked yet: a silent motor is asked at the first tick, whatever the clock reads.
    std::int64_t last_motor_mode_request_us = std::numeric_limits<std::int64_t>::min() / 2;
  };

  static constexpr std::size_t kFamilies = 3;
  // bus -> family -> (motor id -> joint + 1, 0 = none): reply lookup without searching.
  using IdTable = std::array<std::array<std::uint16_t, 0x800>, kFamilies>;

  void HandleFrame(std::size_t bus, const can_frame& frame, std::int64_t now_us);
  // An IMU frame (standard id on the IMU's bus): decoded into imu_ if it is one. True if `id` is
  // an IMU id, decoded or not (a frame that does not decode is dropped, uncounted).
  bool HandleImuFrame(std::uint32_t id, std::span<const std::uint8_t> data, std::int64_t now_us);
  // The BMS frame (standard id on the battery's bus): true if `id` is the BMS's, decoded or not.
  bool HandleBmsFrame(std::uint32_t id, std::span<const std::uint8_t> data, std::int64_t now_us);
  void Update(Motor& motor, const MotorReply& reply, std::int64_t now_us);
  void NoteStray(std::size_t bus, MotorFamily family, std::uint32_t motor_id, std::int64_t now_us);
  void PushCommand(const Motor& motor, const MitCommand& joint_target);
  void PushRequest(const Motor& motor, MotorRequest request);
  void PushProbes();
  // A joint of `bus` answers to `id` in a frame shaped as standard (ak/damiao) or extended.
  bool Configured(std::size_t bus, std::uint32_t id, bool extended) const;

  Transport& transport_;
  std::size_t bus_count_;
  std::vector<Motor> motors_;            // firmware order
  std::vector<MotorFeedback> feedback_;  // firmware order
  std::vector<IdTable> joint_by_id_;
  std::vector<std::uint8_t> families_on_bus_;  // bit f: a motor of family f is on the bus
  std::vector<std::array<StraySender, kMaxStrays>> strays_;
  std::vector<std::size_t> stray_count_;
  std::uint32_t scan_max_id_ = 0;              // 0 = not scanning
  std::vector<std::uint32_t> scan_cursor_;     // per bus: next probe, 0 .. 2·max_id
  std::vector<std::uint8_t> special_pending_;  // per joint: MotorRequest + 1, 0 = none
  std::unique_ptr<std::atomic<std::uint64_t>[]> missed_replies_;
  std::vector<std::uint32_t> master_id_;  // per bus
  std::size_t imu_bus_;
  std::uint32_t imu_quat_id_;
  std::uint32_t imu_gyro_id_;
  std::uint32_t imu_accel_id_;  // 0 = none
  std::size_t bms_bus_;         // kUnresolved without battery.source can
  std::uint32_t bms_id_;
  std::int64_t reply_timeout_us_;
  ImuFeedback imu_;
  BatteryFeedback battery_;
  std::vector<std::uint64_t> missed_this_tick_;  // scratch, per bus
  std::vector<BusFrame> tx_;                     // scratch, one batch
  std::vector<BusFrame> rx_;                     // scratch
};

}  // namespace robot_edge::can
