#include "recorder/message_ring.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; Debian 12's headers predate it
#endif

namespace robot_edge::recorder {

namespace {

// Pages in [p, p + n) for writing, now: one madvise(MADV_POPULATE_WRITE) (Linux 5.14), else a
// write to each page (the contents are not kept either way).
void PageIn(void* p, std::size_t n) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (begin + page - 1) / page * page;  // madvise wants it aligned
  const std::uintptr_t end = begin + n;
  if (first < end &&
      ::madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_WRITE) == 0) {
    return;
  }
  auto* bytes = static_cast<volatile std::uint8_t*>(p);
  for (std::size_t i = 0; i < n; i += page) bytes[i] = 0;
  if (n > 0) bytes[n - 1] = 0;
}

template <typename T>
std::unique_ptr<T[]> PagedIn(std::size_t count) {
  auto memory = std::make_unique_for_overwrite<T[]>(count);
  PageIn(memory.get(), count * sizeof(T));
  return memory;
}

}  // namespace

MessageRing::MessageRing(std::size_t capacity_bytes, std::size_t capacity_slots)
    : capacity_bytes_(std::max<std::size_t>(capacity_bytes, 1)),
      capacity_slots_(std::max<std::size_t>(capacity_slots, 1)),
      bytes_(PagedIn<std::uint8_t>(capacity_bytes_)),
      slots_(PagedIn<SlotData>(capacity_slots_)) {}

bool MessageRing::Push(std::uint32_t channel, std::uint32_t sequence, std::uint64_t log_time_ns,
                       std::span<const std::uint8_t> data) {
  const std::uint64_t capacity = capacity_bytes_;
  if (data.size() > capacity || data.size() > UINT32_MAX) return false;
  if (end_ - begin_ == capacity_slots_) DropOldestSlot();
  // A message never wraps around the end of the byte ring: it starts the next lap instead.
  std::uint64_t pos = head_;
  if (pos % capacity + data.size() > capacity) pos += capacity - pos % capacity;
  // The bytes held, [oldest's pos, pos + size), must fit in one lap.
  while (data_begin_ < end_ && pos + data.size() - Slot(data_begin_).pos > capacity) {
    ++data_begin_;
  }
  if (!data.empty()) std::memcpy(&bytes_[pos % capacity], data.data(), data.size());
  slots_[end_ % capacity_slots_] = {log_time_ns, pos, static_cast<std::uint32_t>(data.size()),
                                    channel, sequence};
  ++end_;
  head_ = pos + data.size();
  return true;
}

void MessageRing::DropOldestSlot() {
  last_dropped_time_ns_ = Slot(begin_).log_time_ns;
  if (data_begin_ == begin_) ++data_begin_;
  ++begin_;
}

MessageRing::Message MessageRing::at(std::uint64_t position) const {
  const SlotData& s = Slot(position);
  return {s.log_time_ns, s.channel, s.sequence,
          std::span(bytes_.get() + s.pos % capacity_bytes_, s.size)};
}

std::uint64_t MessageRing::LowerBound(std::uint64_t time_ns) const {
  std::uint64_t lo = begin_, hi = end_;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (Slot(mid).log_time_ns < time_ns) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace robot_edge::recorder
