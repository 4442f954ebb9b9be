// MCAP record encoders: each appends one whole record (opcode, content length, content) to `out`,
// with the field order of the spec's tables. Pure; no allocation beyond growing `out` (none when
// its capacity suffices). Layouts are checked against golden bytes in tests/recorder.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "recorder/mcap_format.hpp"

namespace robot_edge::recorder::mcap {

using Bytes = std::vector<std::uint8_t>;

// Bytes of a Message record with `data_size` bytes of payload (prefix included).
inline constexpr std::uint64_t MessageRecordBytes(std::uint64_t data_size) {
  return kRecordPrefixBytes + 2 + 4 + 8 + 8 + data_size;
}
// Bytes of one Message Index record holding `entries` entries (prefix included).
inline constexpr std::uint64_t MessageIndexRecordBytes(std::uint64_t entries) {
  return kRecordPrefixBytes + 2 + 4 + 16 * entries;
}

void AppendMagic(Bytes& out);
void AppendHeader(Bytes& out, const Header& header);
void AppendFooter(Bytes& out, const Footer& footer);
void AppendSchema(Bytes& out, const Schema& schema);
void AppendChannel(Bytes& out, const Channel& channel);
void AppendMessage(Bytes& out, const MessageView& message);
// The Chunk record without the bytes of `chunk.records` (only its size is used): the writer sends
// the compressed records to the sink straight from its compression buffer.
void AppendChunkPrefix(Bytes& out, const ChunkView& chunk);
void AppendChunk(Bytes& out, const ChunkView& chunk);
void AppendMessageIndex(Bytes& out, std::uint16_t channel_id,
                        std::span<const MessageIndexEntry> entries);
void AppendChunkIndex(Bytes& out, const ChunkIndex& index);
void AppendStatistics(Bytes& out, const Statistics& statistics);
void AppendMetadata(Bytes& out, const Metadata& metadata);
void AppendMetadataIndex(Bytes& out, const MetadataIndex& index);
void AppendSummaryOffset(Bytes& out, const SummaryOffset& offset);
void AppendDataEnd(Bytes& out, std::uint32_t data_section_crc);

}  // namespace robot_edge::recorder::mcap
