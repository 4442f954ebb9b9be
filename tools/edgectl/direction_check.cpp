#include "tools/edgectl/direction_check.hpp"

#include <algorithm>
#include <cstdio>

namespace robot_edge::edgectl {
namespace {

// The samples' evidence under one hypothesis: unexplained torque summed, the furthest excursion.
sim::Holding Evidence(const sim::HoldingModel& model, std::span<const RestSample> samples,
                      std::size_t joint, bool reversed, double pivot_rad) {
  sim::Holding total;
  for (const RestSample& s : samples) {
    std::vector<double> q = s.q, tau = s.tau;
    if (reversed) {
      q[joint] = 2 * pivot_rad - q[joint];
      tau[joint] = -tau[joint];
    }
    const sim::Holding h = model.Check(q, tau, s.imu_wxyz);
    total.unexplained_nm2 += h.unexplained_nm2;
    if (h.worst_nm > total.worst_nm) {
      total.worst_nm = h.worst_nm;
      total.worst_joint = h.worst_joint;
    }
    if (h.beyond_range_rad > total.beyond_range_rad) {
      total.beyond_range_rad = h.beyond_range_rad;
      total.beyond_joint = h.beyond_joint;
    }
  }
  return total;
}

std::string Beyond(const sim::Holding& h) {
  char text[160];
  std::snprintf(text, sizeof(text), "%s would be %.2f rad beyond its range", h.beyond_joint.c_str(),
                h.beyond_range_rad);
  return text;
}

std::string Unexplained(const char* hypothesis, const sim::Holding& h) {
  char text[200];
  if (h.worst_joint.empty()) {
    std::snprintf(text, sizeof(text), "%s leaves no gravity unexplained", hypothesis);
  } else {
    std::snprintf(text, sizeof(text),
                  "%s leaves %.1f N²·m² of gravity unexplained (worst %s, %.2f N·m)", hypothesis,
                  h.unexplained_nm2, h.worst_joint.c_str(), h.worst_nm);
  }
  return text;
}

bool ClearlyBetter(const sim::Holding& a, const sim::Holding& b) {
  return b.unexplained_nm2 > kDecisiveRatio * a.unexplained_nm2 + kDecisiveMarginNm2;
}

}  // namespace

DirectionFinding JudgeDirection(const sim::HoldingModel& model, std::span<const RestSample> samples,
                                std::size_t joint, double pivot_rad) {
  DirectionFinding f;
  f.as_configured = Evidence(model, samples, joint, false, pivot_rad);
  f.if_reversed = Evidence(model, samples, joint, true, pivot_rad);
  const bool ok_possible = f.as_configured.beyond_range_rad < kImpossibleBeyondRad;
  const bool rev_possible = f.if_reversed.beyond_range_rad < kImpossibleBeyondRad;
  if (ok_possible && !rev_possible) {
    f.verdict = Verdict::kAgrees;
    f.why = "reversed, " + Beyond(f.if_reversed);
  } else if (!ok_possible && rev_possible) {
    f.verdict = Verdict::kReversed;
    f.why = "as configured, " + Beyond(f.as_configured);
  } else if (ClearlyBetter(f.as_configured, f.if_reversed)) {
    f.verdict = Verdict::kAgrees;
    f.why = Unexplained("reversed, the pose", f.if_reversed) + "; " +
            Unexplained("as configured, it", f.as_configured);
  } else if (ClearlyBetter(f.if_reversed, f.as_configured)) {
    f.verdict = Verdict::kReversed;
    f.why = Unexplained("as configured, the pose", f.as_configured) + "; " +
            Unexplained("reversed, it", f.if_reversed);
  } else {
    f.verdict = Verdict::kInconclusive;
    f.why = !ok_possible ? "both ways a joint lies beyond its range (" + Beyond(f.as_configured) +
                               "): a wrong offset?"
                         : "gravity loads the robot almost alike either way at these poses (" +
                               Unexplained("as configured", f.as_configured) + ", " +
                               Unexplained("reversed", f.if_reversed) + ")";
  }
  return f;
}

}  // namespace robot_edge::edgectl
