// Seed 000's "Command Validation", as a pure function of the command: a CloudCommand becomes an
// sm::Command (perhaps adjusted: velocity clamped, gains defaulted or clamped, positions clamped
// to the joint limits) or is dropped with a reason. Mode-dependent rules (velocity in DAMP, the
// transition table) are the state machine's (statemachine/state_machine.hpp), which knows
// nothing of protobuf: this adapter is the daemon's.
//
// Threads: runs where commands arrive (the daemon's API thread), so the control thread receives
// only valid commands. Not thread-safe; one validator per thread.
#pragma once

#include <optional>
#include <vector>

#include "config/config.hpp"
#include "config/joint_table.hpp"
#include "edge_api.pb.h"
#include "edge_cloud.pb.h"
#include "statemachine/counters.hpp"
#include "statemachine/io.hpp"
#include "statemachine/joint_stream.hpp"
#include "statemachine/trajectory.hpp"

namespace robot_edge::daemon {

class CommandValidator {
 public:
  // `joints`: config::BuildJointTable(config).
  CommandValidator(const config::Config& config, const config::JointTable& joints);

  // Validates `in`. On success fills *out (and *trajectory for a TrajectoryRequest;
  // out->trajectory then points to it) and returns nullopt; otherwise returns why it is dropped.
  // Every drop and adjustment is counted in *counters. out->received_us / sent_us are set from
  // the arguments (µs, steady clock).
  std::optional<sm::Reason> Validate(const edge::CloudCommand& in, std::int64_t received_us,
                                     std::int64_t sent_us, sm::Trajectory* trajectory,
                                     sm::Command* out, sm::Counters* counters);

  // The same for a JointCommand (edge_api.proto): *stream is filled and out->joint_stream
  // points to it. Positions are clamped to the joint limits and gains to the API's range
  // (counted); a non-finite value, a field neither empty (where allowed) nor one per joint, a
  // missing end_time or a negative time drops it. Whether gains are needed (the first command of
  // a stream) and whether end_time has passed are the state machine's to judge.
  std::optional<sm::Reason> Validate(const edge::JointCommand& in, std::int64_t received_us,
                                     std::int64_t sent_us, sm::JointStreamCommand* stream,
                                     sm::Command* out, sm::Counters* counters) const;

 private:
  std::optional<sm::Reason> CheckJointCommand(const edge::JointCommand& in) const;
  std::optional<sm::Reason> ValidateVelocity(const edge::VelocityCommand& in, sm::Command* out,
                                             sm::Counters* counters) const;
  std::optional<sm::Reason> ValidateTrajectory(const edge::TrajectoryRequest& in,
                                               sm::Trajectory* trajectory, sm::Counters* counters);
  // Gains of one segment into scratch: exactly one per joint, finite, clamped; else defaults.
  void FillGains(const google::protobuf::RepeatedField<float>& given,
                 const std::vector<float>& defaults, float max, std::vector<float>* out,
                 sm::Counters* counters) const;

  std::size_t joints_;
  std::size_t max_segments_;
  float vx_max_, vy_max_, vyaw_max_;
  std::vector<float> min_rad_, max_rad_, default_kp_, default_kd_;
  std::vector<float> positions_, kp_, kd_;  // scratch for one segment
};

}  // namespace robot_edge::daemon
