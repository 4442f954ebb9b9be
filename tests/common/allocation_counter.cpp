#include "allocation_counter.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>

#include "sanitizer.hpp"

namespace {

std::atomic<bool> g_counting{false};
std::atomic<std::size_t> g_allocations{0};

}  // namespace

namespace robot_edge::test {

AllocationCounter::AllocationCounter() {
  g_allocations.store(0);
  g_counting.store(true);
}
AllocationCounter::~AllocationCounter() { g_counting.store(false); }
std::size_t AllocationCounter::count() const { return g_allocations.load(); }

}  // namespace robot_edge::test

#ifdef ROBOT_EDGE_SANITIZER_ALLOCATOR

// The sanitizer owns malloc and operator new: count every allocation through its hook.
namespace {
void OnAllocation(const volatile void*, std::size_t) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1);
}
void OnFree(const volatile void*) {}
[[maybe_unused]] const int g_hooks =
    __sanitizer_install_malloc_and_free_hooks(OnAllocation, OnFree);
}  // namespace

#else

namespace {

void* Allocate(std::size_t size) noexcept {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1);
  return std::malloc(size == 0 ? 1 : size);
}

void* AllocateAligned(std::size_t size, std::align_val_t alignment) noexcept {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1);
  void* p = nullptr;
  const std::size_t a = std::max(static_cast<std::size_t>(alignment), sizeof(void*));
  return ::posix_memalign(&p, a, size == 0 ? 1 : size) == 0 ? p : nullptr;
}

void* OrThrow(void* p) {
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

void* operator new(std::size_t size) { return OrThrow(Allocate(size)); }
void* operator new[](std::size_t size) { return OrThrow(Allocate(size)); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return Allocate(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return Allocate(size); }
void* operator new(std::size_t size, std::align_val_t a) {
  return OrThrow(AllocateAligned(size, a));
}
void* operator new[](std::size_t size, std::align_val_t a) {
  return OrThrow(AllocateAligned(size, a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

#endif  // ROBOT_EDGE_SANITIZER_ALLOCATOR
