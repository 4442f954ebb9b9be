// The writer's whole output, record by record, for a tiny file (compression none), against a file
// laid out independently with @mcap/core's McapRecordBuilder and @foxglove/crc (offsets, index
// records and CRCs computed there). Then its failure contract: a sink that fails, bad ids, calls
// after Close().
#include "recorder/mcap_writer.hpp"

#include <gtest/gtest.h>

#include "recorder/mcap_encode.hpp"
#include "test_util.hpp"

namespace robot_edge::recorder {
namespace {

using test::ReadAll;
using test::RecordsHex;
using test::ToBytes;

McapWriterOptions Uncompressed() {
  McapWriterOptions o;
  o.library = "re";
  o.compression = Compression::kNone;
  return o;
}

// Schema "S" (jsonschema "{}"), channel "/t" (json), Metadata robot={name: h1}, two messages.
void WriteTinyFile(McapWriter& w) {
  ASSERT_EQ(w.AddSchema("S", "jsonschema", ToBytes("{}")), 1);
  ASSERT_EQ(w.AddChannel(1, "/t", "json"), 1);
  ASSERT_TRUE(w.AddMetadata("robot", {{"name", "h1"}}));
  ASSERT_TRUE(w.Write(1, 0, 10, 9, ToBytes("ab")));
  ASSERT_TRUE(w.Write(1, 1, 20, 20, {}));  // an empty message
  ASSERT_TRUE(w.Close());
}

TEST(McapWriter, TinyFileGoldenBytes) {
  MemorySink sink;
  McapWriter w(sink, Uncompressed());
  WriteTinyFile(w);
  const std::vector<std::uint8_t>& f = sink.bytes();
  ASSERT_GE(f.size(), 16u);
  EXPECT_EQ(test::Hexify(std::span(f).first(8)), "894d434150300d0a");  // magic
  EXPECT_EQ(test::Hexify(std::span(f).last(8)), "894d434150300d0a");
  const std::vector<std::string> expected = {
      // Header: profile "", library "re"
      "010a0000000000000000000000020000007265",
      // Schema 1 and Channel 1, in the data section as they are added
      "031b00000000000000010001000000530a0000006a736f6e736368656d61020000007b7d",
      "04160000000000000001000100020000002f74040000006a736f6e00000000",
      // Metadata "robot"
      "0c1b0000000000000005000000726f626f740e000000040000006e616d65020000006831",
      // Chunk: log times 10..20, 64 bytes, CRC 0x476b4dc2, compression "", two Message records
      "0668000000000000000a0000000000000014000000000000004000000000000000c24d6b4700000000400000"
      "00000000000518000000000000000100000000000a000000000000000900000000000000616205160000000000"
      "000001000100000014000000000000001400000000000000",
      // Message Index of channel 1: (10, offset 0), (20, offset 33)
      "0726000000000000000100200000000a00000000000000000000000000000014000000000000002100000000"
      "000000",
      // Data End: CRC of every byte before it
      "0f0400000000000000977492e5",
      // Summary: Schema, Channel, Statistics, Chunk Index, Metadata Index
      "031b00000000000000010001000000530a0000006a736f6e736368656d61020000007b7d",
      "04160000000000000001000100020000002f74040000006a736f6e00000000",
      "0b380000000000000002000000000000000100010000000000000001000000010000000a0000000000000014"
      "000000000000000a00000001000200000000000000",
      "084a000000000000000a000000000000001400000000000000820000000000000071000000000000000a0000"
      "000100f3000000000000002f000000000000000000000040000000000000004000000000000000",
      "0d19000000000000005e00000000000000240000000000000005000000726f626f74",
      // Summary Offsets: one per group
      "0e1100000000000000032f010000000000002400000000000000",
      "0e11000000000000000453010000000000001f00000000000000",
      "0e11000000000000000b72010000000000004100000000000000",
      "0e110000000000000008b3010000000000005300000000000000",
      "0e11000000000000000d06020000000000002200000000000000",
      // Footer: summary_start 303, summary_offset_start 552, summary CRC
      "0214000000000000002f0100000000000028020000000000005fee32b3",
  };
  EXPECT_EQ(RecordsHex(f), expected);
  EXPECT_EQ(w.bytes_written(), f.size());
}

TEST(McapWriter, CountersForRotation) {
  MemorySink sink;
  McapWriter w(sink, Uncompressed());
  EXPECT_EQ(w.message_count(), 0u);
  EXPECT_EQ(w.first_log_time_ns(), 0u);
  const std::uint16_t ch = w.AddChannel(0, "/x", "json");
  ASSERT_TRUE(w.Write(ch, 0, 300, 300, ToBytes("{}")));
  ASSERT_TRUE(w.Write(ch, 1, 100, 100, ToBytes("{}")));  // out of order: min/max still right
  ASSERT_TRUE(w.Write(ch, 2, 200, 200, ToBytes("{}")));
  EXPECT_EQ(w.message_count(), 3u);
  EXPECT_EQ(w.first_log_time_ns(), 100u);
  EXPECT_EQ(w.last_log_time_ns(), 300u);
  EXPECT_EQ(w.buffered_bytes(), 3 * mcap::MessageRecordBytes(2));
  const std::uint64_t before = w.bytes_written();
  ASSERT_TRUE(w.Flush());
  EXPECT_EQ(w.buffered_bytes(), 0u);
  EXPECT_GT(w.bytes_written(), before);
  EXPECT_EQ(w.chunk_count(), 1u);
  EXPECT_EQ(sink.bytes().size(), w.bytes_written());
}

TEST(McapWriter, RejectsUnknownIdsAndStaysUsable) {
  MemorySink sink;
  McapWriter w(sink, Uncompressed());
  EXPECT_EQ(w.AddChannel(5, "/x", "json"), 0);
  EXPECT_NE(w.error().find("unknown schema id 5"), std::string::npos) << w.error();
  EXPECT_FALSE(w.Write(1, 0, 1, 1, ToBytes("x")));
  EXPECT_NE(w.error().find("unknown channel id 1"), std::string::npos) << w.error();
  EXPECT_FALSE(w.Write(0, 0, 1, 1, ToBytes("x")));
  EXPECT_TRUE(w.ok());
  const std::uint16_t ch = w.AddChannel(0, "/x", "json");
  EXPECT_EQ(ch, 1);
  EXPECT_TRUE(w.Write(ch, 0, 1, 1, ToBytes("x")));
  EXPECT_TRUE(w.Close());
  EXPECT_EQ(ReadAll(sink.bytes()).messages.size(), 1u);
}

TEST(McapWriter, EveryCallFailsAfterClose) {
  MemorySink sink;
  McapWriter w(sink, Uncompressed());
  const std::uint16_t ch = w.AddChannel(0, "/x", "json");
  ASSERT_TRUE(w.Close());
  const std::size_t size = sink.bytes().size();
  EXPECT_TRUE(w.Close());  // idempotent
  EXPECT_FALSE(w.Write(ch, 0, 1, 1, ToBytes("x")));
  EXPECT_NE(w.error().find("after Close()"), std::string::npos) << w.error();
  EXPECT_EQ(w.AddSchema("S", "", {}), 0);
  EXPECT_FALSE(w.AddMetadata("m", {}));
  EXPECT_FALSE(w.Flush());
  EXPECT_EQ(sink.bytes().size(), size);
}

// A disk that fills up mid-recording: Write returns false with the sink's reason, nothing
// throws, every later call fails, and the file keeps every chunk written before.
TEST(McapWriter, SinkFailureMidWrite) {
  McapWriterOptions o = Uncompressed();
  o.chunk_size = 1000;
  MemorySink sink(20000);
  McapWriter w(sink, o);
  const std::uint16_t ch = w.AddChannel(0, "/joints", "json");
  const std::vector<std::uint8_t> payload(200, 0x5a);
  std::uint32_t written = 0;
  while (w.Write(ch, written, written, written, payload)) ++written;
  EXPECT_FALSE(w.ok());
  EXPECT_NE(w.error().find("memory sink full"), std::string::npos) << w.error();
  EXPECT_NE(w.error().find("file offset"), std::string::npos) << w.error();
  EXPECT_GT(written, 50u);
  EXPECT_FALSE(w.Write(ch, 0, 0, 0, payload));
  EXPECT_FALSE(w.Flush());
  EXPECT_FALSE(w.Close());
  EXPECT_EQ(w.AddChannel(0, "/y", "json"), 0);
  // What reached the sink is a valid, truncated recording.
  const test::ReadBack back = ReadAll(sink.bytes());
  EXPECT_EQ(back.status, McapReader::Status::kTruncated) << back.error;
  EXPECT_GT(back.messages.size(), 0u);
  // The failing Write's message too, if its chunk reached the sink before its Message Index.
  EXPECT_LE(back.messages.size(), written + 1);
  for (std::size_t i = 0; i < back.messages.size(); ++i) {
    EXPECT_EQ(back.messages[i].sequence, i);
    EXPECT_EQ(back.messages[i].data, payload);
  }
}

TEST(McapWriter, SinkFailingAtTheHeader) {
  MemorySink sink(4);
  McapWriter w(sink);
  EXPECT_FALSE(w.ok());
  EXPECT_NE(w.error().find("memory sink full"), std::string::npos) << w.error();
  EXPECT_EQ(w.AddChannel(0, "/x", "json"), 0);
  EXPECT_FALSE(w.Close());
}

TEST(McapWriter, DestructorCloses) {
  MemorySink sink;
  {
    McapWriter w(sink);
    w.Write(w.AddChannel(0, "/x", "json"), 0, 5, 5, ToBytes("x"));
  }
  const test::ReadBack back = ReadAll(sink.bytes());
  EXPECT_EQ(back.status, McapReader::Status::kComplete) << back.error;
  EXPECT_EQ(back.messages.size(), 1u);
}

TEST(McapWriter, IncompressibleChunkIsStoredUncompressed) {
  McapWriterOptions o;
  o.compression = Compression::kLz4;  // no entropy coding: random bytes only grow
  MemorySink sink;
  McapWriter w(sink, o);
  const std::uint16_t ch = w.AddChannel(0, "/x", "json");
  std::vector<std::uint8_t> noise(256);
  std::uint32_t x = 12345;
  for (auto& b : noise) b = static_cast<std::uint8_t>((x = x * 1103515245u + 12345u) >> 24);
  ASSERT_TRUE(w.Write(ch, 0, 1, 1, noise));
  ASSERT_TRUE(w.Close());
  const std::vector<std::string> records = RecordsHex(sink.bytes());
  ASSERT_GE(records.size(), 3u);
  // Chunk prefix (9) + times (16) + size (8) + CRC (4), then the compression string: "" (0).
  EXPECT_EQ(records[2].substr(0, 2), "06");
  EXPECT_EQ(records[2].substr(2 * 37, 8), "00000000");
  EXPECT_EQ(ReadAll(sink.bytes()).messages.size(), 1u);
}

}  // namespace
}  // namespace robot_edge::recorder
