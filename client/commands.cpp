#include "client/commands.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace robot_edge::client {

namespace {

std::string Number(float v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string CheckAxis(const char* name, float value, float max, const char* unit) {
  if (!std::isfinite(value)) return std::string(name) + " is not a finite number";
  if (std::fabs(value) > max) {
    return std::string(name) + " " + Number(value) + " " + unit + " is outside -" + Number(max) +
           ".." + Number(max) + " " + unit;
  }
  return "";
}

void CheckGains(const char* name, std::span<const float> gains, std::size_t joints, float max) {
  if (gains.empty()) return;
  if (gains.size() != joints) {
    throw std::invalid_argument(std::string(name) + " has " + std::to_string(gains.size()) +
                                " values for " + std::to_string(joints) +
                                " joints: give one per joint or none (the robot's defaults)");
  }
  for (std::size_t i = 0; i < gains.size(); ++i) {
    if (!std::isfinite(gains[i]) || gains[i] < 0.0f || gains[i] > max) {
      throw std::invalid_argument(std::string(name) + "[" + std::to_string(i) +
                                  "] = " + Number(gains[i]) + " is outside 0.." + Number(max));
    }
  }
}

void AddSegment(std::span<const float> positions, std::span<const float> kp,
                std::span<const float> kd, edge::FullTrajectory* full) {
  if (positions.empty()) throw std::invalid_argument("a trajectory segment needs positions");
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if (!std::isfinite(positions[i])) {
      throw std::invalid_argument("position[" + std::to_string(i) + "] is not a finite number");
    }
  }
  edge::JointSegment* segment = full->add_segments();
  segment->mutable_positions()->Add(positions.begin(), positions.end());
  segment->mutable_kp()->Add(kp.begin(), kp.end());
  segment->mutable_kd()->Add(kd.begin(), kd.end());
}

// `values` is empty (when allowed) or one finite value per joint.
void CheckPerJoint(const char* name, std::span<const float> values, std::size_t joints,
                   bool may_be_empty) {
  if (values.empty() && may_be_empty) return;
  if (values.size() != joints) {
    throw std::invalid_argument(std::string(name) + " has " + std::to_string(values.size()) +
                                " values for " + std::to_string(joints) + " joints");
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      throw std::invalid_argument(std::string(name) + "[" + std::to_string(i) +
                                  "] is not a finite number");
    }
  }
}

}  // namespace

edge::JointCommand MakeJointCommand(const JointCommandFields& f) {
  const std::size_t joints = f.position.size();
  if (joints == 0) throw std::invalid_argument("a joint command needs positions");
  CheckPerJoint("position", f.position, joints, false);
  CheckPerJoint("velocity", f.velocity, joints, true);
  CheckPerJoint("torque", f.torque, joints, true);
  if (f.kp.empty() != f.kd.empty()) {
    throw std::invalid_argument("kp and kd go together: give both or neither");
  }
  CheckGains("kp", f.kp, joints, kKpMax);
  CheckGains("kd", f.kd, joints, kKdMax);
  if (f.end_time_us <= 0) {
    throw std::invalid_argument("end_time_us is required (robot time: Client::SyncClock)");
  }
  if (f.reference_time_us < 0) throw std::invalid_argument("reference_time_us is negative");
  if (!std::isfinite(f.velocity_safety_limit) || f.velocity_safety_limit < 0) {
    throw std::invalid_argument("velocity_safety_limit " + Number(f.velocity_safety_limit) +
                                " is not a finite number >= 0");
  }
  edge::JointCommand c;
  c.mutable_position()->Add(f.position.begin(), f.position.end());
  c.mutable_velocity()->Add(f.velocity.begin(), f.velocity.end());
  c.mutable_torque()->Add(f.torque.begin(), f.torque.end());
  c.mutable_kp()->Add(f.kp.begin(), f.kp.end());
  c.mutable_kd()->Add(f.kd.begin(), f.kd.end());
  c.set_end_time_us(f.end_time_us);
  c.set_reference_time_us(f.reference_time_us);
  c.set_extrapolation_duration_us(f.extrapolation_duration_us);
  c.set_user_command_key(f.user_command_key);
  c.set_velocity_safety_limit(f.velocity_safety_limit);
  return c;
}

std::string CheckVelocity(float vx_m_s, float vy_m_s, float vyaw_rad_s) {
  for (const std::string& problem :
       {CheckAxis("vx", vx_m_s, kVxMax, "m/s"), CheckAxis("vy", vy_m_s, kVyMax, "m/s"),
        CheckAxis("vyaw", vyaw_rad_s, kVyawMax, "rad/s")}) {
    if (!problem.empty()) return problem;
  }
  return "";
}

edge::CloudCommand MakeVelocity(float vx_m_s, float vy_m_s, float vyaw_rad_s) {
  edge::CloudCommand command;
  edge::VelocityCommand* velocity = command.mutable_velocity();
  velocity->set_vx(vx_m_s);
  velocity->set_vy(vy_m_s);
  velocity->set_vyaw(vyaw_rad_s);
  return command;
}

edge::CloudCommand MakeMode(edge::Mode mode) {
  edge::CloudCommand command;
  command.mutable_mode()->set_mode(mode);
  return command;
}

edge::CloudCommand MakeTrajectory(std::span<const float> positions, std::span<const float> kp,
                                  std::span<const float> kd) {
  CheckGains("kp", kp, positions.size(), kKpMax);
  CheckGains("kd", kd, positions.size(), kKdMax);
  edge::CloudCommand command;
  AddSegment(positions, kp, kd, command.mutable_trajectory()->mutable_full());
  return command;
}

edge::CloudCommand MakeTrajectory(std::span<const std::vector<float>> segments,
                                  std::span<const float> kp, std::span<const float> kd) {
  if (segments.empty()) throw std::invalid_argument("a trajectory needs at least one segment");
  const std::size_t joints = segments.front().size();
  CheckGains("kp", kp, joints, kKpMax);
  CheckGains("kd", kd, joints, kKdMax);
  edge::CloudCommand command;
  edge::FullTrajectory* full = command.mutable_trajectory()->mutable_full();
  for (std::size_t s = 0; s < segments.size(); ++s) {
    if (segments[s].size() != joints) {
      throw std::invalid_argument("segment " + std::to_string(s) + " has " +
                                  std::to_string(segments[s].size()) + " positions, segment 0 " +
                                  std::to_string(joints));
    }
    AddSegment(segments[s], kp, kd, full);
  }
  return command;
}

std::uint32_t Sequencer::Stamp(edge::CloudCommand* command, std::uint64_t now_us) {
  command->set_sequence(next_);
  command->set_timestamp_us(now_us);
  return next_++;
}

std::uint32_t Sequencer::Stamp(edge::JointCommand* command, std::uint64_t now_us) {
  command->set_sequence(next_);
  command->set_timestamp_us(now_us);
  return next_++;
}

}  // namespace robot_edge::client
