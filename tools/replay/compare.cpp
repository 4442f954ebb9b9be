#include "tools/replay/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "edge_api.pb.h"

namespace robot_edge::replay {
namespace {

struct Run {
  std::vector<std::uint64_t> times;  // log time (ns), sorted
  std::vector<edge::JointState> states;
  std::uint64_t first_command_ns = 0;
  std::uint64_t last_command_ns = 0;
};

Run RunOf(const Recording& r, const char* which) {
  Run run;
  bool any = false;
  for (const RecordedMessage* m : r.MessagesOf("/commands")) {
    edge::CommandRecord record;
    if (!record.ParseFromString(m->data) || !record.has_command()) continue;
    if (!any) run.first_command_ns = m->log_time_ns;
    run.last_command_ns = m->log_time_ns;
    any = true;
  }
  if (!any) throw std::runtime_error(std::string(which) + ": no command in /commands");
  for (const RecordedMessage* m : r.MessagesOf("/joint_state")) {
    edge::JointState s;
    if (!s.ParseFromString(m->data)) continue;
    run.times.push_back(m->log_time_ns);
    run.states.push_back(std::move(s));
  }
  if (run.states.empty()) throw std::runtime_error(std::string(which) + ": no /joint_state");
  return run;
}

// The index of the state of `run` nearest to `t`.
std::size_t Nearest(const Run& run, std::uint64_t t) {
  const auto it = std::lower_bound(run.times.begin(), run.times.end(), t);
  if (it == run.times.begin()) return 0;
  if (it == run.times.end()) return run.times.size() - 1;
  const std::size_t i = static_cast<std::size_t>(it - run.times.begin());
  return (t - run.times[i - 1] <= run.times[i] - t) ? i - 1 : i;
}

}  // namespace

Comparison Compare(const Recording& recorded, const Recording& replayed) {
  const Run a = RunOf(recorded, "recorded");
  const Run b = RunOf(replayed, "replayed");
  Comparison c;
  const std::uint64_t end = a.last_command_ns + 1'000'000'000;
  double sum_sq = 0;
  std::size_t n_q = 0, same_mode = 0;
  // The open stretch of states in different modes: its start (ns after the first command) and
  // the modes at its start.
  bool differs = false;
  std::uint64_t differs_from = 0;
  int differs_recorded = 0, differs_replayed = 0;
  auto close_stretch = [&](std::uint64_t until) {
    const double length = static_cast<double>(until - differs_from) * 1e-9;
    if (length > c.mode_differs_for_s) {
      c.mode_differs_for_s = length;
      c.mode_differs_at_s = static_cast<double>(differs_from) * 1e-9;
      c.mode_recorded = differs_recorded;
      c.mode_replayed = differs_replayed;
    }
    differs = false;
  };
  for (std::size_t i = 0; i < a.states.size(); ++i) {
    if (a.times[i] < a.first_command_ns || a.times[i] > end) continue;
    const std::uint64_t since = a.times[i] - a.first_command_ns;
    const edge::JointState& x = a.states[i];
    const edge::JointState& y = b.states[Nearest(b, b.first_command_ns + since)];
    if (x.q_des_size() != y.q_des_size() || x.kp_size() != y.kp_size()) {
      throw std::runtime_error("the two runs have different joint counts");
    }
    ++c.states;
    const bool same = x.control_mode() == y.control_mode();
    same_mode += same;
    if (same && differs) close_stretch(since);
    if (!same && !differs) {
      differs = true;
      differs_from = since;
      differs_recorded = x.control_mode();
      differs_replayed = y.control_mode();
    }
    for (int j = 0; j < x.q_des_size(); ++j) {
      c.kp_max_diff = std::max<double>(c.kp_max_diff, std::fabs(x.kp(j) - y.kp(j)));
      c.kd_max_diff = std::max<double>(c.kd_max_diff, std::fabs(x.kd(j) - y.kd(j)));
      if (x.kp(j) <= 0 && y.kp(j) <= 0) continue;  // limp in both: q_des moves nothing
      const double d = std::fabs(static_cast<double>(x.q_des(j)) - y.q_des(j));
      sum_sq += d * d;
      ++n_q;
      if (d > c.q_des_max_rad) {
        c.q_des_max_rad = d;
        c.q_des_max_joint = "joint " + std::to_string(j);
        c.q_des_max_at_s = static_cast<double>(since) * 1e-9;
      }
    }
  }
  if (differs) close_stretch(end - a.first_command_ns);
  if (c.states > 0)
    c.mode_agreement = static_cast<double>(same_mode) / static_cast<double>(c.states);
  if (n_q > 0) c.q_des_rms_rad = std::sqrt(sum_sq / static_cast<double>(n_q));
  c.seconds = static_cast<double>(end - a.first_command_ns) * 1e-9;
  return c;
}

namespace {

// "STAND" for CONTROL_MODE_STAND.
const char* ModeName(int mode) {
  const std::string& name = edge::ControlMode_Name(static_cast<edge::ControlMode>(mode));
  return name.empty() ? "?" : name.c_str() + std::string_view("CONTROL_MODE_").size();
}

}  // namespace

std::string FormatComparison(const Comparison& c) {
  char text[768];
  std::snprintf(text, sizeof(text),
                "compared %zu recorded states over %.1f s (from each run's first command)\n"
                "control mode the same in %.1f %% of them (the longest difference: %.3f s "
                "from %.3f s: %s recorded, %s replayed)\n"
                "q_des where a gain holds the joint: RMS %.4f rad, max %.4f rad (%s, %.2f s)\n"
                "kp: largest difference %.2f; kd: %.3f\n",
                c.states, c.seconds, 100.0 * c.mode_agreement, c.mode_differs_for_s,
                c.mode_differs_at_s, ModeName(c.mode_recorded), ModeName(c.mode_replayed),
                c.q_des_rms_rad, c.q_des_max_rad,
                c.q_des_max_joint.empty() ? "-" : c.q_des_max_joint.c_str(), c.q_des_max_at_s,
                c.kp_max_diff, c.kd_max_diff);
  return text;
}

std::string ComparisonJson(const Comparison& c) {
  char text[768];
  std::snprintf(text, sizeof(text),
                "{\"states\": %zu, \"seconds\": %.3f, \"mode_agreement\": %.4f, "
                "\"q_des_rms_rad\": %.6f, \"q_des_max_rad\": %.6f, \"q_des_max_joint\": \"%s\", "
                "\"q_des_max_at_s\": %.3f, \"kp_max_diff\": %.3f, \"kd_max_diff\": %.4f, "
                "\"mode_differs_at_s\": %.3f, \"mode_differs_for_s\": %.3f, "
                "\"mode_recorded\": \"%s\", \"mode_replayed\": \"%s\"}",
                c.states, c.seconds, c.mode_agreement, c.q_des_rms_rad, c.q_des_max_rad,
                c.q_des_max_joint.c_str(), c.q_des_max_at_s, c.kp_max_diff, c.kd_max_diff,
                c.mode_differs_at_s, c.mode_differs_for_s, ModeName(c.mode_recorded),
                ModeName(c.mode_replayed));
  return text;
}

}  // namespace robot_edge::replay
