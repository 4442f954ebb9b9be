// Counts calls to malloc() while a MallocCounter is alive. Eigen allocates its temporaries with
// malloc(), not operator new, so test::AllocationCounter (tests/common) alone would miss them:
// this test executable interposes malloc() (forwarding to glibc's __libc_malloc) to see those too.
#pragma once

#include <cstddef>

namespace robot_edge::policy::test {

class MallocCounter {
 public:
  MallocCounter();
  ~MallocCounter();
  MallocCounter(const MallocCounter&) = delete;
  MallocCounter& operator=(const MallocCounter&) = delete;
  std::size_t count() const;
};

}  // namespace robot_edge::policy::test
