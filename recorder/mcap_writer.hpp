// McapWriter: records timestamped messages into an MCAP file (https://mcap.dev/spec) through a
// ByteSink. The file it makes:
//
//   Magic Header [Schema|Channel|Metadata|Chunk MessageIndex...]... DataEnd
//   Schema... Channel... Statistics ChunkIndex... MetadataIndex... SummaryOffset... Footer Magic
//
// Schema, Channel and Metadata records go to the sink when added; messages are buffered into a
// chunk of `chunk_size` uncompressed bytes, which is compressed and written, followed by one
// Message Index record per channel, when full (or on Flush/Close). Close() writes the summary,
// which lets Foxglove and the `mcap` CLI seek by time. A file cut short (power loss) keeps every
// chunk written before the cut: McapReader reads them back.
//
// Threads: one thread owns a writer and its sink (the recorder thread). Nothing here blocks
// except the sink's Write.
//
// Real-time contract: Write() allocates nothing and throws nothing in steady state. It appends
// to buffers reserved here; they grow (and stay grown) only when a chunk holds more messages on a
// channel than any chunk before, a message is larger than the chunk room left, or the file passes
// `reserved_chunks` chunks. A Write that closes a chunk compresses it and hands it to the sink:
// that one call takes longer (zstd level 3: ~6 ms per MiB of joint states on the 2-core dev
// machine; amortised, a 1.1 KB message costs ~5.7 us with zstd 3, ~1.5 us with lz4, ~1.1 us
// uncompressed: bench_mcap).
//
// Errors: no method throws. Calls that fail return false (or id 0) and error() says why. After
// the sink fails, or after Close(), every call fails: the file keeps what was written before.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "recorder/byte_sink.hpp"
#include "recorder/compression.hpp"
#include "recorder/mcap_format.hpp"

namespace robot_edge::recorder {

struct McapWriterOptions {
  std::string profile;                           // Header.profile ("" = no well-known profile)
  std::string library = "robot-edge recorder";   // Header.library
  std::uint64_t chunk_size = 1024 * 1024;        // uncompressed bytes after which a chunk closes
  Compression compression = Compression::kZstd;  // of each chunk's records
  int zstd_level = 3;                            // 1..19 (negative: faster, larger)
  int lz4_level = 0;  // 0 = LZ4 fast; 3..12 = LZ4-HC (slower, and mallocs per chunk)
  std::size_t reserved_chunks = 4096;  // Chunk Index room reserved up front
};

class McapWriter {
 public:
  // Writes the magic and the Header at once (a failing sink shows in error()). `sink` must
  // outlive the writer.
  McapWriter(ByteSink& sink, McapWriterOptions options = {});
  // Close()s the file if the owner did not.
  ~McapWriter();
  McapWriter(const McapWriter&) = delete;
  McapWriter& operator=(const McapWriter&) = delete;

  // Registers a schema; returns its id (1, 2, ...), or 0 on failure. Written to the data section
  // now and to the summary on Close(). `encoding`: "protobuf" (`data` = a serialized
  // google.protobuf.FileDescriptorSet, `name` = the full message name), "jsonschema", or "".
  std::uint16_t AddSchema(std::string_view name, std::string_view encoding,
                          std::span<const std::uint8_t> data);
  // Registers a channel on `schema_id` (0 = none, else an id AddSchema returned); returns its id
  // (1, 2, ...), or 0 on failure. `message_encoding`: "protobuf", "json", ...
  std::uint16_t AddChannel(std::uint16_t schema_id, std::string_view topic,
                           std::string_view message_encoding, const mcap::StringMap& metadata = {});
  // Writes a Metadata record now (e.g. name "robot" with the robot's name, the daemon's version,
  // the config digest); indexed in the summary.
  bool AddMetadata(std::string_view name, const mcap::StringMap& metadata);

  // Records one message on `channel_id` (from AddChannel). Times in ns since the Unix epoch (or
  // any epoch the file's readers agree on); publish = log when unknown. `data` is copied.
  // True: the message is in the open chunk (or the sink). False for an unknown channel (nothing
  // written; the writer stays usable) or a failed sink: then this message and the others of its
  // chunk are in the file only if their whole Chunk record reached the sink before the failure.
  bool Write(std::uint16_t channel_id, std::uint32_t sequence, std::uint64_t log_time_ns,
             std::uint64_t publish_time_ns, std::span<const std::uint8_t> data);

  // Closes the current chunk now, so that every message so far is in the sink (then
  // FileSink::Sync() makes them survive a power loss).
  bool Flush();
  // Writes the last chunk, Data End, the summary, Summary Offsets, the Footer and the closing
  // magic. Idempotent; true when the whole file reached the sink.
  bool Close();

  bool ok() const { return !failed_; }
  const std::string& error() const { return error_; }
  // For the caller's rotation decisions:
  std::uint64_t bytes_written() const { return bytes_written_; }  // handed to the sink
  std::uint64_t buffered_bytes() const { return chunk_.size(); }  // open chunk, uncompressed
  std::uint64_t message_count() const { return message_count_; }
  std::uint32_t chunk_count() const { return chunk_count_; }
  // Earliest and latest log_time written (first and last for a monotonic clock); 0 before any.
  std::uint64_t first_log_time_ns() const { return message_count_ ? min_log_time_ns_ : 0; }
  std::uint64_t last_log_time_ns() const { return max_log_time_ns_; }

 private:
  struct ChannelState {
    std::uint64_t message_count = 0;
    std::vector<mcap::MessageIndexEntry> index;  // of the open chunk
  };

  bool Usable(const char* call);
  bool Fail(std::string error);
  std::uint16_t FailId(std::string error);
  bool Emit(std::span<const std::uint8_t> bytes);
  bool FlushChunk();
  bool EmitMessageIndexes(std::uint64_t chunk_start, std::uint64_t chunk_length,
                          std::string_view compression, std::uint64_t compressed_size);
  std::vector<std::uint8_t> Summary(std::uint64_t summary_start) const;
  mcap::Statistics MakeStatistics() const;

  ByteSink& sink_;
  McapWriterOptions options_;
  ChunkCompressor compressor_;

  // The open chunk: uncompressed Message records and their time range.
  std::vector<std::uint8_t> chunk_;
  std::uint64_t chunk_start_ns_ = UINT64_MAX;
  std::uint64_t chunk_end_ns_ = 0;

  std::vector<ChannelState> channels_;  // [id - 1]
  std::uint16_t schema_count_ = 0;
  std::vector<std::uint8_t> schema_records_;  // the summary's copies
  std::vector<std::uint8_t> channel_records_;
  std::vector<std::uint8_t> chunk_indexes_;  // Chunk Index records
  std::vector<std::uint8_t> metadata_indexes_;
  std::uint32_t metadata_count_ = 0;
  mcap::ChunkIndex chunk_index_;       // reused for each chunk
  std::vector<std::uint8_t> scratch_;  // chunk prefix, message indexes

  std::uint64_t bytes_written_ = 0;
  std::uint32_t crc_ = 0;  // of every byte written (Data End uses it: the data section's CRC)
  std::uint64_t message_count_ = 0;
  std::uint32_t chunk_count_ = 0;
  std::uint64_t min_log_time_ns_ = UINT64_MAX;
  std::uint64_t max_log_time_ns_ = 0;
  bool failed_ = false;
  bool closed_ = false;
  std::string error_;
};

}  // namespace robot_edge::recorder
