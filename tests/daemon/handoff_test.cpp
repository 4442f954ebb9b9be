// The lock-free hand-offs between the API thread and the control thread.
#include <gtest/gtest.h>

#include <thread>

#include "daemon/channels/command_pipe.hpp"
#include "handoff/byte_ring.hpp"
#include "handoff/spsc_queue.hpp"
#include "handoff/triple_buffer.hpp"

namespace robot_edge::daemon {
namespace {

TEST(SpscQueue, FifoAndBounded) {
  SpscQueue<int> q(3);
  EXPECT_TRUE(q.Push(1));
  EXPECT_TRUE(q.Push(2));
  EXPECT_TRUE(q.Push(3));
  EXPECT_FALSE(q.Push(4)) << "full";
  int v = 0;
  EXPECT_TRUE(q.Pop(&v));
  EXPECT_EQ(v, 1);
  EXPECT_TRUE(q.Push(4));
  for (int expected : {2, 3, 4}) {
    ASSERT_TRUE(q.Pop(&v));
    EXPECT_EQ(v, expected);
  }
  EXPECT_FALSE(q.Pop(&v)) << "empty";
}

TEST(SpscQueue, TwoThreadsLoseNothingAndKeepOrder) {
  SpscQueue<int> q(64);
  constexpr int kCount = 200000;
  std::thread producer([&] {
    for (int i = 0; i < kCount; ++i) {
      while (!q.Push(i)) std::this_thread::yield();
    }
  });
  int expected = 0, v = 0;
  while (expected < kCount) {
    if (q.Pop(&v)) {
      ASSERT_EQ(v, expected);
      ++expected;
    }
  }
  producer.join();
}

TEST(SpscQueue, InPlaceSlotsKeepThePrototypesSizeAndOrder) {
  SpscQueue<std::vector<int>> q(2, std::vector<int>(5));
  std::vector<int>* slot = q.Reserve();
  ASSERT_NE(slot, nullptr);
  EXPECT_EQ(slot->size(), 5u);
  (*slot)[0] = 1;
  EXPECT_EQ(q.Peek(), nullptr) << "nothing is queued before Commit";
  q.Commit();
  q.Reserve()->at(0) = 2;
  q.Commit();
  EXPECT_EQ(q.Reserve(), nullptr) << "full";
  ASSERT_NE(q.Peek(), nullptr);
  EXPECT_EQ(q.Peek()->at(0), 1);
  q.Release();
  EXPECT_EQ(q.Peek()->at(0), 2);
  q.Release();
  EXPECT_EQ(q.Peek(), nullptr);
}

std::span<const std::uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}
std::string Text(std::span<const std::uint8_t> b) { return {b.begin(), b.end()}; }

TEST(ByteRing, RecordsComeOutWholeAndInOrderAcrossTheWrap) {
  ByteRing ring(256);
  std::uint32_t tag = 0;
  std::span<const std::uint8_t> out;
  for (int round = 0; round < 50; ++round) {  // sizes that do not divide the ring: it wraps
    const std::string a(static_cast<std::size_t>(round % 37), 'a' + round % 26);
    ASSERT_TRUE(ring.Push(static_cast<std::uint32_t>(round), Bytes(a), Bytes("|end")));
    ASSERT_TRUE(ring.Peek(&tag, &out));
    EXPECT_EQ(tag, static_cast<std::uint32_t>(round));
    EXPECT_EQ(Text(out), a + "|end");
    ring.Pop();
    EXPECT_FALSE(ring.Peek(&tag, &out));
  }
}

TEST(ByteRing, AFullRingRefusesAndTakesAgainOnceRead) {
  ByteRing ring(128);
  const std::string twenty(20, 'x');  // 8 + 24 = 32 bytes each
  int pushed = 0;
  while (ring.Push(1, Bytes(twenty))) ++pushed;
  EXPECT_EQ(pushed, 4);
  std::uint32_t tag = 0;
  std::span<const std::uint8_t> out;
  ASSERT_TRUE(ring.Peek(&tag, &out));
  ring.Pop();
  EXPECT_TRUE(ring.Push(2, Bytes(twenty)));
  EXPECT_FALSE(ring.Push(3, Bytes(std::string(100, 'y')))) << "more than half the ring";
}

TEST(ByteRing, TwoThreadsLoseNothingAndKeepOrder) {
  ByteRing ring(4096);
  constexpr std::uint32_t kCount = 30000;
  std::thread producer([&] {
    for (std::uint32_t i = 0; i < kCount; ++i) {
      const std::string body(i % 300, static_cast<char>(i));
      while (!ring.Push(i, Bytes(body))) std::this_thread::yield();
    }
  });
  std::uint32_t expected = 0, tag = 0;
  std::span<const std::uint8_t> out;
  while (expected < kCount) {
    if (!ring.Peek(&tag, &out)) continue;
    ASSERT_EQ(tag, expected);
    ASSERT_EQ(out.size(), expected % 300);
    for (std::uint8_t b : out) ASSERT_EQ(b, static_cast<std::uint8_t>(expected));
    ring.Pop();
    ++expected;
  }
  producer.join();
}

TEST(TripleBuffer, TheReaderGetsTheLatestPublishedValue) {
  TripleBuffer<int> b(0);
  EXPECT_EQ(b.Latest(), 0);
  b.back() = 1;
  b.Publish();
  b.back() = 2;
  b.Publish();
  EXPECT_EQ(b.Latest(), 2);
  EXPECT_EQ(b.Latest(), 2) << "stays until something newer is published";
  b.back() = 3;  // written, not published
  EXPECT_EQ(b.Latest(), 2);
  b.Publish();
  EXPECT_EQ(b.Latest(), 3);
}

TEST(TripleBuffer, ConcurrentReaderNeverSeesATornValue) {
  struct Pair {
    long a = 0, b = 0;
  };
  TripleBuffer<Pair> buffer(Pair{});
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (long i = 1; i < 300000; ++i) {
      buffer.back() = Pair{i, -i};
      buffer.Publish();
    }
    done = true;
  });
  long last = 0;
  while (!done) {
    const Pair& p = buffer.Latest();
    ASSERT_EQ(p.a, -p.b);
    ASSERT_GE(p.a, last) << "never goes back in time";
    last = p.a;
  }
  writer.join();
}

TEST(CommandPipe, SlotsCirculateWithoutLoss) {
  CommandPipe pipe(2, 25, 8);
  CommandSlot* a = pipe.Acquire();
  CommandSlot* b = pipe.Acquire();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(pipe.Acquire(), nullptr) << "every slot in flight";
  EXPECT_EQ(a->trajectory.capacity(), 8u);
  a->command.sequence = 7;
  pipe.Send(a);
  CommandSlot* received = pipe.Receive();
  ASSERT_EQ(received, a);
  EXPECT_EQ(received->command.sequence, 7u);
  EXPECT_EQ(pipe.Receive(), nullptr);
  pipe.Release(received);
  EXPECT_EQ(pipe.Acquire(), a);
}

}  // namespace
}  // namespace robot_edge::daemon
