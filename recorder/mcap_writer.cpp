#include "recorder/mcap_writer.hpp"

#include <algorithm>
#include <utility>

#include "recorder/crc32.hpp"
#include "recorder/mcap_encode.hpp"

namespace robot_edge::recorder {
namespace {

constexpr std::size_t kMaxChunkReserve = 64u << 20;  // bytes; a larger chunk_size grows on use
constexpr std::size_t kChunkSlack = 64u << 10;       // room for the message that fills a chunk
constexpr std::uint16_t kMaxId = UINT16_MAX;

// Bytes of a Chunk Index record naming `channels` Message Index records ("zstd" compression).
std::size_t ChunkIndexBytes(std::size_t channels) {
  return mcap::kRecordPrefixBytes + 8 * 4 + 4 + 10 * channels + 8 + 4 + 4 + 8 + 8;
}

}  // namespace

McapWriter::McapWriter(ByteSink& sink, McapWriterOptions options)
    : sink_(sink),
      options_(std::move(options)),
      compressor_(
          options_.compression,
          options_.compression == Compression::kLz4 ? options_.lz4_level : options_.zstd_level,
          std::min<std::uint64_t>(options_.chunk_size, kMaxChunkReserve) + kChunkSlack) {
  chunk_.reserve(std::min<std::uint64_t>(options_.chunk_size, kMaxChunkReserve) + kChunkSlack);
  chunk_indexes_.reserve(options_.reserved_chunks * ChunkIndexBytes(1));
  chunk_index_.message_index_offsets.reserve(8);
  scratch_.reserve(4096);
  std::vector<std::uint8_t> start;
  mcap::AppendMagic(start);
  mcap::AppendHeader(start, mcap::Header{options_.profile, options_.library});
  Emit(start);
}

McapWriter::~McapWriter() { Close(); }

bool McapWriter::Fail(std::string error) {
  error_ = std::move(error);
  return false;
}

std::uint16_t McapWriter::FailId(std::string error) {
  error_ = std::move(error);
  return 0;
}

bool McapWriter::Usable(const char* call) {
  if (failed_) return false;  // error_ already says why
  if (closed_) return Fail(std::string(call) + " after Close()");
  return true;
}

// Every byte of the file goes through here: counted, and folded into the running CRC.
bool McapWriter::Emit(std::span<const std::uint8_t> bytes) {
  if (failed_) return false;
  if (!sink_.Write(bytes)) {
    failed_ = true;
    // The offset where this write began: a part of it may have reached the file.
    return Fail("sink failed writing " + std::to_string(bytes.size()) + " bytes at file offset " +
                std::to_string(bytes_written_) + ": " + sink_.error());
  }
  crc_ = Crc32(bytes, crc_);
  bytes_written_ += bytes.size();
  return true;
}

std::uint16_t McapWriter::AddSchema(std::string_view name, std::string_view encoding,
                                    std::span<const std::uint8_t> data) {
  if (!Usable("AddSchema")) return 0;
  if (schema_count_ == kMaxId) return FailId("AddSchema: 65535 schemas already");
  if (data.size() > UINT32_MAX) return FailId("AddSchema: schema data over 4 GiB");
  mcap::Schema schema{static_cast<std::uint16_t>(schema_count_ + 1), std::string(name),
                      std::string(encoding), std::vector<std::uint8_t>(data.begin(), data.end())};
  const std::size_t at = schema_records_.size();
  mcap::AppendSchema(schema_records_, schema);
  if (!Emit(std::span(schema_records_).subspan(at))) return 0;
  return ++schema_count_;
}

std::uint16_t McapWriter::AddChannel(std::uint16_t schema_id, std::string_view topic,
                                     std::string_view message_encoding,
                                     const mcap::StringMap& metadata) {
  if (!Usable("AddChannel")) return 0;
  if (schema_id > schema_count_) {
    return FailId("AddChannel " + std::string(topic) + ": unknown schema id " +
                  std::to_string(schema_id));
  }
  if (channels_.size() == kMaxId) return FailId("AddChannel: 65535 channels already");
  const auto id = static_cast<std::uint16_t>(channels_.size() + 1);
  const std::size_t at = channel_records_.size();
  mcap::AppendChannel(channel_records_, mcap::Channel{id, schema_id, std::string(topic),
                                                      std::string(message_encoding), metadata});
  if (!Emit(std::span(channel_records_).subspan(at))) return 0;
  channels_.emplace_back().index.reserve(64);
  // Room for this many channels in every reserved Chunk Index, and in its offsets map.
  chunk_indexes_.reserve(chunk_indexes_.size() + options_.reserved_chunks * ChunkIndexBytes(id));
  chunk_index_.message_index_offsets.reserve(channels_.size());
  return id;
}

bool McapWriter::AddMetadata(std::string_view name, const mcap::StringMap& metadata) {
  if (!Usable("AddMetadata")) return false;
  std::vector<std::uint8_t> record;
  mcap::AppendMetadata(record, mcap::Metadata{std::string(name), metadata});
  const std::uint64_t offset = bytes_written_;
  if (!Emit(record)) return false;
  mcap::AppendMetadataIndex(metadata_indexes_,
                            mcap::MetadataIndex{offset, record.size(), std::string(name)});
  ++metadata_count_;
  return true;
}

bool McapWriter::Write(std::uint16_t channel_id, std::uint32_t sequence, std::uint64_t log_time_ns,
                       std::uint64_t publish_time_ns, std::span<const std::uint8_t> data) {
  if (!Usable("Write")) return false;
  if (channel_id == 0 || channel_id > channels_.size()) {
    return Fail("Write: unknown channel id " + std::to_string(channel_id));
  }
  ChannelState& channel = channels_[channel_id - 1];
  // Message Index offsets count from the start of the chunk's uncompressed records.
  channel.index.push_back({log_time_ns, chunk_.size()});
  mcap::AppendMessage(chunk_, {channel_id, sequence, log_time_ns, publish_time_ns, data});
  ++channel.message_count;
  ++message_count_;
  chunk_start_ns_ = std::min(chunk_start_ns_, log_time_ns);
  chunk_end_ns_ = std::max(chunk_end_ns_, log_time_ns);
  min_log_time_ns_ = std::min(min_log_time_ns_, log_time_ns);
  max_log_time_ns_ = std::max(max_log_time_ns_, log_time_ns);
  if (chunk_.size() >= options_.chunk_size) return FlushChunk();
  return true;
}

bool McapWriter::Flush() { return Usable("Flush") && FlushChunk(); }

// Chunk = start/end time, uncompressed size and CRC, compression, uint64-prefixed records. It is
// followed by one Message Index per channel with messages in it, and indexed in the summary.
bool McapWriter::FlushChunk() {
  if (chunk_.empty()) return true;
  const std::uint32_t crc = Crc32(chunk_);
  std::span<const std::uint8_t> stored;
  if (!compressor_.Compress(chunk_, &stored)) {
    failed_ = true;
    return Fail("chunk compression failed: " + compressor_.error());
  }
  std::string_view compression = CompressionName(compressor_.compression());
  if (stored.size() >= chunk_.size()) {  // incompressible: store it as it is
    stored = chunk_;
    compression = "";
  }
  const mcap::ChunkView chunk{chunk_start_ns_, chunk_end_ns_, chunk_.size(), crc,
                              compression,     stored};
  const std::uint64_t chunk_start = bytes_written_;
  scratch_.clear();
  mcap::AppendChunkPrefix(scratch_, chunk);
  if (!Emit(scratch_) || !Emit(stored)) return false;
  if (!EmitMessageIndexes(chunk_start, bytes_written_ - chunk_start, compression, stored.size())) {
    return false;
  }
  chunk_.clear();
  chunk_start_ns_ = UINT64_MAX;
  chunk_end_ns_ = 0;
  ++chunk_count_;
  return true;
}

// The Message Index records after a chunk (in channel id order), then its Chunk Index record.
bool McapWriter::EmitMessageIndexes(std::uint64_t chunk_start, std::uint64_t chunk_length,
                                    std::string_view compression, std::uint64_t compressed_size) {
  mcap::ChunkIndex& index = chunk_index_;
  index.message_index_offsets.clear();
  scratch_.clear();
  const std::uint64_t indexes_start = bytes_written_;
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    std::vector<mcap::MessageIndexEntry>& entries = channels_[i].index;
    if (entries.empty()) continue;
    const auto id = static_cast<std::uint16_t>(i + 1);
    index.message_index_offsets.emplace_back(id, indexes_start + scratch_.size());
    mcap::AppendMessageIndex(scratch_, id, entries);
    entries.clear();
  }
  if (!Emit(scratch_)) return false;
  index.message_start_time_ns = chunk_start_ns_;
  index.message_end_time_ns = chunk_end_ns_;
  index.chunk_start_offset = chunk_start;
  index.chunk_length = chunk_length;
  index.message_index_length = scratch_.size();
  index.compression.assign(compression);  // fits the small-string buffer: no allocation
  index.compressed_size = compressed_size;
  index.uncompressed_size = chunk_.size();
  mcap::AppendChunkIndex(chunk_indexes_, index);
  return true;
}

bool McapWriter::Close() {
  if (closed_) return !failed_;
  if (failed_ || !FlushChunk()) {
    closed_ = true;
    return false;
  }
  closed_ = true;
  std::vector<std::uint8_t> data_end;
  // "data_section_crc: CRC32 of all bytes from the beginning of the file up to the DataEnd
  // record": crc_ so far, magic included.
  mcap::AppendDataEnd(data_end, crc_);
  if (!Emit(data_end)) return false;
  std::vector<std::uint8_t> summary = Summary(bytes_written_);
  return Emit(summary);
}

mcap::Statistics McapWriter::MakeStatistics() const {
  mcap::Statistics s;
  s.message_count = message_count_;
  s.schema_count = schema_count_;
  s.channel_count = static_cast<std::uint32_t>(channels_.size());
  s.metadata_count = metadata_count_;
  s.chunk_count = chunk_count_;
  s.message_start_time_ns = first_log_time_ns();
  s.message_end_time_ns = last_log_time_ns();
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    if (channels_[i].message_count == 0) continue;
    s.channel_message_counts.emplace_back(static_cast<std::uint16_t>(i + 1),
                                          channels_[i].message_count);
  }
  return s;
}

// The summary section (records grouped by opcode), one Summary Offset per non-empty group, the
// Footer and the closing magic, for a summary starting at file offset `summary_start`.
std::vector<std::uint8_t> McapWriter::Summary(std::uint64_t summary_start) const {
  std::vector<std::uint8_t> out;
  std::vector<mcap::SummaryOffset> groups;
  auto group = [&](mcap::Opcode op, auto&& append) {
    const std::size_t start = out.size();
    append();
    if (out.size() > start) groups.push_back({op, summary_start + start, out.size() - start});
  };
  group(mcap::Opcode::kSchema,
        [&] { out.insert(out.end(), schema_records_.begin(), schema_records_.end()); });
  group(mcap::Opcode::kChannel,
        [&] { out.insert(out.end(), channel_records_.begin(), channel_records_.end()); });
  group(mcap::Opcode::kStatistics, [&] { mcap::AppendStatistics(out, MakeStatistics()); });
  group(mcap::Opcode::kChunkIndex,
        [&] { out.insert(out.end(), chunk_indexes_.begin(), chunk_indexes_.end()); });
  group(mcap::Opcode::kMetadataIndex,
        [&] { out.insert(out.end(), metadata_indexes_.begin(), metadata_indexes_.end()); });
  const std::uint64_t summary_offset_start = summary_start + out.size();
  for (const mcap::SummaryOffset& g : groups) mcap::AppendSummaryOffset(out, g);
  // "summary_crc: A CRC32 of all bytes from the start of the Summary section up through and
  // including the end of the previous field (summary_offset_start) in the footer record."
  mcap::AppendFooter(out, mcap::Footer{summary_start, summary_offset_start, 0});
  const std::uint32_t crc = Crc32(std::span(out).first(out.size() - 4));
  out.resize(out.size() - 4);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(crc >> (8 * i)));
  mcap::AppendMagic(out);
  return out;
}

}  // namespace robot_edge::recorder
