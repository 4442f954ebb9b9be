// Fuzz target: the MCAP recorder library (recorder/).
//  (a) McapReader on the raw input: never a crash or an out-of-bounds read, whatever the bytes.
//  (b) Unless the input is an MCAP file, it is a writer program (FuzzedDataProvider): options
//      (compression, level, chunk size, sink capacity), schemas, channels, metadata, messages,
//      flushes and bad channel ids. The file written to memory must read back with our reader
//      exactly as written, with a summary that matches its data (tests/recorder/index_check), and
//      any cut of it must read as a truncated prefix of the same messages.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "index_check.hpp"
#include "recorder/mcap_reader.hpp"
#include "recorder/mcap_writer.hpp"
#include "test_util.hpp"

namespace {

using namespace robot_edge::recorder;
using Status = McapReader::Status;

void Check(bool ok, const char* what, const std::string& detail = "") {
  if (ok) return;
  std::fprintf(stderr, "fuzz_mcap: %s %s\n", what, detail.c_str());
  std::abort();
}

void ReadAnything(std::span<const std::uint8_t> bytes) {
  McapReaderOptions options;
  options.max_chunk_bytes = 1 << 20;  // fuzz inputs are small; keep RSS low
  McapReader reader(bytes, options);
  McapRecord record;
  std::uint32_t sum = 0;
  while (reader.Next(&record)) {
    if (auto* m = std::get_if<mcap::MessageView>(&record)) {
      for (std::uint8_t b : m->data) sum += b;  // touches every byte: ASan checks the bounds
    }
  }
  Check(reader.status() != Status::kReading, "reader stopped while reading");
  Check(reader.status() == Status::kComplete || !reader.error().empty(), "no error text");
  static volatile std::uint32_t sink = 0;
  sink = sink + sum;
}

std::string Str(FuzzedDataProvider& in, std::size_t max) {
  return in.ConsumeRandomLengthString(max);
}

void WriteProgram(FuzzedDataProvider& in) {
  McapWriterOptions o;
  o.compression = static_cast<Compression>(in.ConsumeIntegralInRange(0, 2));
  o.zstd_level = in.ConsumeIntegralInRange(-3, 5);
  o.lz4_level = in.ConsumeIntegralInRange(0, 3);
  o.chunk_size = in.ConsumeIntegralInRange<std::uint32_t>(0, 8192);
  o.reserved_chunks = in.ConsumeIntegralInRange<std::uint32_t>(0, 16);
  o.profile = Str(in, 8);
  const bool limited = in.ConsumeIntegralInRange(0, 3) == 0;
  MemorySink sink(limited ? in.ConsumeIntegralInRange<std::uint32_t>(0, 30000) : UINT64_MAX);
  std::vector<test::Message> sent;  // every message given to Write
  std::size_t written = 0;          // of which Write returned true
  std::size_t schemas = 0, channels = 0, metadata = 0;
  {
    McapWriter w(sink, o);
    const int schema_count = in.ConsumeIntegralInRange(0, 3);
    for (int i = 0; i < schema_count; ++i) {
      const std::string name = Str(in, 16), encoding = Str(in, 8), data = Str(in, 64);
      if (w.AddSchema(name, encoding, test::ToBytes(data)) != 0) ++schemas;
    }
    const int channel_count = in.ConsumeIntegralInRange(1, 6);
    for (int i = 0; i < channel_count; ++i) {
      const auto schema = in.ConsumeIntegralInRange<std::uint16_t>(0, schema_count);
      mcap::StringMap meta;
      for (int k = in.ConsumeIntegralInRange(0, 2); k > 0; --k) meta[Str(in, 8)] = Str(in, 8);
      const std::string topic = Str(in, 16), encoding = Str(in, 8);
      if (w.AddChannel(schema, topic, encoding, meta) != 0) ++channels;
    }
    while (in.remaining_bytes() > 0 && w.ok()) {
      const auto op = in.ConsumeIntegral<std::uint8_t>();
      if (op < 200 && channels > 0) {
        test::Message m;
        m.channel_id = static_cast<std::uint16_t>(op % channels + 1);
        m.sequence = in.ConsumeIntegral<std::uint32_t>();
        m.log_time_ns = in.ConsumeIntegral<std::uint64_t>();
        m.publish_time_ns = in.ConsumeIntegral<std::uint64_t>();
        m.data = in.ConsumeBytes<std::uint8_t>(in.ConsumeIntegralInRange(0, 700));
        // A Write that fails because the sink failed may still have put its message in the
        // file (its chunk reached the sink, the Message Index after it did not): kept in `sent`
        // but not counted as written.
        written += w.Write(m.channel_id, m.sequence, m.log_time_ns, m.publish_time_ns, m.data);
        sent.push_back(std::move(m));
      } else if (op < 215) {
        w.Flush();
      } else if (op < 230) {
        const std::string name = Str(in, 8), key = Str(in, 8), value = Str(in, 8);
        if (w.AddMetadata(name, {{key, value}})) ++metadata;
      } else {
        const std::uint16_t bad = op % 2 ? 0 : static_cast<std::uint16_t>(channels + 1 + op);
        Check(!w.Write(bad, 0, 0, 0, {}), "Write on an unknown channel succeeded");
        Check(w.ok(), "a bad channel id broke the writer");
      }
    }
    const bool closed = w.Close();
    Check(closed || limited, "Close failed on an unlimited sink", w.error());
    Check(closed == w.ok(), "Close and ok() disagree");
    Check(!closed || w.bytes_written() == sink.bytes().size(), "bytes_written");
  }
  const std::vector<std::uint8_t>& file = sink.bytes();
  const test::ReadBack back = test::ReadAll(file);
  const bool complete = back.status == Status::kComplete;
  if (complete) {
    Check(written == sent.size() && back.messages == sent, "messages differ");
    Check(back.schemas.size() == schemas && back.channels.size() == channels &&
              back.metadata.size() == metadata,
          "schemas, channels or metadata differ");
    test::IndexFacts facts;
    const std::string index = test::CheckIndex(file, &facts);
    Check(index.empty(), "index:", index);
    Check(facts.statistics.message_count == sent.size(), "statistics");
  } else {
    Check(back.status == Status::kTruncated, "a failed sink left a corrupt file", back.error);
    Check(back.messages.size() <= sent.size() &&
              std::equal(back.messages.begin(), back.messages.end(), sent.begin()),
          "a failed sink's file yields other messages");
    Check(sent.size() <= written + 1, "Write went on after the sink failed");
  }
  if (file.size() > 0) {
    const std::size_t cut = (file.size() * 2654435761u + sent.size()) % file.size();
    const test::ReadBack part = test::ReadAll(std::span(file).first(cut));
    Check(part.status == Status::kTruncated, "a cut file is not truncated", part.error);
    Check(part.messages.size() <= back.messages.size() &&
              std::equal(part.messages.begin(), part.messages.end(), back.messages.begin()),
          "a cut file yields other messages");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  ReadAnything(bytes);
  const bool is_mcap =
      size >= mcap::kMagic.size() && std::equal(mcap::kMagic.begin(), mcap::kMagic.end(), data);
  if (!is_mcap) {
    FuzzedDataProvider in(data, size);
    WriteProgram(in);
  }
  return 0;
}
