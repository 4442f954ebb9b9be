// The black box's memory (message_ring.hpp): messages come back as copied, the oldest go first
// when the bytes or the slots run out, an overwritten message keeps its time, and a message
// never straddles the end of the byte ring; its memory is resident from construction.
#include "recorder/message_ring.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <vector>

namespace robot_edge::recorder {
namespace {

std::vector<std::uint8_t> Payload(std::size_t size, std::uint8_t seed) {
  std::vector<std::uint8_t> v(size);
  for (std::size_t i = 0; i < size; ++i) v[i] = static_cast<std::uint8_t>(seed + i);
  return v;
}

std::vector<std::uint8_t> Data(const MessageRing::Message& m) {
  return {m.data.begin(), m.data.end()};
}

TEST(MessageRing, KeepsCopiesInOrder) {
  MessageRing ring(1000, 10);
  for (std::uint8_t i = 0; i < 5; ++i) {
    std::vector<std::uint8_t> p = Payload(100, i);
    ASSERT_TRUE(ring.Push(i % 2, i, 1000 + i, p));
    p.assign(p.size(), 0xEE);  // the ring holds a copy
  }
  EXPECT_EQ(ring.begin(), 0u);
  EXPECT_EQ(ring.data_begin(), 0u);
  EXPECT_EQ(ring.end(), 5u);
  EXPECT_EQ(ring.used_bytes(), 500u);
  for (std::uint8_t i = 0; i < 5; ++i) {
    const MessageRing::Message m = ring.at(i);
    EXPECT_EQ(m.log_time_ns, 1000u + i);
    EXPECT_EQ(m.channel, i % 2u);
    EXPECT_EQ(m.sequence, i);
    EXPECT_EQ(Data(m), Payload(100, i));
  }
}

// 1000 bytes, 300-byte messages: three fit; the fourth would straddle the end, so it starts the
// next lap and evicts the first (whose bytes it reuses); its time stays known.
TEST(MessageRing, BytesRunOutOldestFirst) {
  MessageRing ring(1000, 100);
  for (std::uint8_t i = 0; i < 4; ++i) ASSERT_TRUE(ring.Push(0, i, 10 * i, Payload(300, i)));
  EXPECT_EQ(ring.begin(), 0u);
  EXPECT_EQ(ring.data_begin(), 1u);
  EXPECT_EQ(ring.end(), 4u);
  EXPECT_EQ(ring.time(0), 0u);
  for (std::uint8_t i = 1; i < 4; ++i) EXPECT_EQ(Data(ring.at(i)), Payload(300, i));
  EXPECT_EQ(ring.used_bytes(), 1000u);  // 3 messages and the 100 bytes skipped at the lap's end
  // Many more laps: always the newest that fit, whole.
  for (std::uint8_t i = 4; i < 100; ++i) ASSERT_TRUE(ring.Push(0, i, 10 * i, Payload(300, i)));
  EXPECT_EQ(ring.end() - ring.data_begin(), 3u);
  for (std::uint64_t p = ring.data_begin(); p < ring.end(); ++p) {
    EXPECT_EQ(Data(ring.at(p)), Payload(300, static_cast<std::uint8_t>(p)));
  }
}

TEST(MessageRing, SlotsRunOutOldestFirst) {
  MessageRing ring(1 << 20, 4);
  for (std::uint8_t i = 0; i < 6; ++i) ASSERT_TRUE(ring.Push(0, i, 100 + i, Payload(10, i)));
  EXPECT_EQ(ring.begin(), 2u);
  EXPECT_EQ(ring.data_begin(), 2u);
  EXPECT_EQ(ring.end(), 6u);
  EXPECT_EQ(ring.last_dropped_time_ns(), 101u);
  EXPECT_EQ(Data(ring.at(2)), Payload(10, 2));
}

TEST(MessageRing, RefusesWhatCannotFit) {
  MessageRing ring(100, 4);
  ASSERT_TRUE(ring.Push(0, 0, 1, Payload(60, 0)));
  EXPECT_FALSE(ring.Push(0, 1, 2, Payload(101, 1)));
  EXPECT_EQ(ring.end(), 1u);  // nothing stored, nothing evicted
  EXPECT_EQ(ring.data_begin(), 0u);
  EXPECT_TRUE(ring.Push(0, 2, 3, Payload(100, 2)));  // exactly the capacity: evicts the rest
  EXPECT_EQ(ring.data_begin(), 1u);
  EXPECT_EQ(Data(ring.at(1)), Payload(100, 2));
  EXPECT_TRUE(ring.Push(0, 3, 4, {}));  // an empty message is a message
  EXPECT_EQ(ring.at(2).data.size(), 0u);
}

TEST(MessageRing, LowerBoundFindsTheFirstAtOrAfter) {
  MessageRing ring(1 << 16, 8);
  for (std::uint8_t i = 0; i < 12; ++i) ASSERT_TRUE(ring.Push(0, i, 10 * i, Payload(1, i)));
  // Slots hold times 40..110.
  EXPECT_EQ(ring.LowerBound(0), 4u);
  EXPECT_EQ(ring.LowerBound(40), 4u);
  EXPECT_EQ(ring.LowerBound(41), 5u);
  EXPECT_EQ(ring.LowerBound(110), 11u);
  EXPECT_EQ(ring.LowerBound(111), 12u);
}

// This process's resident memory, bytes (/proc/self/statm's second field, in pages).
std::size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size_pages = 0, resident_pages = 0;
  statm >> size_pages >> resident_pages;
  return resident_pages * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

// Its memory is resident from construction (paged in, not filled: see message_ring.hpp), so the
// recorder thread's writes never fault and robot-edged's resident size stays flat while the black
// box fills (what live.attack's memory bound relies on). Allocated but left to fault in as
// written, 64 MiB of writes grew the resident size by 64 MiB.
TEST(MessageRing, ItsMemoryIsResidentFromConstruction) {
  constexpr std::size_t kBytes = 64u << 20;
  const std::size_t before = ResidentBytes();
  MessageRing ring(kBytes, 1u << 16);
  const std::size_t constructed = ResidentBytes();
  EXPECT_GE(constructed - std::min(constructed, before), kBytes * 9 / 10)
      << "resident " << before << " -> " << constructed << " bytes on construction";
  const std::vector<std::uint8_t> chunk(1u << 20, 0x5a);
  for (int i = 0; i < 64; ++i) ASSERT_TRUE(ring.Push(0, static_cast<std::uint32_t>(i), i, chunk));
  const std::size_t written = ResidentBytes();
  // Left to fault in, this grew by the 64 MiB written; under ASan its shadow grows ~10 MiB.
  EXPECT_LT(written - std::min(written, constructed), kBytes / 4)
      << "64 MiB written, resident " << constructed << " -> " << written << " bytes";
  EXPECT_EQ(Data(ring.at(63)), chunk);
}

}  // namespace
}  // namespace robot_edge::recorder
