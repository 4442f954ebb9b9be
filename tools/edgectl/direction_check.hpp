// Does a motor turn its joint the way the config says? A motor's own encoder cannot tell: it
// measures in the same (possibly reversed) frame it is commanded in. Gravity can: with the robot
// hanging by its base, the torques every motor measures must hold the robot up at the pose its
// encoders report, by the robot's model (sim/holding_model.hpp). If joint j's direction is
// wrong, its true angle is the mirror of the believed one about where its offset was calibrated
// (`pivot_rad`) and its true torque is the negated one: that pose and those torques must then
// explain the samples better — or the believed pose puts a joint beyond its range.
//
// Pure: samples in, verdict out.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "sim/holding_model.hpp"

namespace robot_edge::edgectl {

// The robot at rest: every joint's measured position (rad) and torque (N·m), joint space, and the
// IMU's orientation (w, x, y, z).
struct RestSample {
  std::vector<double> q;
  std::vector<double> tau;
  std::array<double, 4> imu_wxyz{1, 0, 0, 0};
};

enum class Verdict { kAgrees, kReversed, kInconclusive };

struct DirectionFinding {
  Verdict verdict = Verdict::kInconclusive;
  sim::Holding as_configured;  // summed over the samples (worst joint: the last sample's worst)
  sim::Holding if_reversed;
  std::string why;  // one sentence: what decided it
};

// The model explains one hypothesis at least this much better (in unexplained N²·m², a ratio and
// a margin) before the other is ruled out.
inline constexpr double kDecisiveRatio = 4.0;
inline constexpr double kDecisiveMarginNm2 = 1.0;
// A pose with a joint this far beyond its range cannot be the robot's.
inline constexpr double kImpossibleBeyondRad = 0.08;

DirectionFinding JudgeDirection(const sim::HoldingModel& model, std::span<const RestSample> samples,
                                std::size_t joint, double pivot_rad);

}  // namespace robot_edge::edgectl
