// The MCAP file format (https://mcap.dev/spec, major version 0): opcodes, magic and the records
// robot-edge reads and writes, as plain values. Layouts are in mcap_encode.hpp / mcap_decode.hpp.
//
// Serialization (spec "Serialization"): integers little-endian; String = uint32 byte length +
// UTF-8; Bytes inside a record = the rest of the record or a uint32/uint64 length prefix as the
// field says; Map and Array = uint32 *byte* length of the entries, then the entries; Timestamp =
// uint64 nanoseconds since an epoch the user chooses (robot-edge: CLOCK_REALTIME).
// Every record is <opcode uint8><content length uint64><content>.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace robot_edge::recorder::mcap {

// "\x89MCAP0\r\n": starts and ends every file ('0' is the major version).
inline constexpr std::array<std::uint8_t, 8> kMagic = {0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'};

// Opcode + uint64 content length in front of every record's content.
inline constexpr std::size_t kRecordPrefixBytes = 9;

enum class Opcode : std::uint8_t {
  kHeader = 0x01,
  kFooter = 0x02,
  kSchema = 0x03,
  kChannel = 0x04,
  kMessage = 0x05,
  kChunk = 0x06,
  kMessageIndex = 0x07,
  kChunkIndex = 0x08,
  kAttachment = 0x09,
  kAttachmentIndex = 0x0A,
  kStatistics = 0x0B,
  kMetadata = 0x0C,
  kMetadataIndex = 0x0D,
  kSummaryOffset = 0x0E,
  kDataEnd = 0x0F,
};

// Map<string, string>: std::map keeps keys unique and sorted, so encoding is deterministic.
using StringMap = std::map<std::string, std::string>;

struct Header {
  std::string profile;  // "" or a well-known profile ("ros1", "ros2")
  std::string library;  // free-form: the writer's name and version
};

struct Schema {
  std::uint16_t id = 0;  // never 0 (a Schema with id 0 is ignored by readers)
  std::string name;      // e.g. the fully qualified protobuf message name
  std::string encoding;  // "protobuf", "jsonschema", ... or "" (no schema)
  std::vector<std::uint8_t> data;
};

struct Channel {
  std::uint16_t id = 0;
  std::uint16_t schema_id = 0;  // 0: no schema
  std::string topic;
  std::string message_encoding;  // "protobuf", "json", "cdr", ...
  StringMap metadata;
};

struct Metadata {
  std::string name;
  StringMap metadata;
};

// A Message record. `data` points into the buffer it was decoded from (or the caller's buffer when
// writing): it is valid only as long as that buffer.
struct MessageView {
  std::uint16_t channel_id = 0;
  std::uint32_t sequence = 0;
  std::uint64_t log_time_ns = 0;
  std::uint64_t publish_time_ns = 0;
  std::span<const std::uint8_t> data;
};

// A Chunk record; `records` (compressed as `compression` says) points into the decoded buffer.
struct ChunkView {
  std::uint64_t message_start_time_ns = 0;  // earliest log_time inside, 0 when no messages
  std::uint64_t message_end_time_ns = 0;    // latest log_time inside, 0 when no messages
  std::uint64_t uncompressed_size = 0;      // bytes of `records` once decompressed
  std::uint32_t uncompressed_crc = 0;       // CRC32 of the decompressed records; 0: not computed
  std::string_view compression;             // "", "zstd" or "lz4" (LZ4 frame format)
  std::span<const std::uint8_t> records;
};

// One entry of a Message Index: a message's log time and the offset of its record from the start
// of the chunk's *uncompressed* records.
struct MessageIndexEntry {
  std::uint64_t log_time_ns = 0;
  std::uint64_t offset = 0;
};

// A Chunk Index record: where a chunk and its Message Index records are in the file.
struct ChunkIndex {
  std::uint64_t message_start_time_ns = 0;
  std::uint64_t message_end_time_ns = 0;
  std::uint64_t chunk_start_offset = 0;  // file offset of the Chunk record's opcode
  std::uint64_t chunk_length = 0;        // whole Chunk record, opcode and length included
  // channel id -> file offset of that channel's Message Index record (sorted by channel id).
  std::vector<std::pair<std::uint16_t, std::uint64_t>> message_index_offsets;
  std::uint64_t message_index_length = 0;  // all Message Index records after the chunk
  std::string compression;
  std::uint64_t compressed_size = 0;  // the Chunk's `records` field as stored
  std::uint64_t uncompressed_size = 0;
};

struct Statistics {
  std::uint64_t message_count = 0;
  std::uint16_t schema_count = 0;
  std::uint32_t channel_count = 0;
  std::uint32_t attachment_count = 0;
  std::uint32_t metadata_count = 0;
  std::uint32_t chunk_count = 0;
  std::uint64_t message_start_time_ns = 0;  // 0 when no messages
  std::uint64_t message_end_time_ns = 0;
  // channel id -> messages on it (sorted by channel id; channels without messages left out).
  std::vector<std::pair<std::uint16_t, std::uint64_t>> channel_message_counts;
};

struct MetadataIndex {
  std::uint64_t offset = 0;  // file offset of the Metadata record's opcode
  std::uint64_t length = 0;  // whole record, opcode and length included
  std::string name;
};

struct SummaryOffset {
  Opcode group_opcode = Opcode::kSchema;
  std::uint64_t group_start = 0;   // file offset of the group's first record
  std::uint64_t group_length = 0;  // bytes of all records of the group
};

struct Footer {
  std::uint64_t summary_start = 0;         // 0: no summary section
  std::uint64_t summary_offset_start = 0;  // 0: no Summary Offset records
  // CRC32 of every byte from the summary section's start through summary_offset_start of this
  // record (its opcode and length included); 0: not computed.
  std::uint32_t summary_crc = 0;
};

}  // namespace robot_edge::recorder::mcap
