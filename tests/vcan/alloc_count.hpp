// Counts heap allocations (global operator new) while an AllocationCounter is alive, to check
// that SocketCanTransport::Send()/Receive() allocate nothing (the control thread's contract).
// alloc_count.cpp replaces the global operator new/delete of this executable with counting
// versions; the model is ros2_control's test_rt_allocation.cpp.
#pragma once

#include <cstddef>

namespace robot_edge::can::vcan {

class AllocationCounter {
 public:
  AllocationCounter();
  ~AllocationCounter();
  AllocationCounter(const AllocationCounter&) = delete;
  AllocationCounter& operator=(const AllocationCounter&) = delete;
  std::size_t count() const;
};

}  // namespace robot_edge::can::vcan
