#include "recorder/mcap_decode.hpp"

namespace robot_edge::recorder::mcap {

template <typename T>
bool ByteCursor::Int(T* v) {
  if (remaining() < sizeof(T)) return false;
  T x = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) x |= static_cast<T>(T{bytes_[pos_ + i]} << (8 * i));
  *v = x;
  pos_ += sizeof(T);
  return true;
}

bool ByteCursor::Take(std::uint64_t n, std::span<const std::uint8_t>* out) {
  if (n > remaining()) return false;
  *out = bytes_.subspan(pos_, static_cast<std::size_t>(n));
  pos_ += static_cast<std::size_t>(n);
  return true;
}

bool ByteCursor::Prefixed32(std::span<const std::uint8_t>* out) {
  const std::size_t start = pos_;
  std::uint32_t n = 0;
  if (U32(&n) && Take(n, out)) return true;
  pos_ = start;
  return false;
}

bool ByteCursor::Prefixed64(std::span<const std::uint8_t>* out) {
  const std::size_t start = pos_;
  std::uint64_t n = 0;
  if (U64(&n) && Take(n, out)) return true;
  pos_ = start;
  return false;
}

bool ByteCursor::String(std::string_view* out) {
  std::span<const std::uint8_t> bytes;
  if (!Prefixed32(&bytes)) return false;
  *out = std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return true;
}

std::span<const std::uint8_t> ByteCursor::Rest() {
  std::span<const std::uint8_t> rest = bytes_.subspan(pos_);
  pos_ = bytes_.size();
  return rest;
}

RecordRead ReadRecord(std::span<const std::uint8_t> bytes, std::uint64_t offset, RecordView* out) {
  if (offset >= bytes.size())
    return offset == bytes.size() ? RecordRead::kEnd : RecordRead::kTruncated;
  ByteCursor c(bytes.subspan(static_cast<std::size_t>(offset)));
  std::uint64_t length = 0;
  if (!c.U8(&out->opcode) || !c.U64(&length) || !c.Take(length, &out->content)) {
    return RecordRead::kTruncated;
  }
  return RecordRead::kOk;
}

namespace {

bool Str(ByteCursor& c, std::string* out) {
  std::string_view s;
  if (!c.String(&s)) return false;
  out->assign(s);
  return true;
}

// Map<string, string>: uint32 byte length, then key/value pairs filling exactly that length.
bool StrMap(ByteCursor& c, StringMap* out) {
  std::span<const std::uint8_t> entries;
  if (!c.Prefixed32(&entries)) return false;
  ByteCursor m(entries);
  out->clear();
  while (m.remaining() > 0) {
    std::string key;
    std::string value;
    if (!Str(m, &key) || !Str(m, &value)) return false;
    (*out)[std::move(key)] = std::move(value);
  }
  return true;
}

// Map<uint16, uint64>: uint32 byte length, a multiple of 10.
bool IdMap(ByteCursor& c, std::vector<std::pair<std::uint16_t, std::uint64_t>>* out) {
  std::span<const std::uint8_t> entries;
  if (!c.Prefixed32(&entries) || entries.size() % 10 != 0) return false;
  ByteCursor m(entries);
  out->clear();
  while (m.remaining() > 0) {
    std::pair<std::uint16_t, std::uint64_t> e;
    m.U16(&e.first);
    m.U64(&e.second);
    out->push_back(e);
  }
  return true;
}

}  // namespace

bool ParseHeader(std::span<const std::uint8_t> content, Header* out) {
  ByteCursor c(content);
  return Str(c, &out->profile) && Str(c, &out->library);
}

bool ParseFooter(std::span<const std::uint8_t> content, Footer* out) {
  ByteCursor c(content);
  return c.U64(&out->summary_start) && c.U64(&out->summary_offset_start) &&
         c.U32(&out->summary_crc);
}

bool ParseSchema(std::span<const std::uint8_t> content, Schema* out) {
  ByteCursor c(content);
  std::span<const std::uint8_t> data;
  if (!c.U16(&out->id) || !Str(c, &out->name) || !Str(c, &out->encoding) || !c.Prefixed32(&data)) {
    return false;
  }
  out->data.assign(data.begin(), data.end());
  return true;
}

bool ParseChannel(std::span<const std::uint8_t> content, Channel* out) {
  ByteCursor c(content);
  return c.U16(&out->id) && c.U16(&out->schema_id) && Str(c, &out->topic) &&
         Str(c, &out->message_encoding) && StrMap(c, &out->metadata);
}

bool ParseMessage(std::span<const std::uint8_t> content, MessageView* out) {
  ByteCursor c(content);
  if (!c.U16(&out->channel_id) || !c.U32(&out->sequence) || !c.U64(&out->log_time_ns) ||
      !c.U64(&out->publish_time_ns)) {
    return false;
  }
  out->data = c.Rest();  // a Message's data is the rest of the record
  return true;
}

bool ParseChunk(std::span<const std::uint8_t> content, ChunkView* out) {
  ByteCursor c(content);
  return c.U64(&out->message_start_time_ns) && c.U64(&out->message_end_time_ns) &&
         c.U64(&out->uncompressed_size) && c.U32(&out->uncompressed_crc) &&
         c.String(&out->compression) && c.Prefixed64(&out->records);
}

bool ParseMessageIndex(std::span<const std::uint8_t> content, std::uint16_t* channel_id,
                       std::vector<MessageIndexEntry>* entries) {
  ByteCursor c(content);
  std::span<const std::uint8_t> array;
  if (!c.U16(channel_id) || !c.Prefixed32(&array) || array.size() % 16 != 0) return false;
  ByteCursor a(array);
  entries->clear();
  while (a.remaining() > 0) {
    MessageIndexEntry e;
    a.U64(&e.log_time_ns);
    a.U64(&e.offset);
    entries->push_back(e);
  }
  return true;
}

bool ParseChunkIndex(std::span<const std::uint8_t> content, ChunkIndex* out) {
  ByteCursor c(content);
  return c.U64(&out->message_start_time_ns) && c.U64(&out->message_end_time_ns) &&
         c.U64(&out->chunk_start_offset) && c.U64(&out->chunk_length) &&
         IdMap(c, &out->message_index_offsets) && c.U64(&out->message_index_length) &&
         Str(c, &out->compression) && c.U64(&out->compressed_size) &&
         c.U64(&out->uncompressed_size);
}

bool ParseStatistics(std::span<const std::uint8_t> content, Statistics* out) {
  ByteCursor c(content);
  return c.U64(&out->message_count) && c.U16(&out->schema_count) && c.U32(&out->channel_count) &&
         c.U32(&out->attachment_count) && c.U32(&out->metadata_count) && c.U32(&out->chunk_count) &&
         c.U64(&out->message_start_time_ns) && c.U64(&out->message_end_time_ns) &&
         IdMap(c, &out->channel_message_counts);
}

bool ParseMetadata(std::span<const std::uint8_t> content, Metadata* out) {
  ByteCursor c(content);
  return Str(c, &out->name) && StrMap(c, &out->metadata);
}

bool ParseMetadataIndex(std::span<const std::uint8_t> content, MetadataIndex* out) {
  ByteCursor c(content);
  return c.U64(&out->offset) && c.U64(&out->length) && Str(c, &out->name);
}

bool ParseSummaryOffset(std::span<const std::uint8_t> content, SummaryOffset* out) {
  ByteCursor c(content);
  std::uint8_t op = 0;
  if (!c.U8(&op) || !c.U64(&out->group_start) || !c.U64(&out->group_length)) return false;
  out->group_opcode = static_cast<Opcode>(op);
  return true;
}

bool ParseDataEnd(std::span<const std::uint8_t> content, std::uint32_t* data_section_crc) {
  ByteCursor c(content);
  return c.U32(data_section_crc);
}

}  // namespace robot_edge::recorder::mcap
