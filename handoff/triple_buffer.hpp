// Hands the latest value from one writer thread to one reader thread without locks, waiting or
// allocation: the writer fills a back buffer and publishes it; the reader takes the newest
// published one. Values in between may be skipped (the reader wants the latest, not every one).
#pragma once

#include <atomic>
#include <cstdint>

namespace robot_edge {

template <typename T>
class TripleBuffer {
 public:
  // Each of the three buffers starts as a copy of `initial` (size vectors there, once).
  explicit TripleBuffer(const T& initial) : buffers_{initial, initial, initial} {}

  // Writer thread: the buffer to fill, then Publish().
  T& back() { return buffers_[back_]; }
  void Publish() { back_ = middle_.exchange(back_ | kFresh, std::memory_order_acq_rel) & kIndex; }

  // Reader thread: the newest published value (the same as last time if nothing new).
  const T& Latest() {
    if (middle_.load(std::memory_order_relaxed) & kFresh) {
      front_ = middle_.exchange(front_, std::memory_order_acq_rel) & kIndex;
    }
    return buffers_[front_];
  }

 private:
  static constexpr std::uint8_t kIndex = 0x3;
  static constexpr std::uint8_t kFresh = 0x4;

  T buffers_[3];
  std::uint8_t back_ = 0;                // writer's
  std::atomic<std::uint8_t> middle_{1};  // shared; kFresh when it holds an unread value
  std::uint8_t front_ = 2;               // reader's
};

}  // namespace robot_edge
