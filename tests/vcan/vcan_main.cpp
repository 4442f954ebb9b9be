// main() of can_vcan_test: refuses to run, loudly, outside tests/vcan/run (the tests take vcan
// interfaces down and delete them, so they must run in the harness's private network).
#include <gtest/gtest.h>

#include <cstdio>

#include "vcan_util.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!::testing::GTEST_FLAG(list_tests)) {
    const std::string problem = robot_edge::can::vcan::VcanProblem(5);
    if (!problem.empty()) {
      std::fprintf(stderr, "can_vcan_test: FAILED: %s\n", problem.c_str());
      return 1;
    }
  }
  return RUN_ALL_TESTS();
}
