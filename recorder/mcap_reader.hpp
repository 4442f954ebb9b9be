// McapReader: reads an MCAP file front to back (the replay tool's reader). Pure: it works on the
// bytes of a whole file (ReadWholeFile in byte_sink.hpp loads one) and does no I/O.
//
// It checks the magic and the Header, then yields, in file order, the Schema, Channel, Metadata
// and Message records of the data section, chunks decompressed ("", "zstd", "lz4") and their CRC
// checked when not zero. It checks the data section CRC at Data End and the summary CRC at the
// Footer (when not zero); the summary's copies of Schemas and Channels are not yielded again.
//
// A file cut short (a recording interrupted by a power loss: no Data End, summary or Footer, or
// a zero-filled tail) yields every record that lies whole before the cut, then ends with status
// kTruncated. A chunk cut by the end of the file is dropped whole: its CRC cannot be checked.
// Anything malformed ends the read with kCorrupt, the records before it having been yielded.
// Errors name the file offset. Hostile input never makes it read out of bounds, and no chunk
// larger than `max_chunk_bytes` is decompressed.
//
// Threads: one thread uses a reader at a time.
#pragma once

#include <bitset>
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "recorder/compression.hpp"
#include "recorder/mcap_format.hpp"

namespace robot_edge::recorder {

struct McapReaderOptions {
  std::uint64_t max_chunk_bytes = 1ull << 30;  // uncompressed; a larger chunk is kCorrupt
};

// What Next() yields. A MessageView's data points into the file or into the reader's chunk
// buffer: valid until the next call to Next().
using McapRecord = std::variant<mcap::Schema, mcap::Channel, mcap::Metadata, mcap::MessageView>;

class McapReader {
 public:
  enum class Status {
    kReading,    // more records may follow
    kComplete,   // the Footer and closing magic were read, every CRC matched
    kTruncated,  // the file ends early (see error() for where)
    kCorrupt,    // malformed or a CRC mismatch (see error() for where and why)
  };

  // `file` must outlive the reader. Reads the magic and Header at once.
  explicit McapReader(std::span<const std::uint8_t> file, McapReaderOptions options = {});

  // The next Schema, Channel, Metadata or Message in file order; false at the end of the file or
  // on an error (status() tells which).
  bool Next(McapRecord* out);

  Status status() const { return status_; }
  const std::string& error() const { return error_; }
  const mcap::Header& header() const { return header_; }
  std::uint64_t message_count() const { return message_count_; }  // yielded so far

 private:
  enum class Step { kYield, kContinue };

  Step TopLevel(McapRecord* out);
  Step InChunk(McapRecord* out);
  Step Deliver(std::uint8_t opcode, std::span<const std::uint8_t> content, McapRecord* out);
  Step OpenChunk(std::span<const std::uint8_t> content);
  Step DataEnd(std::span<const std::uint8_t> content);
  Step Footer(std::span<const std::uint8_t> content);
  Step Truncated(std::string why);
  Step Corrupt(std::string why);
  std::string Where() const;

  std::span<const std::uint8_t> file_;
  McapReaderOptions options_;
  mcap::Header header_;
  Status status_ = Status::kReading;
  std::string error_;

  std::uint64_t pos_ = 0;            // next top-level record
  std::uint64_t record_offset_ = 0;  // of the top-level record being handled
  bool in_summary_ = false;          // after Data End
  std::uint32_t data_crc_ = 0;       // of the data section read so far
  std::uint64_t message_count_ = 0;

  ChunkDecompressor decompressor_;
  std::vector<std::uint8_t> chunk_buffer_;
  std::span<const std::uint8_t> chunk_;  // the open chunk's uncompressed records
  std::uint64_t chunk_pos_ = 0;          // next record inside it
  bool in_chunk_ = false;

  std::bitset<65536> schemas_;   // ids seen
  std::bitset<65536> channels_;  // ids seen
};

}  // namespace robot_edge::recorder
