// A bounded lock-free queue for exactly one producer thread and one consumer thread. Storage is
// allocated once, at construction; Push() and Pop() never allocate, block or throw.
#pragma once

#include <atomic>
#include <cstddef>
#include <new>
#include <optional>
#include <vector>

namespace robot_edge {

template <typename T>
class SpscQueue {
 public:
  explicit SpscQueue(std::size_t capacity) : slots_(capacity + 1) {}

  SpscQueue(const SpscQueue&) = delete;
  SpscQueue& operator=(const SpscQueue&) = delete;

  // Producer thread. False when full (the value is not queued).
  bool Push(const T& value) {
    const std::size_t head = head_.load(std::memory_order_relaxed);
    const std::size_t next = Next(head);
    if (next == tail_.load(std::memory_order_acquire)) return false;
    slots_[head] = value;
    head_.store(next, std::memory_order_release);
    return true;
  }

  // Consumer thread. False when empty.
  bool Pop(T* value) {
    const std::size_t tail = tail_.load(std::memory_order_relaxed);
    if (tail == head_.load(std::memory_order_acquire)) return false;
    *value = slots_[tail];
    tail_.store(Next(tail), std::memory_order_release);
    return true;
  }

  std::size_t capacity() const { return slots_.size() - 1; }

 private:
  std::size_t Next(std::size_t i) const { return i + 1 == slots_.size() ? 0 : i + 1; }

  std::vector<T> slots_;
  alignas(64) std::atomic<std::size_t> head_{0};  // written by the producer
  alignas(64) std::atomic<std::size_t> tail_{0};  // written by the consumer
};

}  // namespace robot_edge
