#include "policy/setup.hpp"

namespace robot_edge::policy {

const char* ToString(ObservationTerm term) {
  switch (term) {
    case ObservationTerm::kBaseAngVel: return "base_ang_vel";
    case ObservationTerm::kProjectedGravity: return "projected_gravity";
    case ObservationTerm::kCommand: return "command";
    case ObservationTerm::kJointPos: return "joint_pos";
    case ObservationTerm::kJointVel: return "joint_vel";
    case ObservationTerm::kLastAction: return "last_action";
    case ObservationTerm::kPhase: return "phase";
  }
  return "?";
}

const char* ToString(HistoryLayout layout) {
  switch (layout) {
    case HistoryLayout::kFrameMajor: return "frame_major";
    case HistoryLayout::kTermMajor: return "term_major";
  }
  return "?";
}

const char* ToString(PhaseValues values) {
  switch (values) {
    case PhaseValues::kSinCos: return "sin_cos";
    case PhaseValues::kSin: return "sin";
    case PhaseValues::kCos: return "cos";
  }
  return "?";
}

const char* ToString(PhaseSince since) {
  switch (since) {
    case PhaseSince::kPolicy: return "policy";
    case PhaseSince::kStart: return "start";
  }
  return "?";
}

std::size_t TermSize(const ObservationTermConfig& term, const PolicyConfig& policy) {
  switch (term.term) {
    case ObservationTerm::kBaseAngVel:
    case ObservationTerm::kProjectedGravity:
    case ObservationTerm::kCommand: return 3;
    case ObservationTerm::kJointPos:
    case ObservationTerm::kJointVel: return term.joints.size();
    case ObservationTerm::kLastAction: return policy.joints.size();
    case ObservationTerm::kPhase: return term.values == PhaseValues::kSinCos ? 2 : 1;
  }
  return 0;
}

std::uint32_t TermHistory(const ObservationTermConfig& term, const PolicyConfig& policy) {
  return term.history > 0 ? term.history : policy.history;
}

ModelRefused::ModelRefused(const std::vector<std::string>& problems)
    : std::runtime_error([&] {
        std::string text;
        for (const std::string& p : problems) text += (text.empty() ? "" : "\n") + p;
        return text;
      }()),
      problems_(problems) {}

}  // namespace robot_edge::policy
