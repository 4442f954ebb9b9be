#include "policy/observation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "policy/action.hpp"
#include "statemachine/imu_math.hpp"

namespace robot_edge::policy {

Observation::Observation(const PolicySetup& setup)
    : history_(setup.policy.history),
      layout_(setup.policy.history_layout),
      clip_(static_cast<float>(setup.policy.observation_clip)) {
  std::size_t term_major_size = 0;
  for (const ObservationTermConfig& t : setup.policy.observation) {
    const std::size_t n = TermSize(t, setup.policy);
    const std::size_t h =
        layout_ == HistoryLayout::kTermMajor ? TermHistory(t, setup.policy) : setup.policy.history;
    Term term{t.term, frame_size_, h,        term_major_size, PerItem(t.scale, n), {}, {}, {},
              {},     t.period_s,  t.values, t.since};
    term_major_size += n * h;
    history_ = std::max(history_, h);
    if (!t.clip_low.empty()) {
      term.clip_low = PerItem(t.clip_low, n);
      term.clip_high = PerItem(t.clip_high, n);
    }
    if (t.term == ObservationTerm::kJointPos || t.term == ObservationTerm::kJointVel) {
      term.joints = t.joints;
      for (std::size_t j : t.joints) term.default_rad.push_back(DefaultPoseOf(setup, j));
    }
    terms_.push_back(std::move(term));
    frame_size_ += n;
  }
  frames_.assign(frame_size_ * history_, 0.0f);
  size_ = layout_ == HistoryLayout::kTermMajor ? term_major_size : frame_size_ * history_;
}

std::string Observation::Describe() const {
  std::string s;
  for (const Term& t : terms_) {
    s += (s.empty() ? "" : " + ") + std::string(ToString(t.kind)) + " " +
         std::to_string(t.scale.size());
  }
  s += " = " + std::to_string(frame_size_);
  const bool own_histories = std::any_of(terms_.begin(), terms_.end(),
                                         [&](const Term& t) { return t.history != history_; });
  if (own_histories) {
    s += "; with each term's history (term_major)";
    for (const Term& t : terms_) s += " " + std::to_string(t.history);
    s += " = " + std::to_string(size());
  } else if (history_ > 1) {
    s += " × history " + std::to_string(history_) + " = " + std::to_string(size()) + " (" +
         ToString(layout_) + ")";
  }
  if (clip_ > 0.0f) {
    char clip[32];
    std::snprintf(clip, sizeof(clip), ", clipped to ±%g", static_cast<double>(clip_));
    s += clip;
  }
  return s;
}

void Observation::WriteFrame(const ObservationInputs& in, float* frame) const {
  for (const Term& t : terms_) {
    float* out = frame + t.offset;
    switch (t.kind) {
      case ObservationTerm::kBaseAngVel:
        for (std::size_t i = 0; i < 3; ++i) out[i] = in.gyro_rad_s[i];
        break;
      case ObservationTerm::kProjectedGravity: {
        const std::array<float, 3> g = sm::ProjectedGravity(in.quat_wxyz);
        for (std::size_t i = 0; i < 3; ++i) out[i] = g[i];
        break;
      }
      case ObservationTerm::kCommand:
        for (std::size_t i = 0; i < 3; ++i) out[i] = in.command[i];
        break;
      case ObservationTerm::kJointPos:
        for (std::size_t i = 0; i < t.joints.size(); ++i) {
          out[i] = in.joint_pos_rad[t.joints[i]] - t.default_rad[i];
        }
        break;
      case ObservationTerm::kJointVel:
        for (std::size_t i = 0; i < t.joints.size(); ++i) out[i] = in.joint_vel_rad_s[t.joints[i]];
        break;
      case ObservationTerm::kLastAction:
        for (std::size_t i = 0; i < t.scale.size(); ++i) out[i] = in.last_action[i];
        break;
      case ObservationTerm::kPhase: {
        const double t_s = t.since == PhaseSince::kPolicy ? in.policy_time_s : in.start_time_s;
        const double angle = 2.0 * std::numbers::pi * std::fmod(t_s, t.period_s) / t.period_s;
        const auto sin = static_cast<float>(std::sin(angle));
        const auto cos = static_cast<float>(std::cos(angle));
        switch (t.values) {
          case PhaseValues::kSinCos: out[0] = sin, out[1] = cos; break;
          case PhaseValues::kSin: out[0] = sin; break;
          case PhaseValues::kCos: out[0] = cos; break;
        }
        break;
      }
    }
    for (std::size_t i = 0; i < t.clip_low.size(); ++i) {
      out[i] = std::clamp(out[i], t.clip_low[i], t.clip_high[i]);
    }
    for (std::size_t i = 0; i < t.scale.size(); ++i) out[i] *= t.scale[i];
    if (clip_ > 0.0f) {
      for (std::size_t i = 0; i < t.scale.size(); ++i) out[i] = std::clamp(out[i], -clip_, clip_);
    }
  }
}

// The k-th oldest frame (0 = oldest): the ring slot after the newest one, around the ring.
// Valid between writing the newest frame into slot next_ and advancing next_.
const float* Observation::Frame(std::size_t k) const {
  return frames_.data() + ((next_ + 1 + k) % history_) * frame_size_;
}

void Observation::CopyFrameMajor(float* out) const {
  for (std::size_t k = 0; k < history_; ++k) {
    std::copy_n(Frame(k), frame_size_, out + k * frame_size_);
  }
}

void Observation::CopyTermMajor(float* out) const {
  for (const Term& t : terms_) {
    const std::size_t n = t.scale.size();
    float* block = out + t.input_offset;            // this term's history × n values, oldest first
    const std::size_t skip = history_ - t.history;  // older frames only longer terms keep
    for (std::size_t k = 0; k < t.history; ++k) {
      std::copy_n(Frame(skip + k) + t.offset, n, block + k * n);
    }
  }
}

void Observation::Assemble(const ObservationInputs& in, std::span<float> out) {
  float* slot = frames_.data() + next_ * frame_size_;
  WriteFrame(in, slot);
  if (fresh_) {
    for (std::size_t h = 0; h < history_; ++h) {
      std::copy_n(slot, frame_size_, frames_.data() + h * frame_size_);
    }
    fresh_ = false;
  }
  if (layout_ == HistoryLayout::kTermMajor) {
    CopyTermMajor(out.data());
  } else {
    CopyFrameMajor(out.data());
  }
  next_ = (next_ + 1) % history_;
}

}  // namespace robot_edge::policy
