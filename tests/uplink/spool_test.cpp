// The spool (uplink/spool.hpp): order, acknowledgement, the bound and its eviction count, and
// what survives a restart (a torn tail included).
#include "uplink/spool.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace robot_edge::uplink {
namespace {

constexpr std::uint64_t kBound = 64 * 1024;  // the smallest: segments of 8 KiB

class SpoolTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string path = (std::filesystem::temp_directory_path() / "spool-XXXXXX").string();
    ASSERT_NE(::mkdtemp(path.data()), nullptr);
    dir_ = path;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::vector<std::uint64_t> DrainSequences(Spool& spool) {
    std::vector<std::uint64_t> out;
    while (auto r = spool.Next()) out.push_back(r->sequence);
    return out;
  }
  std::string dir_;
};

TEST_F(SpoolTest, HandsOutRecordsInOrderWithTheirPayloadAndKeepsThemUntilAcked) {
  Spool spool(dir_, kBound);
  EXPECT_EQ(spool.Append(1, 10, "a"), 1u);
  EXPECT_EQ(spool.Append(2, 11, "bb"), 2u);
  EXPECT_EQ(spool.Append(1, 12, "ccc"), 3u);
  auto r = spool.Next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->sequence, 1u);
  EXPECT_EQ(r->topic, 1u);
  EXPECT_EQ(r->source, 10u);
  EXPECT_EQ(r->payload, "a");
  EXPECT_EQ(spool.Next()->payload, "bb");
  EXPECT_EQ(spool.Next()->payload, "ccc");
  EXPECT_FALSE(spool.Next());
  EXPECT_EQ(spool.pending(), 3u);
  spool.Ack(2);  // out of order: 1 still holds it
  EXPECT_EQ(spool.pending(), 3u);
  spool.Ack(1);
  EXPECT_EQ(spool.pending(), 1u);
  spool.Rewind();  // the link dropped: 3 again, never the acknowledged ones
  EXPECT_EQ(DrainSequences(spool), (std::vector<std::uint64_t>{3}));
}

TEST_F(SpoolTest, ARestartHandsOutWhatWasNotAckedInOrderAndContinuesTheSequence) {
  {
    Spool spool(dir_, kBound);
    for (int i = 0; i < 5; ++i) spool.Append(1, 100 + i, "event " + std::to_string(i));
    spool.Next();
    spool.Next();
    spool.Ack(1);
    spool.Ack(2);  // 3 handed out later, never acknowledged: not lost
    spool.Next();
  }
  Spool spool(dir_, kBound);
  EXPECT_EQ(spool.pending(), 3u);
  EXPECT_EQ(spool.last_source(), 104u);
  auto r = spool.Next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->sequence, 3u);
  EXPECT_EQ(r->payload, "event 2");
  EXPECT_EQ(DrainSequences(spool), (std::vector<std::uint64_t>{4, 5}));
  EXPECT_EQ(spool.Append(1, 105, "x"), 6u);
}

TEST_F(SpoolTest, SequencesAndSourceSurviveARestartAfterEverythingWasAcked) {
  {
    Spool spool(dir_, kBound);
    spool.Append(1, 7, "a");
    spool.Append(1, 8, "b");
    spool.Next();
    spool.Next();
    spool.Ack(1);
    spool.Ack(2);
    EXPECT_EQ(spool.pending(), 0u);
  }
  Spool spool(dir_, kBound);
  EXPECT_EQ(spool.pending(), 0u);
  EXPECT_EQ(spool.last_source(), 8u);
  EXPECT_EQ(spool.Append(1, 9, "c"), 3u);
}

TEST_F(SpoolTest, StaysWithinItsBoundEvictingTheOldestAndCountingThem) {
  Spool spool(dir_, kBound);
  const std::string payload(1000, 'p');
  for (int i = 0; i < 200; ++i) spool.Append(1, i + 1, payload);  // 200 KB into 64 KiB
  EXPECT_LE(spool.bytes(), kBound);
  EXPECT_GT(spool.evicted(), 0u);
  EXPECT_EQ(spool.evicted() + spool.pending(), 200u);
  // What is left is the newest, in order, ending with the last appended.
  const auto left = DrainSequences(spool);
  ASSERT_EQ(left.size(), spool.pending());
  for (std::size_t i = 1; i < left.size(); ++i) EXPECT_EQ(left[i], left[i - 1] + 1);
  EXPECT_EQ(left.back(), 200u);
  std::uint64_t on_disk = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir_)) {
    if (f.path().filename().string().rfind("seg-", 0) == 0) on_disk += f.file_size();
  }
  EXPECT_LE(on_disk, kBound);
  const std::uint64_t evicted = spool.evicted();
  Spool reopened(dir_, kBound);  // the count is kept across restarts
  EXPECT_EQ(reopened.evicted(), evicted);
  EXPECT_EQ(reopened.pending(), left.size());
}

TEST_F(SpoolTest, EvictingRecordsInFlightKeepsNextOnTheOldestLeft) {
  Spool spool(dir_, kBound);
  const std::string payload(1000, 'p');
  spool.Append(1, 1, payload);
  ASSERT_EQ(spool.Next()->sequence, 1u);  // in flight when it is evicted
  for (int i = 1; i < 200; ++i) spool.Append(1, i + 1, payload);
  spool.Ack(1);  // its PUBACK after the eviction: ignored
  const auto left = DrainSequences(spool);
  ASSERT_FALSE(left.empty());
  EXPECT_EQ(left.front(), 200u - spool.pending() + 1);
}

TEST_F(SpoolTest, ATornTailIsCutAndTheRecordsBeforeItKept) {
  std::string segment;
  {
    Spool spool(dir_, kBound);
    spool.Append(1, 1, "first");
    spool.Append(1, 2, "second");
  }
  for (const auto& f : std::filesystem::directory_iterator(dir_)) {
    if (f.path().filename().string().rfind("seg-", 0) == 0) segment = f.path().string();
  }
  ASSERT_FALSE(segment.empty());
  const auto size = std::filesystem::file_size(segment);
  std::filesystem::resize_file(segment, size - 3);  // a crash mid-write of "second"
  Spool spool(dir_, kBound);
  EXPECT_EQ(spool.torn_bytes(), 28u + 6u - 3u);
  EXPECT_EQ(spool.pending(), 1u);
  EXPECT_EQ(spool.Next()->payload, "first");
  EXPECT_EQ(spool.Append(1, 3, "third"), 2u);  // sequence 2 was never durable: reused
  Spool again(dir_, kBound);
  EXPECT_EQ(again.pending(), 2u);
}

TEST_F(SpoolTest, RefusesABoundBelow64KiBAndARecordLargerThanASegment) {
  EXPECT_THROW(Spool(dir_, 1024), SpoolError);
  Spool spool(dir_, kBound);
  EXPECT_THROW(spool.Append(1, 1, std::string(9000, 'x')), SpoolError);
}

}  // namespace
}  // namespace robot_edge::uplink
