#include "malloc_counter.hpp"

#include <atomic>
#include <cstdlib>

extern "C" void* __libc_malloc(std::size_t size);

namespace {
std::atomic<bool> g_counting{false};
std::atomic<std::size_t> g_mallocs{0};
}  // namespace

// Interposes the C library's malloc() for the whole test executable; free() stays glibc's,
// which __libc_malloc() allocates for.
extern "C" void* malloc(std::size_t size) {
  if (g_counting.load(std::memory_order_relaxed)) g_mallocs.fetch_add(1);
  return __libc_malloc(size);
}

namespace robot_edge::policy::test {

MallocCounter::MallocCounter() {
  g_mallocs.store(0);
  g_counting.store(true);
}
MallocCounter::~MallocCounter() { g_counting.store(false); }
std::size_t MallocCounter::count() const { return g_mallocs.load(); }

}  // namespace robot_edge::policy::test
