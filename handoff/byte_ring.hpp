// A bounded lock-free queue of variable-length byte records for exactly one producer thread and
// one consumer thread: serialized messages handed from the API thread to the recorder thread.
// Storage is allocated once, at construction; Push(), Peek() and Pop() never allocate, block or
// throw. A record that does not fit is refused (the producer counts what it loses; it never
// waits for the consumer).
//
// Layout: records are contiguous in the buffer — [u32 length][u32 tag][payload, padded to 8] —
// and never wrap: one that does not fit before the end starts again at offset 0 after a wrap
// marker, so Peek() gives the consumer a single span.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace robot_edge {

class ByteRing {
 public:
  // `capacity_bytes` is rounded up to a multiple of 8; a record takes 8 + its payload rounded up
  // to 8 bytes, and must fit in half the capacity.
  explicit ByteRing(std::size_t capacity_bytes) : buffer_((capacity_bytes + 7) / 8 * 8) {}

  ByteRing(const ByteRing&) = delete;
  ByteRing& operator=(const ByteRing&) = delete;

  // Producer thread: queues `first` followed by `second` (one record, gathered) with `tag`.
  // False when it does not fit now.
  bool Push(std::uint32_t tag, std::span<const std::uint8_t> first,
            std::span<const std::uint8_t> second = {}) {
    const std::size_t length = first.size() + second.size();
    const std::size_t need = kHeader + Padded(length);
    if (need > buffer_.size() / 2) return false;
    const std::uint64_t head = head_.load(std::memory_order_relaxed);
    const std::uint64_t tail = tail_.load(std::memory_order_acquire);
    std::size_t at = head % buffer_.size();
    std::uint64_t end = head;
    if (at + need > buffer_.size()) {  // skip to the start, leaving a wrap marker
      end += buffer_.size() - at;
      at = 0;
    }
    end += need;
    if (end - tail > buffer_.size()) return false;
    if (end - head > need) WriteHeader(head % buffer_.size(), kWrap, 0);
    WriteHeader(at, static_cast<std::uint32_t>(length), tag);
    if (!first.empty()) std::memcpy(&buffer_[at + kHeader], first.data(), first.size());
    if (!second.empty()) {
      std::memcpy(&buffer_[at + kHeader + first.size()], second.data(), second.size());
    }
    head_.store(end, std::memory_order_release);
    return true;
  }

  // Consumer thread: the oldest record (its tag and payload, valid until Pop()), or false when
  // empty.
  bool Peek(std::uint32_t* tag, std::span<const std::uint8_t>* payload) {
    std::uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail == head_.load(std::memory_order_acquire)) return false;
    std::uint32_t length = 0;
    std::size_t at = tail % buffer_.size();
    ReadHeader(at, &length, tag);
    if (length == kWrap) {  // the producer went back to the start
      tail += buffer_.size() - at;
      tail_.store(tail, std::memory_order_release);
      at = 0;
      ReadHeader(at, &length, tag);
    }
    *payload = {&buffer_[at + kHeader], length};
    return true;
  }

  // Consumer thread, after a Peek() that returned true: frees that record.
  void Pop() {
    const std::uint64_t tail = tail_.load(std::memory_order_relaxed);
    std::uint32_t length = 0, tag = 0;
    ReadHeader(tail % buffer_.size(), &length, &tag);
    tail_.store(tail + kHeader + Padded(length), std::memory_order_release);
  }

  std::size_t capacity() const { return buffer_.size(); }

 private:
  static constexpr std::size_t kHeader = 8;
  static constexpr std::uint32_t kWrap = 0xFFFFFFFF;
  static std::size_t Padded(std::size_t n) { return (n + 7) / 8 * 8; }

  void WriteHeader(std::size_t at, std::uint32_t length, std::uint32_t tag) {
    std::memcpy(&buffer_[at], &length, 4);
    std::memcpy(&buffer_[at + 4], &tag, 4);
  }
  void ReadHeader(std::size_t at, std::uint32_t* length, std::uint32_t* tag) const {
    std::memcpy(length, &buffer_[at], 4);
    std::memcpy(tag, &buffer_[at + 4], 4);
  }

  std::vector<std::uint8_t> buffer_;
  alignas(64) std::atomic<std::uint64_t> head_{0};  // bytes ever produced (the producer's)
  alignas(64) std::atomic<std::uint64_t> tail_{0};  // bytes ever consumed (the consumer's)
};

}  // namespace robot_edge
