// The network's input, assembled from plain measurements (pure; the inference thread's).
//
// One frame = the configured terms in order (config policy.observation), each value clamped to
// the term's clip [low, high] when it has one (before the scale, as Isaac Lab does), multiplied
// by its scale, then clipped to ±policy.observation_clip when that is set (after the scale, as
// legged_gym's clip_observations does):
//   base_ang_vel       3   IMU gyro x, y, z (rad/s, body frame)
//   projected_gravity  3   unit gravity in the body frame from the IMU quaternion ((0, 0, -1)
//                          upright; sm::ProjectedGravity)
//   command            3   vx (m/s), vy (m/s), vyaw (rad/s) of the current velocity command
//   joint_pos          n   position - DefaultPoseOf(joint) (rad), for the term's joints
//   joint_vel          n   velocity (rad/s), for the term's joints
//   last_action        m   the previous clipped action, one per policy joint (0 after Reset)
//   phase              2   sin and cos of 2π·t/period_s (values: sin_cos, sin or cos: 1), t the
//                          time (s) since entering MOVE/POLICY, or since the daemon's start
//                          (since: start); computed as 2π·(t mod period_s)/period_s
// With history H > 1 the input is the last H frames, oldest first, laid out by
// policy.history_layout: frame_major [frame t-H+1 | … | frame t], or term_major
// [term 1 at t-H1+1 … t | term 2 at t-H2+1 … t | …], where each term may keep its own Hi
// (Isaac Lab's per-term history_length; default H). Right after Reset() every slot holds the
// first frame.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "policy/setup.hpp"

namespace robot_edge::policy {

struct ObservationInputs {
  std::array<float, 3> gyro_rad_s{0, 0, 0};
  std::array<float, 4> quat_wxyz{1, 0, 0, 0};  // body -> world
  std::array<float, 3> command{0, 0, 0};       // vx m/s, vy m/s, vyaw rad/s
  std::span<const float> joint_pos_rad;        // firmware order, every configured joint
  std::span<const float> joint_vel_rad_s;      // firmware order, every configured joint
  std::span<const float> last_action;          // one per policy joint
  double policy_time_s = 0.0;                  // since entering MOVE/POLICY
  double start_time_s = 0.0;                   // since the daemon's start
};

class Observation {
 public:
  explicit Observation(const PolicySetup& setup);

  std::size_t frame_size() const { return frame_size_; }
  std::size_t size() const { return size_; }  // the network's input
  // "base_ang_vel 3 + projected_gravity 3 + … = 45" (and "× history 3 = 135").
  std::string Describe() const;

  // The next Assemble() starts the history over.
  void Reset() { fresh_ = true; }

  // Assembles one frame from `in`, adds it to the history and writes the network's input
  // (size() values) into `out`. Never allocates.
  void Assemble(const ObservationInputs& in, std::span<float> out);

 private:
  struct Term {
    ObservationTerm kind;
    std::size_t offset;                      // in the frame
    std::size_t history;                     // frames of it in the input (term_major: its own)
    std::size_t input_offset;                // of its first value in the input (term_major)
    std::vector<float> scale;                // one per value
    std::vector<std::size_t> joints;         // joint_pos / joint_vel: firmware indices
    std::vector<float> default_rad;          // joint_pos: DefaultPoseOf each joint
    std::vector<float> clip_low, clip_high;  // one per value, before the scale; empty = off
    double period_s = 0.0;                   // phase
    PhaseValues values = PhaseValues::kSinCos;
    PhaseSince since = PhaseSince::kPolicy;
  };
  void WriteFrame(const ObservationInputs& in, float* frame) const;
  const float* Frame(std::size_t k) const;
  void CopyFrameMajor(float* out) const;
  void CopyTermMajor(float* out) const;

  std::vector<Term> terms_;
  std::size_t frame_size_ = 0;
  std::size_t history_ = 1;  // frames kept: the longest history of any term
  std::size_t size_ = 0;
  HistoryLayout layout_ = HistoryLayout::kFrameMajor;
  float clip_ = 0.0f;          // 0 = off
  std::vector<float> frames_;  // history_ frames, a ring
  std::size_t next_ = 0;       // ring slot of the next frame
  bool fresh_ = true;
};

}  // namespace robot_edge::policy
