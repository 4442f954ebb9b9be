#include "daemon/api/command_validator.hpp"

#include <algorithm>
#include <cmath>

namespace robot_edge::daemon {

using sm::Command;
using sm::CommandKind;
using sm::Counters;
using sm::ModeRequest;
using sm::Reason;
using sm::Trajectory;
using sm::Velocity;

namespace {

bool AllFinite(const google::protobuf::RepeatedField<float>& values) {
  return std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); });
}

// Clamps *v into ±limit; true if it changed.
bool ClampSymmetric(float* v, double limit) {
  const float clamped = std::clamp(*v, static_cast<float>(-limit), static_cast<float>(limit));
  const bool changed = clamped != *v;
  *v = clamped;
  return changed;
}

}  // namespace

CommandValidator::CommandValidator(const config::Config& config, const config::JointTable& joints)
    : joints_(joints.size()),
      max_segments_(config.control.max_segments),
      vx_max_(static_cast<float>(config.velocity.vx_max)),
      vy_max_(static_cast<float>(config.velocity.vy_max)),
      vyaw_max_(static_cast<float>(config.velocity.vyaw_max)),
      positions_(joints_),
      kp_(joints_),
      kd_(joints_) {
  for (const config::JointParams& j : joints) {
    min_rad_.push_back(j.min_rad);
    max_rad_.push_back(j.max_rad);
    default_kp_.push_back(j.kp);
    default_kd_.push_back(j.kd);
  }
}

std::optional<Reason> CommandValidator::Validate(const edge::CloudCommand& in,
                                                 std::int64_t received_us, std::int64_t sent_us,
                                                 Trajectory* trajectory, Command* out,
                                                 Counters* counters) {
  *out = Command{};
  out->sequence = in.sequence();
  out->received_us = received_us;
  out->sent_us = sent_us;
  std::optional<Reason> drop;
  switch (in.command_case()) {
    case edge::CloudCommand::kVelocity:
      out->kind = CommandKind::kVelocity;
      drop = ValidateVelocity(in.velocity(), out, counters);
      break;
    case edge::CloudCommand::kTrajectory:
      out->kind = CommandKind::kTrajectory;
      out->trajectory = trajectory;
      drop = ValidateTrajectory(in.trajectory(), trajectory, counters);
      break;
    case edge::CloudCommand::kMode:
      out->kind = CommandKind::kMode;
      // Always accepted (seed 000). An unknown value is read as DAMP: the safe side.
      if (in.mode().mode() == edge::MODE_STAND) {
        out->mode = ModeRequest::kStand;
      } else {
        out->mode = ModeRequest::kDamp;
        if (in.mode().mode() != edge::MODE_DAMP) counters->Count(Reason::kModeUnknown);
      }
      break;
    case edge::CloudCommand::COMMAND_NOT_SET: drop = Reason::kEmptyCommand; break;
  }
  if (drop) counters->Count(*drop);
  return drop;
}

std::optional<Reason> CommandValidator::ValidateVelocity(const edge::VelocityCommand& in,
                                                         Command* out, Counters* counters) const {
  Velocity v{in.vx(), in.vy(), in.vyaw()};
  if (!std::isfinite(v.vx) || !std::isfinite(v.vy) || !std::isfinite(v.vyaw)) {
    return Reason::kVelocityNonFinite;
  }
  bool clamped = ClampSymmetric(&v.vx, vx_max_);
  clamped |= ClampSymmetric(&v.vy, vy_max_);
  clamped |= ClampSymmetric(&v.vyaw, vyaw_max_);
  if (clamped) counters->Count(Reason::kVelocityClamped);
  out->velocity = v;
  return std::nullopt;
}

std::optional<Reason> CommandValidator::ValidateTrajectory(const edge::TrajectoryRequest& in,
                                                           Trajectory* trajectory,
                                                           Counters* counters) {
  if (in.source_case() == edge::TrajectoryRequest::kId) return Reason::kTrajectoryLutId;
  if (in.source_case() != edge::TrajectoryRequest::kFull) return Reason::kTrajectoryNoSource;
  const auto& segments = in.full().segments();
  if (segments.empty()) return Reason::kTrajectoryNoSegments;
  for (const auto& s : segments) {
    if (static_cast<std::size_t>(s.positions_size()) != joints_) {
      return Reason::kTrajectoryBadLength;
    }
    if (!AllFinite(s.positions())) return Reason::kTrajectoryNonFinite;
  }
  if (static_cast<std::size_t>(segments.size()) > std::min(max_segments_, trajectory->capacity())) {
    return Reason::kTrajectoryTooLong;
  }

  trajectory->Clear();
  bool position_clamped = false;
  for (const auto& s : segments) {
    for (std::size_t j = 0; j < joints_; ++j) {
      positions_[j] = std::clamp(s.positions(static_cast<int>(j)), min_rad_[j], max_rad_[j]);
      position_clamped |= positions_[j] != s.positions(static_cast<int>(j));
    }
    FillGains(s.kp(), default_kp_, static_cast<float>(config::kApiKpMax), &kp_, counters);
    FillGains(s.kd(), default_kd_, static_cast<float>(config::kApiKdMax), &kd_, counters);
    trajectory->Append(positions_, kp_, kd_);
  }
  if (position_clamped) counters->Count(Reason::kPositionClamped);
  return std::nullopt;
}

std::optional<Reason> CommandValidator::Validate(const edge::JointCommand& in,
                                                 std::int64_t received_us, std::int64_t sent_us,
                                                 sm::JointStreamCommand* stream, Command* out,
                                                 Counters* counters) const {
  *out = Command{};
  out->kind = CommandKind::kJointStream;
  out->sequence = in.sequence();
  out->received_us = received_us;
  out->sent_us = sent_us;
  out->joint_stream = stream;
  if (const auto drop = CheckJointCommand(in)) {
    counters->Count(*drop);
    return drop;
  }
  bool position_clamped = false;
  bool gains_clamped = false;
  stream->has_gains = !in.kp().empty();
  for (std::size_t j = 0; j < joints_; ++j) {
    const int i = static_cast<int>(j);
    const float q = in.position(i);
    stream->position_rad[j] = std::clamp(q, min_rad_[j], max_rad_[j]);
    position_clamped |= stream->position_rad[j] != q;
    stream->velocity_rad_s[j] = in.velocity().empty() ? 0.0f : in.velocity(i);
    stream->torque_nm[j] = in.torque().empty() ? 0.0f : in.torque(i);
    if (stream->has_gains) {
      stream->kp[j] = std::clamp(in.kp(i), 0.0f, static_cast<float>(config::kApiKpMax));
      stream->kd[j] = std::clamp(in.kd(i), 0.0f, static_cast<float>(config::kApiKdMax));
      gains_clamped |= stream->kp[j] != in.kp(i) || stream->kd[j] != in.kd(i);
    }
  }
  stream->end_us = in.end_time_us();
  stream->reference_us = in.reference_time_us();
  stream->extrapolation_us = in.extrapolation_duration_us();
  stream->key = in.user_command_key();
  stream->velocity_limit_rad_s = in.velocity_safety_limit();
  if (position_clamped) counters->Count(Reason::kPositionClamped);
  if (gains_clamped) counters->Count(Reason::kGainsClamped);
  return std::nullopt;
}

std::optional<Reason> CommandValidator::CheckJointCommand(const edge::JointCommand& in) const {
  const auto per_joint = [this](int size) { return static_cast<std::size_t>(size) == joints_; };
  const bool gains = !in.kp().empty() || !in.kd().empty();
  if (!per_joint(in.position_size()) ||
      (!in.velocity().empty() && !per_joint(in.velocity_size())) ||
      (!in.torque().empty() && !per_joint(in.torque_size())) ||
      (gains && (!per_joint(in.kp_size()) || !per_joint(in.kd_size())))) {
    return Reason::kJointStreamBadLength;
  }
  if (!AllFinite(in.position()) || !AllFinite(in.velocity()) || !AllFinite(in.torque()) ||
      !AllFinite(in.kp()) || !AllFinite(in.kd()) || !std::isfinite(in.velocity_safety_limit())) {
    return Reason::kJointStreamNonFinite;
  }
  if (in.end_time_us() == 0) return Reason::kJointStreamNoEndTime;
  if (in.end_time_us() < 0 || in.reference_time_us() < 0 || in.velocity_safety_limit() < 0) {
    return Reason::kJointStreamBadValue;
  }
  return std::nullopt;
}

void CommandValidator::FillGains(const google::protobuf::RepeatedField<float>& given,
                                 const std::vector<float>& defaults, float max,
                                 std::vector<float>* out, Counters* counters) const {
  if (given.empty()) {  // omitted: the edge fills its defaults (seed 000)
    *out = defaults;
    return;
  }
  if (static_cast<std::size_t>(given.size()) != joints_) {  // all-or-nothing (seed 000)
    counters->Count(Reason::kGainsDefaulted);
    *out = defaults;
    return;
  }
  if (!AllFinite(given)) {
    counters->Count(Reason::kGainsNonFinite);
    *out = defaults;
    return;
  }
  bool clamped = false;
  for (std::size_t j = 0; j < joints_; ++j) {
    const float g = given.Get(static_cast<int>(j));
    (*out)[j] = std::clamp(g, 0.0f, max);
    clamped |= (*out)[j] != g;
  }
  if (clamped) counters->Count(Reason::kGainsClamped);
}

}  // namespace robot_edge::daemon
