#include "malloc_counter.hpp"

#include <atomic>
#include <cstdlib>

#include "sanitizer.hpp"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<std::size_t> g_mallocs{0};
}  // namespace

#ifdef ROBOT_EDGE_SANITIZER_ALLOCATOR
// Under a sanitizer, which owns malloc, tests/common/allocation_counter.cpp's hook counts every
// allocation, malloc() included; this counter then counts nothing more (the tests add both).
#else
extern "C" void* __libc_malloc(std::size_t size);

// Interposes the C library's malloc() for the whole test executable; free() stays glibc's,
// which __libc_malloc() allocates for.
extern "C" void* malloc(std::size_t size) {
  if (g_counting.load(std::memory_order_relaxed)) g_mallocs.fetch_add(1);
  return __libc_malloc(size);
}
#endif

namespace robot_edge::policy::test {

MallocCounter::MallocCounter() {
  g_mallocs.store(0);
  g_counting.store(true);
}
MallocCounter::~MallocCounter() { g_counting.store(false); }
std::size_t MallocCounter::count() const { return g_mallocs.load(); }

}  // namespace robot_edge::policy::test
