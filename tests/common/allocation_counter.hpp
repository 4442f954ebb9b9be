// Counts heap allocations (global operator new) while an AllocationCounter is alive, to check
// that what runs on the control thread allocates nothing after start-up. Linking
// robot_edge_test_allocations replaces the global operator new/delete of the test executable
// with counting versions; the model is ros2_control's test_rt_allocation.cpp.
#pragma once

#include <cstddef>

namespace robot_edge::test {

class AllocationCounter {
 public:
  AllocationCounter();
  ~AllocationCounter();
  AllocationCounter(const AllocationCounter&) = delete;
  AllocationCounter& operator=(const AllocationCounter&) = delete;
  std::size_t count() const;
};

}  // namespace robot_edge::test
