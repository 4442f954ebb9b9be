#include "index_check.hpp"

#include <map>
#include <vector>

#include "recorder/compression.hpp"
#include "recorder/crc32.hpp"
#include "recorder/mcap_decode.hpp"

namespace robot_edge::recorder::test {
namespace {

using mcap::Opcode;
using mcap::RecordView;

bool RecordAt(std::span<const std::uint8_t> bytes, std::uint64_t offset, Opcode op, RecordView* r) {
  return mcap::ReadRecord(bytes, offset, r) == mcap::RecordRead::kOk &&
         r->opcode == static_cast<std::uint8_t>(op);
}

std::string CheckChunk(std::span<const std::uint8_t> file, const mcap::ChunkIndex& ci,
                       std::uint64_t* indexed) {
  RecordView r;
  if (!RecordAt(file, ci.chunk_start_offset, Opcode::kChunk, &r)) return "no Chunk at offset";
  if (mcap::kRecordPrefixBytes + r.content.size() != ci.chunk_length) return "chunk_length";
  mcap::ChunkView chunk;
  if (!mcap::ParseChunk(r.content, &chunk)) return "bad Chunk";
  if (chunk.compression != ci.compression || chunk.records.size() != ci.compressed_size ||
      chunk.uncompressed_size != ci.uncompressed_size ||
      chunk.message_start_time_ns != ci.message_start_time_ns ||
      chunk.message_end_time_ns != ci.message_end_time_ns) {
    return "Chunk Index disagrees with its Chunk";
  }
  std::vector<std::uint8_t> records;
  std::string error;
  ChunkDecompressor d;
  if (!d.Decompress(chunk.compression, chunk.records, chunk.uncompressed_size, &records, &error)) {
    return error;
  }
  if (Crc32(records) != chunk.uncompressed_crc) return "chunk CRC";
  std::uint64_t indexes_bytes = 0;
  std::uint64_t expected_offset = ci.chunk_start_offset + ci.chunk_length;
  for (const auto& [channel, offset] : ci.message_index_offsets) {
    if (offset != expected_offset) return "Message Index records not packed after the chunk";
    if (!RecordAt(file, offset, Opcode::kMessageIndex, &r)) return "no Message Index at offset";
    std::uint16_t id = 0;
    std::vector<mcap::MessageIndexEntry> entries;
    if (!mcap::ParseMessageIndex(r.content, &id, &entries) || id != channel) return "bad index";
    for (const mcap::MessageIndexEntry& e : entries) {
      RecordView m;
      mcap::MessageView message;
      if (!RecordAt(records, e.offset, Opcode::kMessage, &m) ||
          !mcap::ParseMessage(m.content, &message) || message.channel_id != channel ||
          message.log_time_ns != e.log_time_ns) {
        return "Message Index entry does not point at its message";
      }
    }
    *indexed += entries.size();
    indexes_bytes += mcap::kRecordPrefixBytes + r.content.size();
    expected_offset += mcap::kRecordPrefixBytes + r.content.size();
  }
  return indexes_bytes == ci.message_index_length ? "" : "message_index_length";
}

}  // namespace

std::string CheckIndex(std::span<const std::uint8_t> file, IndexFacts* facts) {
  const std::size_t footer_at = file.size() - mcap::kMagic.size() - 29;
  RecordView r;
  mcap::Footer footer;
  if (!RecordAt(file, footer_at, Opcode::kFooter, &r) || !mcap::ParseFooter(r.content, &footer)) {
    return "no Footer";
  }
  if (Crc32(file.subspan(footer.summary_start, footer_at + 25 - footer.summary_start)) !=
      footer.summary_crc) {
    return "summary CRC";
  }
  std::map<std::uint8_t, std::pair<std::uint64_t, std::uint64_t>> groups;  // opcode -> range
  for (std::uint64_t pos = footer.summary_offset_start; pos < footer_at;) {
    mcap::SummaryOffset so;
    if (!RecordAt(file, pos, Opcode::kSummaryOffset, &r) ||
        !mcap::ParseSummaryOffset(r.content, &so)) {
      return "bad Summary Offset";
    }
    groups[static_cast<std::uint8_t>(so.group_opcode)] = {so.group_start, so.group_length};
    pos += mcap::kRecordPrefixBytes + r.content.size();
  }
  for (std::uint64_t pos = footer.summary_start; pos < footer.summary_offset_start;) {
    if (mcap::ReadRecord(file, pos, &r) != mcap::RecordRead::kOk) return "bad summary record";
    const auto g = groups.find(r.opcode);
    if (g == groups.end() || pos < g->second.first ||
        pos + mcap::kRecordPrefixBytes + r.content.size() > g->second.first + g->second.second) {
      return "summary record outside its Summary Offset group";
    }
    switch (static_cast<Opcode>(r.opcode)) {
      case Opcode::kSchema: ++facts->schemas; break;
      case Opcode::kChannel: ++facts->channels; break;
      case Opcode::kMetadataIndex: ++facts->metadata_indexes; break;
      case Opcode::kStatistics:
        if (!mcap::ParseStatistics(r.content, &facts->statistics)) return "bad Statistics";
        break;
      case Opcode::kChunkIndex: {
        mcap::ChunkIndex ci;
        if (!mcap::ParseChunkIndex(r.content, &ci)) return "bad Chunk Index";
        const std::string error = CheckChunk(file, ci, &facts->indexed_messages);
        if (!error.empty())
          return "chunk at " + std::to_string(ci.chunk_start_offset) + ": " + error;
        ++facts->chunk_indexes;
        break;
      }
      default: return "unexpected record in the summary";
    }
    pos += mcap::kRecordPrefixBytes + r.content.size();
  }
  return "";
}

}  // namespace robot_edge::recorder::test
