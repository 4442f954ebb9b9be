// The locomotion policy's options: the policy section of the YAML (config/ parses and validates
// it into these; policy/ never reads YAML) and what the policy is told of the robot
// (PolicySetup, built once at start by config::PolicySetupOf, config/library_options.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "statemachine/joint_params.hpp"
#include "statemachine/options.hpp"

namespace robot_edge::policy {

using sm::PolicyFaultAction;

// One term of the policy's observation vector. yaml: policy.observation[i]
enum class ObservationTerm {
  kBaseAngVel,        ///< base_ang_vel: IMU gyro x, y, z (rad/s, body frame): 3 values
  kProjectedGravity,  ///< projected_gravity: unit gravity in the body frame ((0, 0, -1) upright): 3
  kCommand,           ///< command: the walking velocity vx (m/s), vy (m/s), vyaw (rad/s): 3
  kJointPos,          ///< joint_pos: position minus the policy's default pose (rad), per joint
  kJointVel,          ///< joint_vel: velocity (rad/s), per joint
  kLastAction,        ///< last_action: the network's previous output (after action_clip), per
                      ///< policy joint; zeros after entering MOVE/POLICY
  kPhase,             ///< phase: a gait clock, sin and cos of 2π·t/period_s: 2 (or 1: values)
};

// Which values the phase term gives. yaml: policy.observation[i].values
enum class PhaseValues {
  kSinCos,  ///< sin_cos: sin, then cos (legged_gym / unitree_rl_gym, humanoid-gym)
  kSin,     ///< sin
  kCos,     ///< cos
};

// What the phase term's t counts from. yaml: policy.observation[i].since
enum class PhaseSince {
  kPolicy,  ///< policy: entering MOVE/POLICY (t = 0 there)
  kStart,   ///< start: the daemon's start
};

struct ObservationTermConfig {
  ObservationTerm term = ObservationTerm::kBaseAngVel;  ///< term: one of the names above
  std::vector<double> scale = {1.0};     ///< scale: one factor for every value of the term, or one
                                         ///< per value (e.g. command: [2.0, 2.0, 0.25])
  std::vector<std::string> joint_names;  ///< joints: joint_pos / joint_vel only: the joints, in
                                         ///< order; default: policy.joints
  std::vector<std::size_t> joints;       ///< indices into Config::joints (resolved)
  // clip: [low, high] for every value, or [[low, high], …] one per value: each raw value is
  // clamped to it before the scale (Isaac Lab's per-term clip; a command's trained ranges).
  std::vector<double> clip_low, clip_high;  ///< clip; empty = not clipped
  double period_s = 0.0;                    ///< period_s: phase only: the gait period (s); required
  PhaseValues values = PhaseValues::kSinCos;  ///< values: phase only: sin_cos | sin | cos
  PhaseSince since = PhaseSince::kPolicy;     ///< since: phase only: policy | start
  // history: this term's own frames (Isaac Lab's per-term history_length), term_major only;
  // 0 = policy.history.
  std::uint32_t history = 0;  ///< history
};

// How the last `history` observation frames are laid out in the network's input, oldest first.
enum class HistoryLayout {
  kFrameMajor,  ///< frame_major: [frame t-H+1 | … | frame t] (legged_gym / humanoid-gym stacking)
  kTermMajor,   ///< term_major: [term 1 at t-H+1 … t | term 2 …] (Isaac Lab's per-term history)
};

// The locomotion policy of MOVE/POLICY: an ONNX network evaluated at rate_hz. yaml: policy
// (optional: without it velocity commands are refused with velocity_no_policy).
// Each inference: observation (terms in order, each value scaled, then clipped to
// ±observation_clip when set; with history > 1 the last `history` frames, oldest first, in
// history_layout; term_major terms may keep their own history) -> network -> one action per
// policy joint; target = action_offset (default: default_pose) + action_scale × action (action
// first clipped to ±action_clip when set), clamped to the joint's limits, with the policy's kp /
// kd. Joints the policy does not drive hold the stand pose.
struct PolicyConfig {
  bool enabled = false;    ///< the policy: section is present
  std::string model;       ///< model: ONNX file; relative paths are relative to the directory
                           ///< of the config file
  std::string model_path;  ///< model, resolved
  double rate_hz = 50.0;   ///< rate_hz: inferences per second (1..control.rate_hz)
  std::vector<std::string> joint_names;  ///< joints: the joints it drives, in the network's
                                         ///< output order
  std::vector<std::size_t> joints;       ///< indices into Config::joints (resolved)
  std::vector<double> default_pose_rad;  ///< default_pose (rad): per policy joint; empty = each
                                         ///< joint's stand pose
  std::vector<double> action_scale;      ///< action_scale (rad per unit of action): one for every
                                         ///< joint, or one per policy joint; required
  std::vector<double> action_offset;     ///< action_offset (rad): what an action of 0 means, per
                                         ///< policy joint (Isaac Lab's offset); empty = the
                                         ///< default pose
  double action_clip = 0.0;  ///< action_clip: clip each action to ±action_clip first; 0 = off
  std::vector<double> kp;    ///< kp (N·m/rad): one, or one per policy joint; empty = the joints'
  std::vector<double> kd;  ///< kd (N·m·s/rad): one, or one per policy joint; empty = the joints'
  std::vector<ObservationTermConfig> observation;  ///< observation: the terms, in order
  double observation_clip = 0.0;  ///< observation_clip: clip each scaled value to ±this; 0 = off
  std::uint32_t history = 1;      ///< history: frames of observation fed to the network (1..64)
  HistoryLayout history_layout = HistoryLayout::kFrameMajor;  ///< history_layout: frame_major |
                                                              ///< term_major
  PolicyFaultAction on_fault = PolicyFaultAction::kStand;     ///< on_fault: stand | damp
  std::uint32_t stall_timeout_ms = 0;  ///< stall_timeout_ms: targets older than this end
                                       ///< MOVE/POLICY (a stalled inference thread); 0 = two
                                       ///< policy periods
  // recurrent_state: {INPUT: OUTPUT}, the network's recurrent state: each output is copied into
  // its input for the next inference; absent = every input P_in with an output P_out.
  std::vector<std::pair<std::string, std::string>> recurrent_state;  ///< recurrent_state

  // stall_timeout_ms, or two policy periods when 0 (µs).
  std::int64_t stall_timeout_us() const {
    return stall_timeout_ms > 0 ? static_cast<std::int64_t>(stall_timeout_ms) * 1000
                                : static_cast<std::int64_t>(2e6 / rate_hz + 0.5);
  }
};

// Number of values `term` contributes to one observation frame.
std::size_t TermSize(const ObservationTermConfig& term, const PolicyConfig& policy);
// Frames of `term` the network takes: its own history, or policy.history.
std::uint32_t TermHistory(const ObservationTermConfig& term, const PolicyConfig& policy);
const char* ToString(ObservationTerm term);
const char* ToString(HistoryLayout layout);
const char* ToString(PhaseValues values);
const char* ToString(PhaseSince since);

// A joint's stand pose and default gains as configured (yaml joints[i]; double, as the model's
// metadata is compared with them).
struct JointDefaults {
  double stand_rad = 0.0;
  double kp = 0.0;  ///< N·m/rad
  double kd = 0.0;  ///< N·m·s/rad
};

// Everything the policy is told at start-up. Built once (it allocates), never in the tick.
struct PolicySetup {
  PolicyConfig policy;                  ///< validated, enabled
  sm::JointTable joints;                ///< every joint, firmware order
  std::vector<JointDefaults> defaults;  ///< every joint, firmware order
  // Where a key was given, for messages: "robot-edge.yaml:131: policy.model".
  std::function<std::string(std::string_view key)> where = [](std::string_view key) {
    return std::string(key);
  };
};

// The model cannot drive this configuration: one problem per line, each starting with where().
// Thrown at start-up only; robot-edged reports it as an invalid configuration.
class ModelRefused : public std::runtime_error {
 public:
  explicit ModelRefused(const std::vector<std::string>& problems);
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

}  // namespace robot_edge::policy
