// What goes into and comes out of the state machine: plain values, no I/O.
// Times are µs of one monotonic clock chosen by the caller.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string_view>

#include "statemachine/counters.hpp"
#include "statemachine/modes.hpp"

namespace robot_edge::sm {

class Trajectory;
struct JointStreamCommand;

// ---- Commands (validated; see validation.hpp) ----

enum class CommandKind : std::uint8_t {
  kVelocity,
  kTrajectory,
  kMode,
  kStopWalking,  // internal: the controlling client left; MOVE/POLICY velocity -> 0
  kJog,          // bring-up: one joint moved in DAMP (jog.hpp); robot-edge's maintenance API
  kJointStream,  // a JointCommand (joint_stream.hpp); robot-edge's extension
  kZeroSet,      // internal: a motor's own zero was set (robot-edgectl zero): the joint offsets are
                 // stale until the calibration is read again (a restart); nothing leaves DAMP
  kReleaseStop,  // a local operator's or maintainer's release of a latched stop (robot-edgectl
                 // release-stop); the robot stays in DAMP
};

// A packet of a client's stream (MOVE/TRAJECTORY, MOVE/JOINT_STREAM): it renews the watchdog.
constexpr bool IsStreamPacket(CommandKind kind) {
  return kind == CommandKind::kTrajectory || kind == CommandKind::kJointStream;
}

enum class ModeRequest : std::uint8_t { kStand, kDamp };

// Who sent a command: a client (its sequence is reported as last_command_sequence) or the
// daemon itself (shutdown, a DAMP or stop-walking that took the mailbox: no sequence).
enum class CommandSource : std::uint8_t { kClient, kDaemon };

struct Velocity {
  float vx = 0;    // m/s
  float vy = 0;    // m/s
  float vyaw = 0;  // rad/s
};

// kJog's request (edge_api.proto JogRequest).
struct JogRequest {
  std::uint32_t joint = 0;  // firmware index, < joint count (validated)
  float target_rad = 0;     // finite (validated); clamped to the joint's limits
  float speed_rad_s = 0;    // 0 = Jog::kDefaultSpeedRadS
};

// Who sent a command, for the text of a latched stop (no allocation: a fixed size, cut short).
using SenderLabel = std::array<char, 64>;
inline SenderLabel MakeSenderLabel(std::string_view text) {
  SenderLabel label{};
  const std::size_t n = text.size() < label.size() - 1 ? text.size() : label.size() - 1;
  for (std::size_t i = 0; i < n; ++i) label[i] = text[i];
  return label;
}

struct Command {
  CommandKind kind = CommandKind::kMode;
  CommandSource source = CommandSource::kClient;
  std::uint32_t sequence = 0;    // CloudCommand.sequence
  std::int64_t received_us = 0;  // when the daemon received it
  // When the client sent it, estimated on the same clock from its timestamp_us (see
  // daemon/api/command_freshness.hpp); received_us when unknown. A command sent before the robot
  // last entered DAMP cannot take it out of DAMP.
  std::int64_t sent_us = 0;
  Velocity velocity;                                 // kVelocity
  ModeRequest mode = ModeRequest::kDamp;             // kMode
  const Trajectory* trajectory = nullptr;            // kTrajectory; read during Submit() only
  JogRequest jog;                                    // kJog
  const JointStreamCommand* joint_stream = nullptr;  // kJointStream; read during Submit() only
  // The stop latch (config safety.latch_external_damp). `from_controller`: the client in control
  // sent it. `holder`: the controller name (api.controllers) holding control when it was sent,
  // empty when none did. `latches`: a DAMP from anyone but the client in control, which latches;
  // `sender` names them in MODE_BLOCKED. A latched stop is released only by a ModeCommand(STAND)
  // from the client in control whose `holder` is the one recorded when it latched, or by
  // kReleaseStop.
  bool from_controller = false;
  bool latches = false;
  SenderLabel sender{};
  SenderLabel holder{};
};

// A latched stop (state_machine.hpp): who stopped the robot, and the controller that held
// control then (the only one whose STAND releases it; empty: only a local release does).
struct StopLatch {
  bool latched = false;
  SenderLabel stopped_by{};
  SenderLabel holder{};
};

struct SubmitResult {
  bool accepted = false;
  Reason reason = Reason::kCount;  // why it was dropped (kCount when accepted)
  Mode mode = Mode::kDamp;         // mode after the command
};

// ---- Measurements ----

struct JointMeasurement {
  float position_rad = 0;
  float velocity_rad_s = 0;
  float torque_nm = 0;
  float temperature_c = 0;
  std::uint8_t error_code = 0;      // motor-reported (MotorError), 0 = none
  std::int64_t last_reply_us = -1;  // -1 = never replied
  std::uint32_t unanswered = 0;     // commands sent to it since its last reply
  // For bring-up reports (robot-edgectl scan); the state machine does not read them.
  std::uint32_t raw_fault = 0;          // the family's own fault field
  std::uint64_t malformed_replies = 0;  // frames from its id that did not decode
};

struct ImuMeasurement {
  std::array<float, 4> quat_wxyz{1, 0, 0, 0};  // body -> world
  std::array<float, 3> gyro_rad_s{0, 0, 0};
  // Specific force in the body frame (+9.81 z upright at rest), from the optional accelerometer
  // frame (imu.accel_id); has_accel stays false without one.
  std::array<float, 3> accel_m_s2{0, 0, 0};
  bool has_accel = false;
  std::int64_t last_update_us = -1;  // -1 = never received
};

// The battery, from the configured source (config battery.source): the BMS's CAN frame, or
// Linux's power-supply class. Unknown values are NaN.
enum class BatteryStatus : std::uint8_t { kUnknown, kDischarging, kCharging, kFull, kFault };
struct BatteryMeasurement {
  float voltage_v = NAN;
  float current_a = NAN;  // positive: discharging
  float percent = NAN;    // state of charge, 0..100
  float temperature_c = NAN;
  BatteryStatus status = BatteryStatus::kUnknown;
  std::int64_t last_update_us = -1;  // steady µs of the last reading; -1 = never
};

struct BusStatus {
  bool bus_off = false;
  std::uint64_t bus_off_count = 0;  // increases with every bus-off, even one already over
};

struct Inputs {
  std::span<const JointMeasurement> joints;  // firmware order, one per configured joint
  ImuMeasurement imu;
  std::span<const BusStatus> buses;  // one per configured bus
  double loop_rate_hz = 0;  // the control loop's ticks per second over the last complete second;
                            // 0 = not measured yet
  BatteryMeasurement battery{};  // last_update_us -1 without a battery source
  // > 0 on the first tick after the supervisor DAMPed the stalled control thread: how long it had
  // not ticked (ms).
  std::uint32_t control_stall_ms = 0;
};

// ---- Outputs ----

struct JointTarget {
  float position_rad = 0;
  float velocity_rad_s = 0;
  float kp = 0;         // N·m/rad
  float kd = 0;         // N·m·s/rad
  float torque_nm = 0;  // feed-forward
};

// Values of FirmwareAlert.id / severity (proto AlertId, AlertSeverity).
enum class AlertId : std::uint8_t {
  kMotorOvertemp = 1,
  kFallDetected = 2,
  kMotorTimeout = 3,
  kCanBusOff = 4,
  kMotorFault = 5,
  kImuTimeout = 6,
  kLoopSlow = 7,
  kJointOutOfRange = 8,  // edge_api.proto AlertIdExtension
  kBatteryLow = 9,       // a warning: it never puts the robot in DAMP
  kControlStalled = 10,  // edge_api.proto AlertId
  kJointPastLimit = 11,  // a warning: past a limit, within the margin (no DAMP)
};
enum class Severity : std::uint8_t { kCritical = 0, kWarning = 1, kInfo = 2 };

constexpr std::uint32_t ErrorFlagOf(AlertId id) { return 1u << (static_cast<unsigned>(id) - 1); }
const char* ToString(AlertId id);

struct Alert {
  AlertId id = AlertId::kMotorOvertemp;
  Severity severity = Severity::kCritical;
  std::uint32_t value = 0;  // unit per AlertId (°C, degrees, ms, count, code)
  std::uint32_t threshold = 0;
  std::int64_t first_set_us = 0;
  std::uint32_t source = 0;  // joint or bus index
  float reading = 0;         // for the text: kJointOutOfRange / kJointPastLimit the measured
                             // position (rad);
                             // kMotorTimeout the replies from its id that did not decode
};

enum class EventKind : std::uint8_t {
  kModeChanged,        // from -> to, because of `cause`
  kAlertRaised,        // alert
  kAlertCleared,       // alert (value = last measured)
  kTrajectoryTimeout,  // MOVE/TRAJECTORY got no packet for the timeout: -> DAMP
  kModeBlocked,        // a command could not leave DAMP for `to`: alert says which (or reason)
  kPolicyFault,        // MOVE/POLICY ended because of the policy (policy_fault, detail): ->
                       // STAND or DAMP (policy.on_fault)
  kVelocityLimit,      // a streamed MOVE: a measured joint velocity exceeded the joint's
                       // max_velocity, or in MOVE/JOINT_STREAM the command's
                       // velocity_safety_limit (joint, velocity_rad_s, limit_rad_s): -> DAMP
};

enum class Cause : std::uint8_t {
  kCommand,
  kTrajectoryTimeout,
  kAlert,
  kPolicyFault,
  kVelocityLimit,
};

// Why MOVE/POLICY ended by itself.
enum class PolicyFault : std::uint8_t {
  kStale,      // its latest targets are older than policy.stall_timeout_ms (detail: their age,
               // ms): the inference thread stalled, or gave nothing since MOVE/POLICY began
  kNoTargets,  // no targets at all within StateMachine::kPolicyFirstTargetsUs (detail: ms)
  kNonFinite,  // the network output NaN or infinity (detail: the first such joint, firmware,
               // or kNonFiniteState: its recurrent state; the runner's message names it)
  kFailed,     // the inference thread failed (an exception; its message is the runner's)
};
// PolicyFault::kNonFinite's detail when the recurrent state (an LSTM's h or c), not an action,
// went NaN or infinite.
inline constexpr std::uint32_t kNonFiniteState = 0xFFFFFFFFu;
struct Event {
  EventKind kind = EventKind::kModeChanged;
  std::int64_t time_us = 0;
  Mode from = Mode::kDamp;
  Mode to = Mode::kDamp;
  Cause cause = Cause::kCommand;
  Alert alert;                                     // kAlertRaised / kAlertCleared / kModeBlocked
  Reason reason = Reason::kCount;                  // kModeBlocked: the Reason that kept it in DAMP
  std::uint32_t silence_ms = 0;                    // kTrajectoryTimeout: time since the last packet
  PolicyFault policy_fault = PolicyFault::kStale;  // kPolicyFault
  std::uint32_t detail = 0;                        // kPolicyFault: per PolicyFault
  std::uint32_t joint = 0;                         // kVelocityLimit: firmware index
  float velocity_rad_s = 0;                        // kVelocityLimit: measured
  float limit_rad_s = 0;                           // kVelocityLimit: the limit it broke
  bool joint_limit = false;  // kVelocityLimit: the joint's max_velocity (config), not the
                             // stream's velocity_safety_limit
  SenderLabel stopped_by{};  // kModeBlocked with Reason::kStopLatched: who latched the stop
};

}  // namespace robot_edge::sm
