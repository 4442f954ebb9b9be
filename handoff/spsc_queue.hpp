// A bounded lock-free queue for exactly one producer thread and one consumer thread. Storage is
// allocated once, at construction; no other method allocates, blocks or throws.
//
// Values are copied in (Push) and out (Pop), or filled and read in place (Reserve / Commit on the
// producer's side, Peek / Release on the consumer's): the way to pass a large value whose
// members (vectors sized at construction from `prototype`) must not be copy-assigned.
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
  // Every slot a copy of `prototype` (e.g. a value whose vectors have their final size).
  SpscQueue(std::size_t capacity, const T& prototype) : slots_(capacity + 1, prototype) {}

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

  // Producer thread: the next free slot, to fill in place, or null when full. Nothing is queued
  // until Commit(); a Reserve() without Commit() leaves the queue unchanged.
  T* Reserve() {
    const std::size_t head = head_.load(std::memory_order_relaxed);
    if (Next(head) == tail_.load(std::memory_order_acquire)) return nullptr;
    return &slots_[head];
  }
  // Producer thread, after a non-null Reserve(): queues the slot.
  void Commit() {
    head_.store(Next(head_.load(std::memory_order_relaxed)), std::memory_order_release);
  }

  // Consumer thread: the oldest value, to read in place, or null when empty. It stays queued
  // until Release().
  const T* Peek() const {
    const std::size_t tail = tail_.load(std::memory_order_relaxed);
    if (tail == head_.load(std::memory_order_acquire)) return nullptr;
    return &slots_[tail];
  }
  // Consumer thread, after a non-null Peek(): frees the slot.
  void Release() {
    tail_.store(Next(tail_.load(std::memory_order_relaxed)), std::memory_order_release);
  }

  std::size_t capacity() const { return slots_.size() - 1; }

 private:
  std::size_t Next(std::size_t i) const { return i + 1 == slots_.size() ? 0 : i + 1; }

  std::vector<T> slots_;
  alignas(64) std::atomic<std::size_t> head_{0};  // written by the producer
  alignas(64) std::atomic<std::size_t> tail_{0};  // written by the consumer
};

}  // namespace robot_edge
