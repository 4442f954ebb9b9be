// The control modes and the contract of each (the model: ros2_control's system_interface.hpp).
//
// DAMP — the safe state.
//   Entered: at boot; on ModeCommand(DAMP) from any mode (always accepted: emergency stop); on a
//   trajectory session timeout; whenever a critical alert becomes active (motor overtemp, motor
//   fault, motor reply timeout, fall, IMU timeout, CAN bus-off).
//   Motors: kp = 0, kd = the joint's damp_kd, no torque: compliant, the joints only slow down.
//   Accepts: ModeCommand(STAND) -> STAND; TrajectoryRequest -> MOVE/TRAJECTORY. Both are refused
//   (the robot stays in DAMP, MODE_BLOCKED says why) while a critical alert is active, while a
//   motor has never replied or the IMU has never reported, and when the command was sent before
//   DAMP was entered (Command::sent_us): no late packet re-engages the motors, whatever DAMPed
//   them. A trajectory stream that was running when DAMP was entered (by command or alert) is
//   refused until it pauses for trajectory_timeout_ms or STAND is accepted: an emergency stop is
//   not undone by the stream's next packet. VelocityCommand is dropped (seed 000).
//
// STAND — ramp to the stand pose, then hold it.
//   Entered: ModeCommand(STAND) from DAMP or MOVE.
//   Motors: position targets on a smooth (quintic) ramp from the pose measured on entry to the
//   stand pose over control.stand_ramp_s, then the stand pose; the joints' default kp / kd.
//   Accepts: VelocityCommand -> MOVE/POLICY (refused when no policy is configured);
//   TrajectoryRequest -> MOVE/TRAJECTORY; ModeCommand(STAND) (no change); ModeCommand(DAMP).
//   The ramp is advisory: MOVE commands are accepted before it ends.
//
// MOVE/POLICY — the locomotion policy walks at the commanded velocity.
//   Entered: VelocityCommand in STAND with a policy configured.
//   Motors: the policy's targets each tick; the stand pose while it has none yet.
//   Leaves by itself, on the tick the policy reports a fault (a non-finite output, a failed
//   evaluation, targets older than policy.stall_timeout_ms) or after 1 s without targets: walking
//   stops, and the robot goes to STAND (the ramp from the measured pose) or, with
//   policy.on_fault: damp, to DAMP.
//   Accepts: VelocityCommand (new velocity; it persists until a new one, a mode switch or
//   DAMP); ModeCommand(STAND) -> STAND; ModeCommand(DAMP). TrajectoryRequest is refused.
//
// MOVE/TRAJECTORY — direct PD control streamed by the client.
//   Entered: TrajectoryRequest in DAMP or STAND.
//   Motors: the request's segments in order, one per control period by the clock, the last one
//   held; its kp / kd when it gives exactly one per joint, else the joints' defaults.
//   Accepts: TrajectoryRequest (replaces the current one); ModeCommand(STAND) -> STAND;
//   ModeCommand(DAMP). VelocityCommand is refused.
//   Leaves to DAMP by itself when no TrajectoryRequest arrives for trajectory_timeout_ms (200).
//
// MOVE/JOINT_STREAM — per-joint PD + feed-forward streamed by the client (robot-edge extension,
// edge_api.proto JointCommand; joint_stream.hpp says how a command becomes targets).
//   Entered: JointCommand in DAMP or STAND, with gains (kp / kd) on the first command.
//   Motors: each joint's position (extrapolated by its velocity when asked), velocity, kp, kd and
//   feed-forward torque; after the command's end_time, hold (q_des at end_time, no velocity, no
//   feed-forward).
//   Accepts: JointCommand (replaces the current one; gains optional); ModeCommand(STAND) ->
//   STAND; ModeCommand(DAMP). VelocityCommand and TrajectoryRequest are refused, as is a
//   JointCommand in MOVE/POLICY or MOVE/TRAJECTORY.
//   Leaves to DAMP by itself when no JointCommand arrives for trajectory_timeout_ms (the same
//   watchdog as MOVE/TRAJECTORY, the same rules for leaving DAMP and for a stream DAMP
//   interrupted), and at once when a measured joint velocity exceeds the command's
//   velocity_safety_limit.
//
// In every mode every position target is clamped to the joint's limits and every gain to the
// API's range (kp 0..500, kd 0..5) and the motor's; a non-finite position holds the joint's last
// target.
#pragma once

#include <cstdint>

namespace robot_edge::sm {

enum class Mode : std::uint8_t {
  kDamp = 0,
  kStand = 1,
  kMovePolicy = 2,
  kMoveTrajectory = 3,
  kMoveJointStream = 4,
};

// FirmwareMode numbering of the telemetry (seed 001): DAMP 0, STAND 1, MOVE 2.
constexpr std::uint32_t ToFirmwareMode(Mode mode) {
  switch (mode) {
    case Mode::kDamp: return 0;
    case Mode::kStand: return 1;
    case Mode::kMovePolicy:
    case Mode::kMoveTrajectory:
    case Mode::kMoveJointStream: return 2;
  }
  return 0;
}

constexpr bool IsMove(Mode mode) { return mode != Mode::kDamp && mode != Mode::kStand; }

// The modes a client streams: each command renews the trajectory watchdog.
constexpr bool IsStreamed(Mode mode) {
  return mode == Mode::kMoveTrajectory || mode == Mode::kMoveJointStream;
}

const char* ToString(Mode mode);

}  // namespace robot_edge::sm
