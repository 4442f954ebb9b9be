// Order statistics of a sample (nearest rank), for the end-to-end figures.
#pragma once

#include <cstddef>
#include <vector>

namespace robot_edge::bench {

struct Summary {
  std::size_t count = 0;
  double p50 = 0, p99 = 0, max = 0, min = 0, mean = 0;
};

// Summary of `values` (any order; copied). All zero when empty.
Summary Summarize(std::vector<double> values);

}  // namespace robot_edge::bench
