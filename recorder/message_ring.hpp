// MessageRing: the black box's memory. Copies of the latest messages in a byte ring of
// `capacity_bytes` and a ring of `capacity_slots` slots (one per message: its time, channel,
// sequence and place), both allocated and paged in by the constructor (one madvise
// MADV_POPULATE_WRITE, not a fill: under user-mode Linux 0.33 s for the default 68 MiB, where
// zero-filling them page fault by page fault took 4.7 s of every start), so that no write
// faults later and the resident size stays flat. Nothing is read before it is written. When
// either is full the oldest message goes first. Pure: no I/O, no clock, no lock.
//
// Every pushed message gets the next position, 0, 1, 2 ... A message whose bytes were
// overwritten keeps its slot (its time is still known, its data is not) until the slot ring
// wraps:   begin() <= data_begin() <= end()
//          [begin, data_begin): time only   [data_begin, end): whole messages
//
// Real time: Push allocates nothing, throws nothing, and costs a copy of the message plus a few
// slot updates per message it evicts. Threads: one thread uses a ring at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace robot_edge::recorder {

class MessageRing {
 public:
  struct Message {
    std::uint64_t log_time_ns = 0;
    std::uint32_t channel = 0;
    std::uint32_t sequence = 0;
    std::span<const std::uint8_t> data;  // valid until the next Push
  };

  // Both capacities at least 1.
  MessageRing(std::size_t capacity_bytes, std::size_t capacity_slots);

  // Copies the message in, evicting the oldest as needed. False (nothing stored, nothing
  // evicted) when `data` is larger than capacity_bytes.
  bool Push(std::uint32_t channel, std::uint32_t sequence, std::uint64_t log_time_ns,
            std::span<const std::uint8_t> data);

  std::uint64_t begin() const { return begin_; }
  std::uint64_t data_begin() const { return data_begin_; }
  std::uint64_t end() const { return end_; }
  // begin() <= position < end().
  std::uint64_t time(std::uint64_t position) const { return Slot(position).log_time_ns; }
  // data_begin() <= position < end().
  Message at(std::uint64_t position) const;
  // The first position in [begin, end) whose time is >= time_ns, or end(); times are assumed
  // non-decreasing with position (binary search).
  std::uint64_t LowerBound(std::uint64_t time_ns) const;

  // The time of the newest message whose slot was reused (0 when none was): messages up to that
  // time may have been dropped without a trace.
  std::uint64_t last_dropped_time_ns() const { return last_dropped_time_ns_; }
  std::uint64_t used_bytes() const {
    return data_begin_ == end_ ? 0 : head_ - Slot(data_begin_).pos;
  }
  std::size_t capacity_bytes() const { return capacity_bytes_; }

 private:
  // No default member initializers: allocated unfilled (see the top), written whole by Push.
  struct SlotData {
    std::uint64_t log_time_ns;
    std::uint64_t pos;  // in the endless byte stream: the byte ring's index is pos % capacity
    std::uint32_t size;
    std::uint32_t channel;
    std::uint32_t sequence;
  };

  const SlotData& Slot(std::uint64_t position) const { return slots_[position % capacity_slots_]; }
  void DropOldestSlot();

  std::size_t capacity_bytes_;
  std::size_t capacity_slots_;
  std::unique_ptr<std::uint8_t[]> bytes_;
  std::unique_ptr<SlotData[]> slots_;
  std::uint64_t begin_ = 0;
  std::uint64_t data_begin_ = 0;
  std::uint64_t end_ = 0;
  std::uint64_t head_ = 0;  // stream position of the next byte
  std::uint64_t last_dropped_time_ns_ = 0;
};

}  // namespace robot_edge::recorder
