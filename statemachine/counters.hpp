// Why commands were dropped or adjusted, counted by reason (reported in EdgeDiagnostics).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace robot_edge::sm {

enum class Reason : std::uint8_t {
  // Drops by validation (seed 000, "Command Validation"), before the state machine.
  kEmptyCommand,          // CloudCommand with none of velocity / trajectory / mode
  kVelocityNonFinite,     // vx, vy or vyaw is NaN or infinite
  kTrajectoryLutId,       // TrajectoryRequest uses the unimplemented `id` source
  kTrajectoryNoSource,    // TrajectoryRequest with neither `full` nor `id`
  kTrajectoryNoSegments,  // FullTrajectory.segments is empty
  kTrajectoryBadLength,   // a segment's positions are not one per joint
  kTrajectoryNonFinite,   // a position is NaN or infinite
  kTrajectoryTooLong,     // more segments than control.max_segments
  kJointStreamBadLength,  // JointCommand: a field is neither empty (where allowed) nor one
                          // value per joint
  kJointStreamNonFinite,  // JointCommand: a NaN or infinite value
  kJointStreamNoEndTime,  // JointCommand: end_time_us is 0 (required)
  kJointStreamBadValue,   // JointCommand: a negative time or velocity_safety_limit
  // Drops by the state machine (mode-dependent).
  kVelocityInDamp,           // seed 000: velocity is dropped in FW_MODE_DAMP
  kVelocityNoPolicy,         // STAND -> MOVE/POLICY needs a configured policy
  kVelocityInTrajectory,     // not a transition of seed 000's table
  kTrajectoryInPolicy,       // not a transition of seed 000's table
  kBlockedByAlert,           // leaving DAMP while a critical alert is active
  kMotorsNotReady,           // leaving DAMP before every motor has replied
  kImuNotReady,              // leaving DAMP before the IMU has reported (fall detection blind)
  kTrajectoryStreamDamped,   // a trajectory stream that DAMP interrupted (pause or STAND first)
  kSentBeforeDamp,           // sent before the robot last entered DAMP: cannot leave it
  kCalibrationStale,         // a motor's zero was set (robot-edgectl zero): the offsets are stale
                             // until robot-edgectl calibrate and a restart
  kStopLatched,              // someone other than the client in control stopped the robot: only
                             // that client's ModeCommand(STAND) leaves DAMP (latch_external_damp)
  kJogNotInDamp,             // a jog moves one joint out of DAMP only (bring-up)
  kJointStreamInMove,        // a JointCommand in MOVE/POLICY or MOVE/TRAJECTORY
  kJointStreamNoGains,       // the first JointCommand of a stream has no kp / kd
  kJointStreamExpired,       // its end_time is already past when applied
  kTrajectoryInJointStream,  // a TrajectoryRequest in MOVE/JOINT_STREAM
  kVelocityInJointStream,    // a VelocityCommand in MOVE/JOINT_STREAM
  // Drops by the daemon (counted there, named here so every reason has one list).
  kNotController,          // sender does not hold control
  kQueueFull,              // the control thread's command queue was full
  kNoTimestamp,            // CloudCommand.timestamp_us is 0: its age cannot be judged
  kCommandStale,           // older than api.max_command_age_ms (command_freshness.hpp)
  kCommandClockOffset,     // timestamp_us off robot-edged's wall clock by more than
                           // api.max_clock_offset_ms (+ max_command_age_ms when older)
  kSequenceNotIncreasing,  // sequence not above the last one from this client: a replay,
                           // a duplicate or a reordered packet
  // Adjustments: the command was applied, but not exactly as sent.
  kVelocityClamped,  // vx / vy / vyaw outside its range, clamped
  kGainsDefaulted,   // kp or kd with a count other than 0 or one per joint: defaults used
  kGainsNonFinite,   // kp or kd with a non-finite value: defaults used
  kGainsClamped,     // kp outside 0..500 or kd outside 0..5, clamped
  kPositionClamped,  // a trajectory position outside the joint's limits, clamped
  kModeUnknown,      // a Mode value outside the enum: treated as DAMP (fail safe)
  kCount
};

inline constexpr std::size_t kReasonCount = static_cast<std::size_t>(Reason::kCount);

// snake_case name, e.g. "velocity_in_damp".
const char* ToString(Reason reason);
// True for the reasons that dropped the command (false for adjustments).
bool IsDrop(Reason reason);

// Plain counters, owned by one thread.
struct Counters {
  std::array<std::uint64_t, kReasonCount> by_reason{};

  void Count(Reason r, std::uint64_t n = 1) { by_reason[static_cast<std::size_t>(r)] += n; }
  std::uint64_t operator[](Reason r) const { return by_reason[static_cast<std::size_t>(r)]; }
};

}  // namespace robot_edge::sm
