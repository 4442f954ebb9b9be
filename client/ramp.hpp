// A smooth joint-space move for MOVE/TRAJECTORY streaming (pure: no clock, no I/O).
//
// The robot applies a trajectory's segments one per control tick and holds the last, with no
// interpolation of its own (seed 000), and a client must stream packets at ~50 Hz. A Ramp says
// what to send: packet i is sent at i / packet_rate_hz seconds and carries the poses of the
// control ticks until the next packet, so the motors see a smooth target at the control rate
// even though packets come at 50 Hz; when a packet comes late the robot holds its last pose.
//
// The path is the quintic smoothstep s(u) = 10u³ − 15u⁴ + 6u⁵ from `start` to `goal` over
// duration_s (zero velocity and acceleration at both ends), then `goal` for hold_s more.
// Packet 0 starts exactly at `start` (the measured pose: a sensible first target when the robot
// goes from limp to driven), the last packet is exactly `goal`.
#pragma once

#include <cstddef>
#include <vector>

namespace robot_edge::client {

// s(u) for u in [0, 1]; 0 below, 1 above.
double SmoothStep(double u);
// Peak of ds/du (at u = 1/2): the peak joint speed is this × |goal − start| / duration.
inline constexpr double kSmoothStepPeakSlope = 1.875;

struct RampSpec {
  std::vector<float> start;      // rad, one per joint (the measured pose)
  std::vector<float> goal;       // rad, one per joint
  double duration_s = 2.0;       // length of the move; 0 = jump to goal (hold only)
  double hold_s = 0.0;           // keep streaming `goal` this long after the move
  double packet_rate_hz = 50.0;  // packets per second
  double control_rate_hz = 0.0;  // the robot's control rate (Welcome.control_rate_hz); each
                                 // packet carries round(control / packet rate) segments; 0 = 1
};

class Ramp {
 public:
  // Throws std::invalid_argument: start and goal of different or zero length, non-finite
  // values, duration or hold negative or non-finite, packet rate not in (0, 1000] Hz, control
  // rate negative or below the packet rate (when not 0).
  explicit Ramp(RampSpec spec);

  // Packets over duration_s + hold_s, one per 1 / packet_rate_hz s, the first at t = 0 and the
  // last at or just after duration_s + hold_s (so the last is the goal).
  std::size_t packet_count() const { return packet_count_; }
  double packet_time_s(std::size_t packet) const {
    return static_cast<double>(packet) / spec_.packet_rate_hz;
  }
  std::size_t segments_per_packet() const { return segments_per_packet_; }
  // The segments of packet `packet`: poses at packet_time_s + k / control_rate_hz.
  std::vector<std::vector<float>> Packet(std::size_t packet) const;
  // The pose at `t_s` seconds after the start: start before 0, goal from duration_s on.
  std::vector<float> PoseAt(double t_s) const;

  // Highest joint speed along the move (rad/s) and the joint that reaches it.
  double peak_speed_rad_s() const { return peak_speed_rad_s_; }
  std::size_t peak_joint() const { return peak_joint_; }
  const RampSpec& spec() const { return spec_; }

 private:
  RampSpec spec_;
  std::size_t packet_count_ = 0;
  std::size_t segments_per_packet_ = 1;
  double peak_speed_rad_s_ = 0.0;
  std::size_t peak_joint_ = 0;
};

}  // namespace robot_edge::client
