// Writer -> reader round trips for each compression: several schemas and channels, many chunks,
// empty messages, messages larger than a chunk, a file without messages. Every file's summary is
// checked against its data section (index_check.hpp).
#include <gtest/gtest.h>

#include <cstdio>

#include "index_check.hpp"
#include "recorder/mcap_writer.hpp"
#include "test_util.hpp"

namespace robot_edge::recorder {
namespace {

using test::Message;
using test::ReadAll;
using test::ReadBack;
using test::ToBytes;

// A deterministic payload: `size` bytes, a function of the message's sequence number.
std::vector<std::uint8_t> Payload(std::uint32_t sequence, std::size_t size) {
  std::vector<std::uint8_t> p(size);
  for (std::size_t i = 0; i < size; ++i) p[i] = static_cast<std::uint8_t>(sequence * 7 + i / 3);
  return p;
}

class RoundTrip : public ::testing::TestWithParam<Compression> {
 protected:
  McapWriterOptions Options(std::uint64_t chunk_size) const {
    McapWriterOptions o;
    o.compression = GetParam();
    o.chunk_size = chunk_size;
    o.profile = "";
    return o;
  }
  // Reads `file` back and checks its summary; returns what was read.
  static ReadBack Check(const std::vector<std::uint8_t>& file, test::IndexFacts* facts) {
    const ReadBack back = ReadAll(file);
    EXPECT_EQ(back.status, McapReader::Status::kComplete) << back.error;
    EXPECT_EQ(test::CheckIndex(file, facts), "");
    return back;
  }
};

TEST_P(RoundTrip, ChannelsSchemasManyChunks) {
  MemorySink sink;
  std::vector<Message> sent;
  {
    McapWriter w(sink, Options(4096));
    const std::uint16_t s1 = w.AddSchema("robot_edge.JointState", "protobuf", ToBytes("fds"));
    const std::uint16_t s2 = w.AddSchema("Imu", "jsonschema", ToBytes("{\"type\":\"object\"}"));
    ASSERT_TRUE(w.AddMetadata("robot", {{"name", "h1"}, {"daemon", "0.1.0"}}));
    const std::uint16_t joints = w.AddChannel(s1, "/joints", "protobuf", {{"rate_hz", "500"}});
    const std::uint16_t imu = w.AddChannel(s2, "/imu", "json");
    const std::uint16_t log = w.AddChannel(0, "/log", "json");
    ASSERT_EQ(std::vector<std::uint16_t>({joints, imu, log}),
              std::vector<std::uint16_t>({1, 2, 3}));
    for (std::uint32_t i = 0; i < 3000; ++i) {
      const std::uint16_t ch = i % 3 == 0 ? joints : i % 3 == 1 ? imu : log;
      const std::uint64_t t = 1'700'000'000'000'000'000ull + i * 2'000'000ull;
      Message m{ch, i, t, t - 1000, Payload(i, i % 3 == 2 ? i % 17 : 100 + i % 50)};
      ASSERT_TRUE(w.Write(m.channel_id, m.sequence, m.log_time_ns, m.publish_time_ns, m.data));
      sent.push_back(std::move(m));
      if (i == 1500) {
        ASSERT_TRUE(w.AddMetadata("marker", {{"at", "1500"}}));
      }
    }
    EXPECT_GT(w.chunk_count(), 50u);
    ASSERT_TRUE(w.Close());
  }
  test::IndexFacts facts;
  const ReadBack back = Check(sink.bytes(), &facts);
  EXPECT_EQ(back.messages, sent);
  ASSERT_EQ(back.schemas.size(), 2u);
  EXPECT_EQ(back.schemas[0].name, "robot_edge.JointState");
  EXPECT_EQ(back.schemas[1].data, ToBytes("{\"type\":\"object\"}"));
  ASSERT_EQ(back.channels.size(), 3u);
  EXPECT_EQ(back.channels[0].metadata, (mcap::StringMap{{"rate_hz", "500"}}));
  EXPECT_EQ(back.channels[1].schema_id, 2);
  EXPECT_EQ(back.channels[2].schema_id, 0);
  ASSERT_EQ(back.metadata.size(), 2u);
  EXPECT_EQ(back.metadata[0].metadata.at("daemon"), "0.1.0");
  EXPECT_EQ(facts.statistics.message_count, 3000u);
  EXPECT_EQ(
      facts.statistics.channel_message_counts,
      (std::vector<std::pair<std::uint16_t, std::uint64_t>>{{1, 1000}, {2, 1000}, {3, 1000}}));
  EXPECT_EQ(facts.statistics.chunk_count, facts.chunk_indexes);
  EXPECT_EQ(facts.statistics.metadata_count, 2u);
  EXPECT_EQ(facts.statistics.message_start_time_ns, sent.front().log_time_ns);
  EXPECT_EQ(facts.statistics.message_end_time_ns, sent.back().log_time_ns);
  EXPECT_EQ(facts.indexed_messages, 3000u);
  EXPECT_EQ(facts.schemas, 2u);
  EXPECT_EQ(facts.channels, 3u);
  EXPECT_EQ(facts.metadata_indexes, 2u);
}

TEST_P(RoundTrip, NoMessages) {
  MemorySink sink;
  McapWriter w(sink, Options(1024));
  w.AddChannel(w.AddSchema("S", "jsonschema", ToBytes("{}")), "/quiet", "json");
  ASSERT_TRUE(w.Close());
  test::IndexFacts facts;
  const ReadBack back = Check(sink.bytes(), &facts);
  EXPECT_TRUE(back.messages.empty());
  EXPECT_EQ(back.channels.size(), 1u);
  EXPECT_EQ(facts.chunk_indexes, 0u);
  EXPECT_EQ(facts.statistics.message_count, 0u);
  EXPECT_EQ(facts.statistics.message_start_time_ns, 0u);
  EXPECT_TRUE(facts.statistics.channel_message_counts.empty());
}

TEST_P(RoundTrip, NothingAtAll) {
  MemorySink sink;
  McapWriter w(sink, Options(1024));
  ASSERT_TRUE(w.Close());
  test::IndexFacts facts;
  const ReadBack back = Check(sink.bytes(), &facts);
  EXPECT_TRUE(back.messages.empty() && back.channels.empty() && back.schemas.empty());
}

TEST_P(RoundTrip, EmptyAndLargeMessages) {
  MemorySink sink;
  std::vector<Message> sent;
  McapWriter w(sink, Options(1000));
  const std::uint16_t ch = w.AddChannel(0, "/blob", "json");
  const std::size_t sizes[] = {0, 0, 5000, 0, 1, 999, 1000, 1001, 64 * 1024, 0, 3, 250000};
  std::uint32_t seq = 0;
  for (std::size_t size : sizes) {
    Message m{ch, seq, 1000 + seq, 1000 + seq, Payload(seq, size)};
    ++seq;
    ASSERT_TRUE(w.Write(m.channel_id, m.sequence, m.log_time_ns, m.publish_time_ns, m.data));
    sent.push_back(std::move(m));
  }
  ASSERT_TRUE(w.Close());
  test::IndexFacts facts;
  EXPECT_EQ(Check(sink.bytes(), &facts).messages, sent);
  EXPECT_EQ(facts.indexed_messages, sent.size());
}

TEST_P(RoundTrip, OneMessagePerChunk) {
  MemorySink sink;
  McapWriter w(sink, Options(0));  // chunk_size 0: every Write closes its chunk
  const std::uint16_t ch = w.AddChannel(0, "/x", "json");
  for (std::uint32_t i = 0; i < 20; ++i) ASSERT_TRUE(w.Write(ch, i, i, i, Payload(i, 10)));
  EXPECT_EQ(w.chunk_count(), 20u);
  ASSERT_TRUE(w.Close());
  test::IndexFacts facts;
  EXPECT_EQ(Check(sink.bytes(), &facts).messages.size(), 20u);
  EXPECT_EQ(facts.chunk_indexes, 20u);
}

TEST_P(RoundTrip, ThroughAFile) {
  // One file per compression: CTest may run the three at once.
  const std::string path = ::testing::TempDir() + "recorder_roundtrip_" +
                           std::to_string(static_cast<int>(GetParam())) + ".mcap";
  FileSink sink;
  ASSERT_TRUE(sink.Open(path)) << sink.error();
  {
    McapWriter w(sink, Options(2048));
    const std::uint16_t ch = w.AddChannel(0, "/x", "json");
    for (std::uint32_t i = 0; i < 500; ++i) ASSERT_TRUE(w.Write(ch, i, i, i, Payload(i, 40)));
    ASSERT_TRUE(w.Close());
    EXPECT_EQ(sink.bytes_written(), w.bytes_written());
  }
  ASSERT_TRUE(sink.Sync()) << sink.error();
  ASSERT_TRUE(sink.Close()) << sink.error();
  std::vector<std::uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(ReadWholeFile(path, &bytes, &error)) << error;
  test::IndexFacts facts;
  const ReadBack back = Check(bytes, &facts);
  ASSERT_EQ(back.messages.size(), 500u);
  EXPECT_EQ(back.messages[499].data, Payload(499, 40));
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Compressions, RoundTrip,
                         ::testing::Values(Compression::kNone, Compression::kZstd,
                                           Compression::kLz4),
                         [](const ::testing::TestParamInfo<Compression>& p) {
                           const std::string_view name = CompressionName(p.param);
                           return name.empty() ? std::string("none") : std::string(name);
                         });

}  // namespace
}  // namespace robot_edge::recorder
