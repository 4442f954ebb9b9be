#include "daemon/channels/control_wake.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

namespace robot_edge::daemon {
namespace {

long Futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t value, const timespec* timeout,
           std::uint32_t bitset) {
  return ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), op, value, timeout, nullptr,
                   bitset);
}

}  // namespace

bool ControlWake::SleepUntil(std::int64_t deadline_us) {
  const timespec deadline{static_cast<time_t>(deadline_us / 1'000'000),
                          static_cast<long>((deadline_us % 1'000'000) * 1000)};
  for (;;) {
    if (pending_.exchange(0, std::memory_order_acq_rel) != 0) return true;
    // Absolute timeout on CLOCK_MONOTONIC (FUTEX_WAIT_BITSET's); returns at once (EAGAIN) when a
    // Wake() set the word in between.
    const long r = Futex(&pending_, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 0, &deadline,
                         FUTEX_BITSET_MATCH_ANY);
    if (r != 0 && errno == ETIMEDOUT) return pending_.exchange(0, std::memory_order_acq_rel) != 0;
  }
}

void ControlWake::Wake() {
  if (pending_.exchange(1, std::memory_order_acq_rel) == 0) {
    Futex(&pending_, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, nullptr, 0);
  }
}

}  // namespace robot_edge::daemon
