// Names of the state machine's enums, for logs, events and diagnostics.
#include "statemachine/counters.hpp"
#include "statemachine/io.hpp"
#include "statemachine/modes.hpp"

namespace robot_edge::sm {

const char* ToString(Mode mode) {
  switch (mode) {
    case Mode::kDamp: return "DAMP";
    case Mode::kStand: return "STAND";
    case Mode::kMovePolicy: return "MOVE/POLICY";
    case Mode::kMoveTrajectory: return "MOVE/TRAJECTORY";
    case Mode::kMoveJointStream: return "MOVE/JOINT_STREAM";
  }
  return "?";
}

const char* ToString(AlertId id) {
  switch (id) {
    case AlertId::kMotorOvertemp: return "MOTOR_OVERTEMP";
    case AlertId::kFallDetected: return "FALL_DETECTED";
    case AlertId::kMotorTimeout: return "FW_LINK_TIMEOUT";
    case AlertId::kCanBusOff: return "CAN_BUS_OFF";
    case AlertId::kMotorFault: return "MOTOR_FAULT";
    case AlertId::kImuTimeout: return "IMU_TIMEOUT";
    case AlertId::kLoopSlow: return "CONTROL_LOOP_SLOW";
    case AlertId::kJointOutOfRange: return "JOINT_OUT_OF_RANGE";
    case AlertId::kJointPastLimit: return "JOINT_PAST_LIMIT";
    case AlertId::kBatteryLow: return "BATTERY_LOW";
    case AlertId::kControlStalled: return "CONTROL_STALLED";
  }
  return "?";
}

const char* ToString(Reason reason) {
  switch (reason) {
    case Reason::kEmptyCommand: return "empty_command";
    case Reason::kVelocityNonFinite: return "velocity_non_finite";
    case Reason::kTrajectoryLutId: return "trajectory_lut_id";
    case Reason::kTrajectoryNoSource: return "trajectory_no_source";
    case Reason::kTrajectoryNoSegments: return "trajectory_no_segments";
    case Reason::kTrajectoryBadLength: return "trajectory_bad_length";
    case Reason::kTrajectoryNonFinite: return "trajectory_non_finite";
    case Reason::kTrajectoryTooLong: return "trajectory_too_long";
    case Reason::kJointStreamBadLength: return "joint_stream_bad_length";
    case Reason::kJointStreamNonFinite: return "joint_stream_non_finite";
    case Reason::kJointStreamNoEndTime: return "joint_stream_no_end_time";
    case Reason::kJointStreamBadValue: return "joint_stream_bad_value";
    case Reason::kVelocityInDamp: return "velocity_in_damp";
    case Reason::kVelocityNoPolicy: return "velocity_no_policy";
    case Reason::kVelocityInTrajectory: return "velocity_in_trajectory";
    case Reason::kTrajectoryInPolicy: return "trajectory_in_policy";
    case Reason::kBlockedByAlert: return "blocked_by_alert";
    case Reason::kMotorsNotReady: return "motors_not_ready";
    case Reason::kImuNotReady: return "imu_not_ready";
    case Reason::kTrajectoryStreamDamped: return "trajectory_stream_damped";
    case Reason::kStopLatched: return "stop_latched";
    case Reason::kCalibrationStale: return "calibration_stale";
    case Reason::kSentBeforeDamp: return "sent_before_damp";
    case Reason::kJogNotInDamp: return "jog_not_in_damp";
    case Reason::kJointStreamInMove: return "joint_stream_in_move";
    case Reason::kJointStreamNoGains: return "joint_stream_no_gains";
    case Reason::kJointStreamExpired: return "joint_stream_expired";
    case Reason::kTrajectoryInJointStream: return "trajectory_in_joint_stream";
    case Reason::kVelocityInJointStream: return "velocity_in_joint_stream";
    case Reason::kNotController: return "not_controller";
    case Reason::kQueueFull: return "queue_full";
    case Reason::kNoTimestamp: return "no_timestamp";
    case Reason::kCommandStale: return "command_stale";
    case Reason::kCommandClockOffset: return "command_clock_offset";
    case Reason::kSequenceNotIncreasing: return "sequence_not_increasing";
    case Reason::kVelocityClamped: return "velocity_clamped";
    case Reason::kGainsDefaulted: return "gains_defaulted";
    case Reason::kGainsNonFinite: return "gains_non_finite";
    case Reason::kGainsClamped: return "gains_clamped";
    case Reason::kPositionClamped: return "position_clamped";
    case Reason::kModeUnknown: return "mode_unknown";
    case Reason::kCount: break;
  }
  return "?";
}

bool IsDrop(Reason reason) { return reason < Reason::kVelocityClamped; }

}  // namespace robot_edge::sm
