#include "client/ramp.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace robot_edge::client {

namespace {

void CheckPose(const std::vector<float>& pose, const char* name) {
  for (std::size_t i = 0; i < pose.size(); ++i) {
    if (!std::isfinite(pose[i])) {
      throw std::invalid_argument(std::string(name) + "[" + std::to_string(i) +
                                  "] is not a finite number");
    }
  }
}

void CheckSeconds(double value, const char* name) {
  if (!std::isfinite(value) || value < 0.0) {
    throw std::invalid_argument(std::string(name) + " must be a finite number of seconds >= 0");
  }
}

}  // namespace

double SmoothStep(double u) {
  if (u <= 0.0) return 0.0;
  if (u >= 1.0) return 1.0;
  return u * u * u * (10.0 + u * (-15.0 + 6.0 * u));
}

Ramp::Ramp(RampSpec spec) : spec_(std::move(spec)) {
  if (spec_.start.empty() || spec_.start.size() != spec_.goal.size()) {
    throw std::invalid_argument("start and goal must have the same, non-zero number of joints (" +
                                std::to_string(spec_.start.size()) + " and " +
                                std::to_string(spec_.goal.size()) + ")");
  }
  CheckPose(spec_.start, "start");
  CheckPose(spec_.goal, "goal");
  CheckSeconds(spec_.duration_s, "duration");
  CheckSeconds(spec_.hold_s, "hold");
  if (!(spec_.packet_rate_hz > 0.0 && spec_.packet_rate_hz <= 1000.0)) {
    throw std::invalid_argument("the packet rate must be in (0, 1000] Hz");
  }
  if (!(spec_.control_rate_hz == 0.0 || spec_.control_rate_hz >= spec_.packet_rate_hz) ||
      !std::isfinite(spec_.control_rate_hz)) {
    throw std::invalid_argument("the control rate must be 0 (unknown) or at least the packet rate");
  }
  if (spec_.control_rate_hz > 0.0) {
    segments_per_packet_ =
        static_cast<std::size_t>(std::lround(spec_.control_rate_hz / spec_.packet_rate_hz));
  }
  // Packets at 0 .. total_s, the last one at or after total_s so that it is the goal: 2.0 s at
  // 50 Hz gives 101 packets (the epsilon absorbs the rounding of 2.0 * 50).
  const double total_s = spec_.duration_s + spec_.hold_s;
  packet_count_ = static_cast<std::size_t>(std::ceil(total_s * spec_.packet_rate_hz - 1e-9)) + 1;
  if (spec_.duration_s > 0.0) {
    for (std::size_t j = 0; j < spec_.start.size(); ++j) {
      const double speed = kSmoothStepPeakSlope *
                           std::fabs(double{spec_.goal[j]} - double{spec_.start[j]}) /
                           spec_.duration_s;
      if (speed > peak_speed_rad_s_) {
        peak_speed_rad_s_ = speed;
        peak_joint_ = j;
      }
    }
  }
}

std::vector<float> Ramp::PoseAt(double t_s) const {
  if (spec_.duration_s <= 0.0 || t_s >= spec_.duration_s) return spec_.goal;
  const double s = SmoothStep(t_s / spec_.duration_s);
  std::vector<float> pose(spec_.start.size());
  for (std::size_t j = 0; j < pose.size(); ++j) {
    const double a = spec_.start[j];
    pose[j] = static_cast<float>(a + (double{spec_.goal[j]} - a) * s);
  }
  return pose;
}

std::vector<std::vector<float>> Ramp::Packet(std::size_t packet) const {
  std::vector<std::vector<float>> segments;
  segments.reserve(segments_per_packet_);
  const double t0 = packet_time_s(packet);
  for (std::size_t k = 0; k < segments_per_packet_; ++k) {
    const double tick_s = spec_.control_rate_hz > 0.0 ? 1.0 / spec_.control_rate_hz : 0.0;
    segments.push_back(PoseAt(t0 + static_cast<double>(k) * tick_s));
  }
  return segments;
}

}  // namespace robot_edge::client
