#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace robot_edge::bench {
namespace {

// Nearest-rank percentile of sorted values: the smallest value with at least p % at or below it.
double Percentile(const std::vector<double>& sorted, double p) {
  const auto rank =
      static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

Summary Summarize(std::vector<double> values) {
  Summary s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.count = values.size();
  s.p50 = Percentile(values, 50);
  s.p99 = Percentile(values, 99);
  s.min = values.front();
  s.max = values.back();
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  return s;
}

}  // namespace robot_edge::bench
