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

}  // namespace

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

}  // namespace robot_edge::client
