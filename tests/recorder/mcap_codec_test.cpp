// Golden bytes for every record robot-edge writes, then the decoders on the same bytes. The
// expected hex comes from an independent encoder: @mcap/core 2.2.2's McapRecordBuilder (the
// TypeScript reference implementation), given the same values.
#include <gtest/gtest.h>

#include "recorder/mcap_decode.hpp"
#include "recorder/mcap_encode.hpp"
#include "test_util.hpp"

namespace robot_edge::recorder::mcap {
namespace {

using test::Hexify;
using test::ToBytes;

// The content of the one record in `bytes` (after its opcode and length), checking both.
std::span<const std::uint8_t> Content(const std::vector<std::uint8_t>& bytes, Opcode op) {
  RecordView r;
  EXPECT_EQ(ReadRecord(bytes, 0, &r), RecordRead::kOk);
  EXPECT_EQ(r.opcode, static_cast<std::uint8_t>(op));
  EXPECT_EQ(kRecordPrefixBytes + r.content.size(), bytes.size());
  return r.content;
}

TEST(McapCodec, Header) {
  Bytes out;
  AppendHeader(out, {"p", "lib"});
  // op 01, length 12, profile "p", library "lib"
  EXPECT_EQ(Hexify(out), "010c000000000000000100000070030000006c6962");
  Header h;
  ASSERT_TRUE(ParseHeader(Content(out, Opcode::kHeader), &h));
  EXPECT_EQ(h.profile, "p");
  EXPECT_EQ(h.library, "lib");
}

TEST(McapCodec, Schema) {
  Bytes out;
  AppendSchema(out, {1, "S", "jsonschema", ToBytes("{}")});
  // id 0001, name, encoding, data with a uint32 length prefix
  EXPECT_EQ(Hexify(out),
            "031b00000000000000010001000000530a0000006a736f6e736368656d61020000007b7d");
  Schema s;
  ASSERT_TRUE(ParseSchema(Content(out, Opcode::kSchema), &s));
  EXPECT_EQ(s.id, 1);
  EXPECT_EQ(s.name, "S");
  EXPECT_EQ(s.encoding, "jsonschema");
  EXPECT_EQ(s.data, ToBytes("{}"));
}

TEST(McapCodec, Channel) {
  Bytes out;
  AppendChannel(out, {2, 1, "/t", "json", {{"k", "v"}}});
  // id, schema_id, topic, message_encoding, map (byte length 10, then "k" "v")
  EXPECT_EQ(Hexify(out),
            "04200000000000000002000100020000002f74040000006a736f6e0a000000010000006b0100000076");
  Channel c;
  ASSERT_TRUE(ParseChannel(Content(out, Opcode::kChannel), &c));
  EXPECT_EQ(c.id, 2);
  EXPECT_EQ(c.schema_id, 1);
  EXPECT_EQ(c.topic, "/t");
  EXPECT_EQ(c.message_encoding, "json");
  EXPECT_EQ(c.metadata, (StringMap{{"k", "v"}}));
}

TEST(McapCodec, Message) {
  Bytes out;
  const std::uint8_t data[] = {0xaa, 0xbb};
  AppendMessage(out, {2, 7, 0x0102030405060708, 999, data});
  // channel, sequence, log_time, publish_time, then the data with no length prefix
  EXPECT_EQ(Hexify(out), "0518000000000000000200070000000807060504030201e703000000000000aabb");
  EXPECT_EQ(out.size(), MessageRecordBytes(2));
  MessageView m;
  ASSERT_TRUE(ParseMessage(Content(out, Opcode::kMessage), &m));
  EXPECT_EQ(m.channel_id, 2);
  EXPECT_EQ(m.sequence, 7u);
  EXPECT_EQ(m.log_time_ns, 0x0102030405060708u);
  EXPECT_EQ(m.publish_time_ns, 999u);
  EXPECT_EQ(Hexify(m.data), "aabb");
}

TEST(McapCodec, Chunk) {
  Bytes out;
  const std::uint8_t records[] = {1, 2};
  AppendChunk(out, {1000, 2000, 2, 0xcafebabe, "", records});
  // start, end, uncompressed size, crc, compression "", records with a uint64 length prefix
  EXPECT_EQ(Hexify(out),
            "062a00000000000000e803000000000000d0070000000000000200000000000000bebafeca0000000002"
            "000000000000000102");
  Bytes prefix;
  AppendChunkPrefix(prefix, {1000, 2000, 2, 0xcafebabe, "", records});
  EXPECT_EQ(Hexify(prefix) + "0102", Hexify(out));
  ChunkView c;
  ASSERT_TRUE(ParseChunk(Content(out, Opcode::kChunk), &c));
  EXPECT_EQ(c.message_start_time_ns, 1000u);
  EXPECT_EQ(c.message_end_time_ns, 2000u);
  EXPECT_EQ(c.uncompressed_size, 2u);
  EXPECT_EQ(c.uncompressed_crc, 0xcafebabeu);
  EXPECT_EQ(c.compression, "");
  EXPECT_EQ(Hexify(c.records), "0102");
}

TEST(McapCodec, MessageIndex) {
  Bytes out;
  const MessageIndexEntry entries[] = {{1000, 0}, {2000, 33}};
  AppendMessageIndex(out, 2, entries);
  // channel, array byte length 32, (log_time, offset) pairs
  EXPECT_EQ(Hexify(out),
            "072600000000000000020020000000e8030000000000000000000000000000d007000000000000210000"
            "0000000000");
  EXPECT_EQ(out.size(), MessageIndexRecordBytes(2));
  std::uint16_t channel = 0;
  std::vector<MessageIndexEntry> parsed;
  ASSERT_TRUE(ParseMessageIndex(Content(out, Opcode::kMessageIndex), &channel, &parsed));
  EXPECT_EQ(channel, 2);
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[1].log_time_ns, 2000u);
  EXPECT_EQ(parsed[1].offset, 33u);
}

TEST(McapCodec, ChunkIndex) {
  Bytes out;
  const ChunkIndex index{1000, 2000, 100, 200, {{1, 300}, {2, 326}}, 52, "zstd", 66, 99};
  AppendChunkIndex(out, index);
  EXPECT_EQ(Hexify(out),
            "085800000000000000e803000000000000d0070000000000006400000000000000c80000000000000014"
            "00000001002c01000000000000020046010000000000003400000000000000040000007a737464420000"
            "00000000006300000000000000");
  ChunkIndex p;
  ASSERT_TRUE(ParseChunkIndex(Content(out, Opcode::kChunkIndex), &p));
  EXPECT_EQ(p.chunk_start_offset, 100u);
  EXPECT_EQ(p.chunk_length, 200u);
  EXPECT_EQ(p.message_index_offsets, index.message_index_offsets);
  EXPECT_EQ(p.message_index_length, 52u);
  EXPECT_EQ(p.compression, "zstd");
  EXPECT_EQ(p.compressed_size, 66u);
  EXPECT_EQ(p.uncompressed_size, 99u);
}

TEST(McapCodec, Statistics) {
  Bytes out;
  Statistics s{3, 1, 2, 0, 1, 1, 1000, 2000, {{1, 1}, {2, 2}}};
  AppendStatistics(out, s);
  EXPECT_EQ(Hexify(out),
            "0b42000000000000000300000000000000010002000000000000000100000001000000e8030000000000"
            "00d007000000000000140000000100010000000000000002000200000000000000");
  Statistics p;
  ASSERT_TRUE(ParseStatistics(Content(out, Opcode::kStatistics), &p));
  EXPECT_EQ(p.message_count, 3u);
  EXPECT_EQ(p.channel_count, 2u);
  EXPECT_EQ(p.chunk_count, 1u);
  EXPECT_EQ(p.message_end_time_ns, 2000u);
  EXPECT_EQ(p.channel_message_counts, s.channel_message_counts);
}

TEST(McapCodec, Metadata) {
  Bytes out;
  AppendMetadata(out, {"robot", {{"name", "h1"}, {"version", "0.1"}}});
  EXPECT_EQ(Hexify(out),
            "0c2d0000000000000005000000726f626f7420000000040000006e616d650200000068310700000076"
            "657273696f6e03000000302e31");
  Metadata m;
  ASSERT_TRUE(ParseMetadata(Content(out, Opcode::kMetadata), &m));
  EXPECT_EQ(m.name, "robot");
  EXPECT_EQ(m.metadata, (StringMap{{"name", "h1"}, {"version", "0.1"}}));
}

TEST(McapCodec, MetadataIndex) {
  Bytes out;
  AppendMetadataIndex(out, {500, 40, "robot"});
  EXPECT_EQ(Hexify(out), "0d1900000000000000f401000000000000280000000000000005000000726f626f74");
  MetadataIndex m;
  ASSERT_TRUE(ParseMetadataIndex(Content(out, Opcode::kMetadataIndex), &m));
  EXPECT_EQ(m.offset, 500u);
  EXPECT_EQ(m.length, 40u);
  EXPECT_EQ(m.name, "robot");
}

TEST(McapCodec, SummaryOffset) {
  Bytes out;
  AppendSummaryOffset(out, {Opcode::kChunkIndex, 600, 30});
  EXPECT_EQ(Hexify(out), "0e11000000000000000858020000000000001e00000000000000");
  SummaryOffset s;
  ASSERT_TRUE(ParseSummaryOffset(Content(out, Opcode::kSummaryOffset), &s));
  EXPECT_EQ(s.group_opcode, Opcode::kChunkIndex);
  EXPECT_EQ(s.group_start, 600u);
  EXPECT_EQ(s.group_length, 30u);
}

TEST(McapCodec, DataEnd) {
  Bytes out;
  AppendDataEnd(out, 0x12345678);
  EXPECT_EQ(Hexify(out), "0f040000000000000078563412");
  std::uint32_t crc = 0;
  ASSERT_TRUE(ParseDataEnd(Content(out, Opcode::kDataEnd), &crc));
  EXPECT_EQ(crc, 0x12345678u);
}

TEST(McapCodec, FooterAndMagic) {
  Bytes out;
  AppendFooter(out, {600, 700, 0xdeadbeef});
  EXPECT_EQ(Hexify(out), "0214000000000000005802000000000000bc02000000000000efbeadde");
  Footer f;
  ASSERT_TRUE(ParseFooter(Content(out, Opcode::kFooter), &f));
  EXPECT_EQ(f.summary_start, 600u);
  EXPECT_EQ(f.summary_offset_start, 700u);
  EXPECT_EQ(f.summary_crc, 0xdeadbeefu);
  Bytes magic;
  AppendMagic(magic);
  EXPECT_EQ(Hexify(magic), "894d434150300d0a");
}

// Decoders never read past the content they are given: every proper prefix of a record's
// content either fails or (for records whose last field is "the rest") parses a shorter value.
TEST(McapCodec, DecodersRejectEveryCutOfTheirContent) {
  Bytes channel;
  AppendChannel(channel, {2, 1, "/t", "json", {{"k", "v"}}});
  const auto content = Content(channel, Opcode::kChannel);
  for (std::size_t n = 0; n < content.size(); ++n) {
    Channel c;
    EXPECT_FALSE(ParseChannel(content.first(n), &c)) << n;
  }
  Bytes chunk;
  const std::uint8_t records[] = {1, 2};
  AppendChunk(chunk, {1, 2, 2, 3, "lz4", records});
  const auto chunk_content = Content(chunk, Opcode::kChunk);
  for (std::size_t n = 0; n < chunk_content.size(); ++n) {
    ChunkView c;
    EXPECT_FALSE(ParseChunk(chunk_content.first(n), &c)) << n;
  }
}

TEST(McapCodec, ReadRecordReportsCuts) {
  Bytes out;
  AppendDataEnd(out, 1);
  RecordView r;
  EXPECT_EQ(ReadRecord(out, out.size(), &r), RecordRead::kEnd);
  for (std::size_t n = 1; n < out.size(); ++n) {
    EXPECT_EQ(ReadRecord(std::span(out).first(n), 0, &r), RecordRead::kTruncated) << n;
  }
  // A length that does not fit in the file (nor in size_t arithmetic) is a cut, not a crash.
  Bytes huge = {0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00};
  EXPECT_EQ(ReadRecord(huge, 0, &r), RecordRead::kTruncated);
}

}  // namespace
}  // namespace robot_edge::recorder::mcap
