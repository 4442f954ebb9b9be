// Damaged files: a recording cut at every byte (a power loss), a zero-filled tail, flipped bits
// caught by each CRC, hostile headers. The reader never crashes, yields exactly the records that
// lie whole before the damage, and says where it stopped.
#include <gtest/gtest.h>

#include <algorithm>

#include "index_check.hpp"
#include "recorder/mcap_decode.hpp"
#include "recorder/mcap_encode.hpp"
#include "recorder/mcap_writer.hpp"
#include "test_util.hpp"

namespace robot_edge::recorder {
namespace {

using Status = McapReader::Status;
using test::Message;
using test::ReadAll;
using test::ReadBack;

struct Recording {
  std::vector<std::uint8_t> file;
  std::vector<Message> messages;
  // End offset of each Chunk record and the number of messages written until its end.
  std::vector<std::pair<std::uint64_t, std::size_t>> chunk_ends;
};

// End offsets of the file's Chunk records, in order.
std::vector<std::uint64_t> ChunkRecordEnds(std::span<const std::uint8_t> file) {
  std::vector<std::uint64_t> ends;
  std::uint64_t pos = mcap::kMagic.size();
  mcap::RecordView r;
  while (mcap::ReadRecord(file, pos, &r) == mcap::RecordRead::kOk) {
    pos += mcap::kRecordPrefixBytes + r.content.size();
    if (r.opcode == static_cast<std::uint8_t>(mcap::Opcode::kChunk)) ends.push_back(pos);
  }
  return ends;
}

Recording Record(Compression compression, std::uint32_t count = 120) {
  McapWriterOptions o;
  o.compression = compression;
  o.chunk_size = 1500;
  MemorySink sink;
  Recording r;
  McapWriter w(sink, o);
  const std::uint16_t s = w.AddSchema("S", "jsonschema", test::ToBytes("{}"));
  const std::uint16_t a = w.AddChannel(s, "/a", "json");
  const std::uint16_t b = w.AddChannel(0, "/b", "json");
  w.AddMetadata("robot", {{"name", "h1"}});
  for (std::uint32_t i = 0; i < count; ++i) {
    std::vector<std::uint8_t> data(i % 7 == 0 ? 0 : 60 + i % 40, static_cast<std::uint8_t>(i));
    Message m{i % 2 ? a : b, i, 1000 * i, 1000 * i, data};
    const std::uint32_t chunks = w.chunk_count();
    EXPECT_TRUE(w.Write(m.channel_id, m.sequence, m.log_time_ns, m.publish_time_ns, m.data));
    r.messages.push_back(std::move(m));
    if (w.chunk_count() != chunks) r.chunk_ends.emplace_back(0, i + 1);
  }
  EXPECT_TRUE(w.Close());
  r.chunk_ends.emplace_back(0, count);  // Close() writes the last chunk
  r.file = sink.bytes();
  const std::vector<std::uint64_t> ends = ChunkRecordEnds(r.file);
  EXPECT_EQ(ends.size(), r.chunk_ends.size());
  for (std::size_t i = 0; i < ends.size() && i < r.chunk_ends.size(); ++i) {
    r.chunk_ends[i].first = ends[i];
  }
  return r;
}

// [start, end) of each Chunk's `records` field (compressed as stored).
std::vector<std::pair<std::uint64_t, std::uint64_t>> ChunkPayloads(
    std::span<const std::uint8_t> file) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  std::uint64_t pos = mcap::kMagic.size();
  mcap::RecordView r;
  mcap::ChunkView chunk;
  while (mcap::ReadRecord(file, pos, &r) == mcap::RecordRead::kOk) {
    pos += mcap::kRecordPrefixBytes + r.content.size();
    if (r.opcode == static_cast<std::uint8_t>(mcap::Opcode::kChunk) &&
        mcap::ParseChunk(r.content, &chunk)) {
      const auto start = static_cast<std::uint64_t>(chunk.records.data() - file.data());
      out.emplace_back(start, start + chunk.records.size());
    }
  }
  return out;
}

// Messages of the chunks that end at or before `cut`.
std::size_t WholeBefore(const Recording& r, std::uint64_t cut) {
  std::size_t n = 0;
  for (const auto& [end, messages] : r.chunk_ends) {
    if (end <= cut) n = messages;
  }
  return n;
}

class Damage : public ::testing::TestWithParam<Compression> {};

// A power loss can cut the file anywhere: each prefix yields, in order, the messages of every
// Chunk record that lies whole in it, and nothing else; and the status is kTruncated.
TEST_P(Damage, CutAtEveryByte) {
  const Recording r = Record(GetParam());
  ASSERT_GT(r.chunk_ends.size(), 5u);
  const std::span<const std::uint8_t> file(r.file);
  for (std::size_t cut = 0; cut < file.size(); ++cut) {
    const ReadBack back = ReadAll(file.first(cut));
    ASSERT_EQ(back.status, Status::kTruncated) << "cut " << cut << ": " << back.error;
    ASSERT_LE(back.messages.size(), r.messages.size());
    ASSERT_EQ(back.messages.size(), WholeBefore(r, cut)) << "cut " << cut;
    ASSERT_TRUE(std::equal(back.messages.begin(), back.messages.end(), r.messages.begin()))
        << "cut " << cut;
    ASSERT_NE(back.error.find("truncated"), std::string::npos) << back.error;
  }
  EXPECT_EQ(ReadAll(file).status, Status::kComplete);
}

// A chunk is yielded once its record is whole, not a byte earlier.
TEST_P(Damage, CutKeepsExactlyTheWholeChunks) {
  const Recording r = Record(GetParam());
  for (const auto& [end, messages] : r.chunk_ends) {
    EXPECT_EQ(ReadAll(std::span(r.file).first(end)).messages.size(), messages);
    EXPECT_EQ(ReadAll(std::span(r.file).first(end - 1)).messages.size(), WholeBefore(r, end - 1));
  }
}

// ext4 after a power loss can leave the file's last blocks allocated but never written: zeros.
TEST_P(Damage, ZeroFilledTail) {
  const Recording r = Record(GetParam());
  const auto [end, messages] = r.chunk_ends[3];
  std::vector<std::uint8_t> file(r.file.begin(), r.file.begin() + end);
  file.resize(file.size() + 8192, 0);
  const ReadBack back = ReadAll(file);
  EXPECT_EQ(back.status, Status::kTruncated);
  EXPECT_EQ(back.messages.size(), messages);
  EXPECT_NE(back.error.find("zero-filled tail from offset " + std::to_string(end)),
            std::string::npos)
      << back.error;
}

// Any single flipped bit: never a crash, and the chunks before it are read intact. A flip in a
// chunk's (compressed) records, most of a recording, is always caught, and never yields a wrong
// message: the chunk's CRC or its decoder rejects it before any of it is yielded. (A flip in a
// length field can make the records after it garbage until a check catches it: framing has no CRC
// of its own before Data End.)
TEST_P(Damage, EveryBitFlipIsSafe) {
  const Recording r = Record(GetParam(), 40);
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> payloads = ChunkPayloads(r.file);
  std::size_t caught = 0;  // flips in chunk records that stop the read at that very chunk
  std::size_t payload_flips = 0;
  for (std::size_t i = 0; i < r.file.size(); ++i) {
    std::vector<std::uint8_t> file = r.file;
    file[i] ^= static_cast<std::uint8_t>(1u << (i % 8));
    const ReadBack back = ReadAll(file);
    const std::size_t intact = WholeBefore(r, i);
    ASSERT_GE(back.messages.size(), intact) << "flip at " << i;
    ASSERT_TRUE(std::equal(r.messages.begin(), r.messages.begin() + intact, back.messages.begin()))
        << "flip at " << i;
    const bool in_payload = std::any_of(payloads.begin(), payloads.end(), [i](const auto& p) {
      return i >= p.first && i < p.second;
    });
    if (in_payload) {
      // Caught; and whatever was yielded is what was written (a flip in a frame header field
      // the decoder does not need decodes to the right bytes: the data section CRC catches it).
      ASSERT_EQ(back.status, Status::kCorrupt) << "flip at " << i;
      ASSERT_LE(back.messages.size(), r.messages.size());
      ASSERT_TRUE(std::equal(back.messages.begin(), back.messages.end(), r.messages.begin()))
          << "flip at " << i << ": " << back.error;
      caught += back.messages.size() == intact;
      ++payload_flips;
    }
  }
  EXPECT_GT(payload_flips, 100u);
  EXPECT_GE(caught, payload_flips * 9 / 10);
}

INSTANTIATE_TEST_SUITE_P(Compressions, Damage,
                         ::testing::Values(Compression::kNone, Compression::kZstd,
                                           Compression::kLz4),
                         [](const ::testing::TestParamInfo<Compression>& p) {
                           const std::string_view name = CompressionName(p.param);
                           return name.empty() ? std::string("none") : std::string(name);
                         });

// Offset of the n-th top-level record with opcode `op`.
std::uint64_t FindRecord(std::span<const std::uint8_t> file, mcap::Opcode op, int n = 0) {
  std::uint64_t pos = mcap::kMagic.size();
  mcap::RecordView r;
  while (mcap::ReadRecord(file, pos, &r) == mcap::RecordRead::kOk) {
    if (r.opcode == static_cast<std::uint8_t>(op) && n-- == 0) return pos;
    pos += mcap::kRecordPrefixBytes + r.content.size();
  }
  ADD_FAILURE() << "no such record";
  return 0;
}

TEST(McapReaderDamage, ChunkCrcMismatchNamesTheChunk) {
  Recording r = Record(Compression::kNone);
  const std::uint64_t chunk = FindRecord(r.file, mcap::Opcode::kChunk, 2);
  r.file[chunk + 100] ^= 0x01;  // inside the third chunk's (uncompressed) records
  const ReadBack back = ReadAll(r.file);
  EXPECT_EQ(back.status, Status::kCorrupt);
  EXPECT_NE(back.error.find("at offset " + std::to_string(chunk) + ": chunk CRC mismatch"),
            std::string::npos)
      << back.error;
  EXPECT_EQ(back.messages.size(), r.chunk_ends[1].second);  // the first two chunks
}

TEST(McapReaderDamage, CompressedChunkDamage) {
  for (Compression c : {Compression::kZstd, Compression::kLz4}) {
    Recording r = Record(c);
    const std::uint64_t chunk = FindRecord(r.file, mcap::Opcode::kChunk, 1);
    r.file[chunk + 80] ^= 0x10;
    const ReadBack back = ReadAll(r.file);
    EXPECT_EQ(back.status, Status::kCorrupt);
    EXPECT_NE(back.error.find("at offset " + std::to_string(chunk)), std::string::npos)
        << back.error;
    EXPECT_EQ(back.messages.size(), r.chunk_ends[0].second);
  }
}

TEST(McapReaderDamage, DataSectionCrcMismatch) {
  Recording r = Record(Compression::kZstd);
  const std::uint64_t metadata = FindRecord(r.file, mcap::Opcode::kMetadata);
  r.file[metadata + 14] ^= 0x20;  // "robot" -> "rObot" (prefix 9, length 4, 'r')
  const ReadBack back = ReadAll(r.file);
  EXPECT_EQ(back.status, Status::kCorrupt);
  const std::uint64_t data_end = FindRecord(r.file, mcap::Opcode::kDataEnd);
  EXPECT_NE(
      back.error.find("at offset " + std::to_string(data_end) + ": data section CRC mismatch"),
      std::string::npos)
      << back.error;
  EXPECT_EQ(back.messages.size(), r.messages.size());  // everything before Data End was read
}

TEST(McapReaderDamage, SummaryCrcMismatch) {
  Recording r = Record(Compression::kLz4);
  const std::uint64_t stats = FindRecord(r.file, mcap::Opcode::kStatistics);
  r.file[stats + 9] ^= 0x01;  // message_count
  const ReadBack back = ReadAll(r.file);
  EXPECT_EQ(back.status, Status::kCorrupt);
  EXPECT_NE(back.error.find("summary CRC mismatch"), std::string::npos) << back.error;
}

TEST(McapReaderDamage, NotMcap) {
  EXPECT_EQ(ReadAll(test::ToBytes("PK\x03\x04 zip file")).status, Status::kCorrupt);
  EXPECT_EQ(ReadAll({}).status, Status::kTruncated);
  const ReadBack back = ReadAll(std::span(mcap::kMagic).first(5));
  EXPECT_EQ(back.status, Status::kTruncated);
}

// Hand-made files: magic, Header, then `records`.
std::vector<std::uint8_t> FileWith(const std::vector<std::uint8_t>& records) {
  std::vector<std::uint8_t> f;
  mcap::AppendMagic(f);
  mcap::AppendHeader(f, {"", "test"});
  f.insert(f.end(), records.begin(), records.end());
  return f;
}

TEST(McapReaderDamage, HostileChunks) {
  const std::uint8_t junk[] = {1, 2, 3, 4};
  std::vector<std::uint8_t> records;
  mcap::AppendChunk(records, {0, 0, 1ull << 40, 0, "zstd", junk});  // claims 1 TiB
  ReadBack back = ReadAll(FileWith(records));
  EXPECT_EQ(back.status, Status::kCorrupt);
  EXPECT_NE(back.error.find("limit"), std::string::npos) << back.error;

  records.clear();
  mcap::AppendChunk(records, {0, 0, 4, 0, "brotli", junk});
  back = ReadAll(FileWith(records));
  EXPECT_NE(back.error.find("unsupported compression \"brotli\""), std::string::npos) << back.error;

  for (const char* compression : {"zstd", "lz4"}) {
    records.clear();
    mcap::AppendChunk(records, {0, 0, 100, 0, compression, junk});
    back = ReadAll(FileWith(records));
    EXPECT_EQ(back.status, Status::kCorrupt) << compression;
    EXPECT_NE(back.error.find(compression), std::string::npos) << back.error;
  }
}

TEST(McapReaderDamage, MessageOnUnknownChannel) {
  std::vector<std::uint8_t> records;
  mcap::AppendMessage(records, {9, 0, 1, 1, {}});
  const ReadBack back = ReadAll(FileWith(records));
  EXPECT_EQ(back.status, Status::kCorrupt);
  EXPECT_NE(back.error.find("unknown channel 9"), std::string::npos) << back.error;
}

TEST(McapReaderDamage, RecordsOutsideChunksAndUnknownOpcodesAreRead) {
  std::vector<std::uint8_t> records;
  mcap::AppendChannel(records, {4, 0, "/x", "json", {}});
  records.insert(records.end(), {0x80, 2, 0, 0, 0, 0, 0, 0, 0, 0xAB, 0xCD});  // an extension
  mcap::AppendMessage(records, {4, 1, 2, 3, std::span(mcap::kMagic)});
  const ReadBack back = ReadAll(FileWith(records));
  EXPECT_EQ(back.status, Status::kTruncated);  // no Data End, summary or Footer
  ASSERT_EQ(back.messages.size(), 1u);
  EXPECT_EQ(back.messages[0].channel_id, 4);
  EXPECT_EQ(back.messages[0].data.size(), 8u);
}

TEST(McapReaderDamage, BytesAfterTheClosingMagic) {
  Recording r = Record(Compression::kNone, 3);
  r.file.push_back(0);
  EXPECT_EQ(ReadAll(r.file).status, Status::kCorrupt);
}

}  // namespace
}  // namespace robot_edge::recorder
