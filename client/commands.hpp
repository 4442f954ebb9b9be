// Builders of the commands a client sends (pure: no I/O, no clock).
//
// The spec (seed 000) tells clients to validate before sending because the robot drops bad
// commands silently; these builders refuse what the robot would drop or silently change, with a
// message naming the value: std::invalid_argument.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "edge_api.pb.h"
#include "edge_cloud.pb.h"

namespace robot_edge::client {

// The API's ranges (seed 000; config::kApi* in the daemon, checked equal by the tests).
inline constexpr float kVxMax = 2.0f;    // m/s, |vx|
inline constexpr float kVyMax = 1.0f;    // m/s, |vy|
inline constexpr float kVyawMax = 2.0f;  // rad/s, |vyaw|
inline constexpr float kKpMax = 500.0f;  // N·m/rad
inline constexpr float kKdMax = 5.0f;    // N·m·s/rad

// "" when vx, vy, vyaw are finite and within the API's ranges, else why not, e.g.
// "vx 2.5 m/s is outside -2..2 m/s". (The robot clamps out-of-range values and drops non-finite
// ones; a command-line tool should say so rather than send them.)
std::string CheckVelocity(float vx_m_s, float vy_m_s, float vyaw_rad_s);

// A VelocityCommand (m/s, m/s, rad/s), sent as given (see CheckVelocity). Sequence and
// timestamp are 0: see Sequencer.
edge::CloudCommand MakeVelocity(float vx_m_s, float vy_m_s, float vyaw_rad_s);

// A ModeCommand: MODE_STAND or MODE_DAMP (the command numbering, not FirmwareMode's).
edge::CloudCommand MakeMode(edge::Mode mode);

// A TrajectoryRequest of one segment. `positions` (rad) has one finite value per joint; `kp`
// (N·m/rad, 0..500) and `kd` (N·m·s/rad, 0..5) are empty (the robot's defaults) or have exactly
// as many values as `positions` (the robot would silently ignore any other count). Throws
// std::invalid_argument naming the offending index.
edge::CloudCommand MakeTrajectory(std::span<const float> positions, std::span<const float> kp = {},
                                  std::span<const float> kd = {});

// A TrajectoryRequest of several segments, applied one per control tick; the same gains for
// every segment. Same rules as above for each segment; all segments have the same length.
edge::CloudCommand MakeTrajectory(std::span<const std::vector<float>> segments,
                                  std::span<const float> kp = {}, std::span<const float> kd = {});

// A JointCommand (edge_api.proto) for one instant: positions (rad) with one finite value per
// joint; velocities (rad/s), torques (N·m), kp (0..500) and kd (0..5) empty or one per joint,
// kp and kd together. `end_time_us` is robot time (time_sync.hpp) and > 0. Throws
// std::invalid_argument naming the offending field and index.
struct JointCommandFields {
  std::span<const float> position = {};
  std::span<const float> velocity = {};
  std::span<const float> torque = {};
  std::span<const float> kp = {};
  std::span<const float> kd = {};
  std::int64_t end_time_us = 0;
  std::int64_t reference_time_us = 0;  // 0 = not extrapolated
  std::uint32_t extrapolation_duration_us = 0;
  std::uint32_t user_command_key = 0;
  float velocity_safety_limit = 0;  // rad/s; 0 = none
};
edge::JointCommand MakeJointCommand(const JointCommandFields& fields);

// Stamps commands with a client's monotonic sequence numbers (1, 2, 3, ...) and a timestamp.
class Sequencer {
 public:
  explicit Sequencer(std::uint32_t first = 1) : next_(first) {}

  // Sets command->sequence to the next number and command->timestamp_us to `now_us` (µs since
  // the Unix epoch). Returns the sequence given.
  std::uint32_t Stamp(edge::CloudCommand* command, std::uint64_t now_us);
  // The same for a joint command: one sequence for all of a client's commands.
  std::uint32_t Stamp(edge::JointCommand* command, std::uint64_t now_us);
  std::uint32_t last() const { return next_ - 1; }

 private:
  std::uint32_t next_;
};

}  // namespace robot_edge::client
