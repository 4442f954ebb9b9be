#include "recorder/mcap_encode.hpp"

#include <array>

namespace robot_edge::recorder::mcap {
namespace {

template <typename T>
void Put(Bytes& out, T value) {
  std::array<std::uint8_t, sizeof(T)> le{};
  for (std::size_t i = 0; i < sizeof(T); ++i) le[i] = static_cast<std::uint8_t>(value >> (8 * i));
  out.insert(out.end(), le.begin(), le.end());
}

void PutBytes(Bytes& out, std::span<const std::uint8_t> bytes) {
  out.insert(out.end(), bytes.begin(), bytes.end());
}

void PutString(Bytes& out, std::string_view s) {
  Put<std::uint32_t>(out, static_cast<std::uint32_t>(s.size()));
  out.insert(out.end(), s.begin(), s.end());
}

std::uint64_t StringBytes(std::string_view s) { return 4 + s.size(); }

std::uint32_t MapBytes(const StringMap& map) {
  std::uint64_t n = 0;
  for (const auto& [key, value] : map) n += StringBytes(key) + StringBytes(value);
  return static_cast<std::uint32_t>(n);
}

// Map<string, string>: uint32 byte length of the entries, then key, value, key, value...
void PutMap(Bytes& out, const StringMap& map) {
  Put<std::uint32_t>(out, MapBytes(map));
  for (const auto& [key, value] : map) {
    PutString(out, key);
    PutString(out, value);
  }
}

// Map<uint16, uint64> / Array<Tuple<uint16, uint64>>: 10 bytes per entry.
void PutIdMap(Bytes& out, std::span<const std::pair<std::uint16_t, std::uint64_t>> entries) {
  Put<std::uint32_t>(out, static_cast<std::uint32_t>(10 * entries.size()));
  for (const auto& [id, value] : entries) {
    Put(out, id);
    Put(out, value);
  }
}

void PutPrefix(Bytes& out, Opcode op, std::uint64_t content_bytes) {
  Put(out, static_cast<std::uint8_t>(op));
  Put(out, content_bytes);
}

}  // namespace

void AppendMagic(Bytes& out) { out.insert(out.end(), kMagic.begin(), kMagic.end()); }

void AppendHeader(Bytes& out, const Header& header) {
  PutPrefix(out, Opcode::kHeader, StringBytes(header.profile) + StringBytes(header.library));
  PutString(out, header.profile);
  PutString(out, header.library);
}

void AppendFooter(Bytes& out, const Footer& footer) {
  PutPrefix(out, Opcode::kFooter, 8 + 8 + 4);
  Put(out, footer.summary_start);
  Put(out, footer.summary_offset_start);
  Put(out, footer.summary_crc);
}

void AppendSchema(Bytes& out, const Schema& schema) {
  PutPrefix(out, Opcode::kSchema,
            2 + StringBytes(schema.name) + StringBytes(schema.encoding) + 4 + schema.data.size());
  Put(out, schema.id);
  PutString(out, schema.name);
  PutString(out, schema.encoding);
  Put<std::uint32_t>(out, static_cast<std::uint32_t>(schema.data.size()));  // uint32-prefixed
  PutBytes(out, schema.data);
}

void AppendChannel(Bytes& out, const Channel& channel) {
  PutPrefix(out, Opcode::kChannel,
            2 + 2 + StringBytes(channel.topic) + StringBytes(channel.message_encoding) + 4 +
                MapBytes(channel.metadata));
  Put(out, channel.id);
  Put(out, channel.schema_id);
  PutString(out, channel.topic);
  PutString(out, channel.message_encoding);
  PutMap(out, channel.metadata);
}

void AppendMessage(Bytes& out, const MessageView& message) {
  // The fixed 31 bytes in one insert: this is the per-message hot path.
  Bytes::value_type fixed[31];
  const std::uint64_t content = MessageRecordBytes(message.data.size()) - kRecordPrefixBytes;
  auto put = [&fixed](std::size_t at, std::uint64_t v, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) fixed[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
  };
  put(0, static_cast<std::uint8_t>(Opcode::kMessage), 1);
  put(1, content, 8);
  put(9, message.channel_id, 2);
  put(11, message.sequence, 4);
  put(15, message.log_time_ns, 8);
  put(23, message.publish_time_ns, 8);
  out.insert(out.end(), fixed, fixed + sizeof(fixed));
  PutBytes(out, message.data);  // the rest of the record: no length prefix
}

void AppendChunkPrefix(Bytes& out, const ChunkView& chunk) {
  PutPrefix(out, Opcode::kChunk,
            8 + 8 + 8 + 4 + StringBytes(chunk.compression) + 8 + chunk.records.size());
  Put(out, chunk.message_start_time_ns);
  Put(out, chunk.message_end_time_ns);
  Put(out, chunk.uncompressed_size);
  Put(out, chunk.uncompressed_crc);
  PutString(out, chunk.compression);
  Put<std::uint64_t>(out, chunk.records.size());  // records: uint64 length-prefixed
}

void AppendChunk(Bytes& out, const ChunkView& chunk) {
  AppendChunkPrefix(out, chunk);
  PutBytes(out, chunk.records);
}

void AppendMessageIndex(Bytes& out, std::uint16_t channel_id,
                        std::span<const MessageIndexEntry> entries) {
  PutPrefix(out, Opcode::kMessageIndex,
            MessageIndexRecordBytes(entries.size()) - kRecordPrefixBytes);
  Put(out, channel_id);
  Put<std::uint32_t>(out, static_cast<std::uint32_t>(16 * entries.size()));  // Array byte length
  for (const MessageIndexEntry& e : entries) {
    Put(out, e.log_time_ns);
    Put(out, e.offset);
  }
}

void AppendChunkIndex(Bytes& out, const ChunkIndex& index) {
  PutPrefix(out, Opcode::kChunkIndex,
            8 + 8 + 8 + 8 + 4 + 10 * index.message_index_offsets.size() + 8 +
                StringBytes(index.compression) + 8 + 8);
  Put(out, index.message_start_time_ns);
  Put(out, index.message_end_time_ns);
  Put(out, index.chunk_start_offset);
  Put(out, index.chunk_length);
  PutIdMap(out, index.message_index_offsets);
  Put(out, index.message_index_length);
  PutString(out, index.compression);
  Put(out, index.compressed_size);
  Put(out, index.uncompressed_size);
}

void AppendStatistics(Bytes& out, const Statistics& s) {
  PutPrefix(out, Opcode::kStatistics,
            8 + 2 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 10 * s.channel_message_counts.size());
  Put(out, s.message_count);
  Put(out, s.schema_count);
  Put(out, s.channel_count);
  Put(out, s.attachment_count);
  Put(out, s.metadata_count);
  Put(out, s.chunk_count);
  Put(out, s.message_start_time_ns);
  Put(out, s.message_end_time_ns);
  PutIdMap(out, s.channel_message_counts);
}

void AppendMetadata(Bytes& out, const Metadata& metadata) {
  PutPrefix(out, Opcode::kMetadata, StringBytes(metadata.name) + 4 + MapBytes(metadata.metadata));
  PutString(out, metadata.name);
  PutMap(out, metadata.metadata);
}

void AppendMetadataIndex(Bytes& out, const MetadataIndex& index) {
  PutPrefix(out, Opcode::kMetadataIndex, 8 + 8 + StringBytes(index.name));
  Put(out, index.offset);
  Put(out, index.length);
  PutString(out, index.name);
}

void AppendSummaryOffset(Bytes& out, const SummaryOffset& offset) {
  PutPrefix(out, Opcode::kSummaryOffset, 1 + 8 + 8);
  Put(out, static_cast<std::uint8_t>(offset.group_opcode));
  Put(out, offset.group_start);
  Put(out, offset.group_length);
}

void AppendDataEnd(Bytes& out, std::uint32_t data_section_crc) {
  PutPrefix(out, Opcode::kDataEnd, 4);
  Put(out, data_section_crc);
}

}  // namespace robot_edge::recorder::mcap
