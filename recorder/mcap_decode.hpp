// MCAP record decoders: the inverse of mcap_encode.hpp. Each Parse* takes one record's *content*
// (after the opcode and length) and returns false when a field runs past its end or a length
// prefix is inconsistent; it never reads outside `content`. Fields after the known ones are
// ignored, as the spec asks ("Records may be extended by adding new fields at the end").
// Strings and spans in the results point into `content`, except in the owning structs (Header,
// Schema, Channel, Metadata, ChunkIndex, ...), which copy.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "recorder/mcap_format.hpp"

namespace robot_edge::recorder::mcap {

// Bounds-checked little-endian reads over a byte span. A failed read leaves the cursor as it was.
class ByteCursor {
 public:
  explicit ByteCursor(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

  bool U8(std::uint8_t* v) { return Int(v); }
  bool U16(std::uint16_t* v) { return Int(v); }
  bool U32(std::uint32_t* v) { return Int(v); }
  bool U64(std::uint64_t* v) { return Int(v); }
  bool Take(std::uint64_t n, std::span<const std::uint8_t>* out);
  bool String(std::string_view* out);                   // uint32 length + bytes
  bool Prefixed32(std::span<const std::uint8_t>* out);  // uint32 length + bytes
  bool Prefixed64(std::span<const std::uint8_t>* out);  // uint64 length + bytes
  std::span<const std::uint8_t> Rest();                 // everything left

  std::size_t position() const { return pos_; }
  std::size_t remaining() const { return bytes_.size() - pos_; }

 private:
  template <typename T>
  bool Int(T* v);

  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

// One record as found in a byte stream: `content` excludes the 9-byte prefix.
struct RecordView {
  std::uint8_t opcode = 0;
  std::span<const std::uint8_t> content;
};

enum class RecordRead {
  kOk,         // *out holds the record at `offset`; the next one starts at offset + 9 + length
  kEnd,        // offset == bytes.size()
  kTruncated,  // fewer bytes left than the prefix or the length it announces
};
RecordRead ReadRecord(std::span<const std::uint8_t> bytes, std::uint64_t offset, RecordView* out);

bool ParseHeader(std::span<const std::uint8_t> content, Header* out);
bool ParseFooter(std::span<const std::uint8_t> content, Footer* out);
bool ParseSchema(std::span<const std::uint8_t> content, Schema* out);
bool ParseChannel(std::span<const std::uint8_t> content, Channel* out);
bool ParseMessage(std::span<const std::uint8_t> content, MessageView* out);
bool ParseChunk(std::span<const std::uint8_t> content, ChunkView* out);
bool ParseMessageIndex(std::span<const std::uint8_t> content, std::uint16_t* channel_id,
                       std::vector<MessageIndexEntry>* entries);
bool ParseChunkIndex(std::span<const std::uint8_t> content, ChunkIndex* out);
bool ParseStatistics(std::span<const std::uint8_t> content, Statistics* out);
bool ParseMetadata(std::span<const std::uint8_t> content, Metadata* out);
bool ParseMetadataIndex(std::span<const std::uint8_t> content, MetadataIndex* out);
bool ParseSummaryOffset(std::span<const std::uint8_t> content, SummaryOffset* out);
bool ParseDataEnd(std::span<const std::uint8_t> content, std::uint32_t* data_section_crc);

}  // namespace robot_edge::recorder::mcap
