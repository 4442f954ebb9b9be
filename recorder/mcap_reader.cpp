#include "recorder/mcap_reader.hpp"

#include <algorithm>
#include <utility>

#include "recorder/crc32.hpp"
#include "recorder/mcap_decode.hpp"

namespace robot_edge::recorder {
namespace {

using mcap::Opcode;

constexpr std::uint8_t Op(Opcode op) { return static_cast<std::uint8_t>(op); }

bool AllZero(std::span<const std::uint8_t> bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b == 0; });
}

std::string Hex(std::uint32_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s = "0x00000000";
  for (int i = 0; i < 8; ++i) s[9 - i] = kDigits[(v >> (4 * i)) & 0xF];
  return s;
}

}  // namespace

McapReader::McapReader(std::span<const std::uint8_t> file, McapReaderOptions options)
    : file_(file), options_(options) {
  const std::span<const std::uint8_t> magic(mcap::kMagic);
  const std::size_t n = std::min(file_.size(), magic.size());
  if (!std::equal(file_.begin(), file_.begin() + n, magic.begin())) {
    Corrupt("not an MCAP file (bad magic)");
    return;
  }
  if (n < magic.size()) {
    Truncated("the file ends inside the opening magic");
    return;
  }
  data_crc_ = Crc32(magic);
  pos_ = magic.size();
  record_offset_ = pos_;
  mcap::RecordView r;
  if (mcap::ReadRecord(file_, pos_, &r) != mcap::RecordRead::kOk) {
    Truncated("the Header record is cut");
    return;
  }
  if (r.opcode != Op(Opcode::kHeader) || !mcap::ParseHeader(r.content, &header_)) {
    Corrupt("the first record is not a valid Header");
    return;
  }
  const std::size_t bytes = mcap::kRecordPrefixBytes + r.content.size();
  data_crc_ = Crc32(file_.subspan(static_cast<std::size_t>(pos_), bytes), data_crc_);
  pos_ += bytes;
}

std::string McapReader::Where() const {
  std::string where = "offset " + std::to_string(record_offset_);
  if (in_chunk_) where += " (chunk), uncompressed offset " + std::to_string(chunk_pos_);
  return where;
}

McapReader::Step McapReader::Truncated(std::string why) {
  status_ = Status::kTruncated;
  error_ = "truncated MCAP file: " + std::move(why);
  return Step::kContinue;
}

McapReader::Step McapReader::Corrupt(std::string why) {
  status_ = Status::kCorrupt;
  error_ = "corrupt MCAP file at " + Where() + ": " + std::move(why);
  return Step::kContinue;
}

bool McapReader::Next(McapRecord* out) {
  while (status_ == Status::kReading) {
    const Step step = in_chunk_ ? InChunk(out) : TopLevel(out);
    if (step == Step::kYield) return true;
  }
  return false;
}

McapReader::Step McapReader::TopLevel(McapRecord* out) {
  record_offset_ = pos_;
  mcap::RecordView r;
  const mcap::RecordRead read = mcap::ReadRecord(file_, pos_, &r);
  const std::span<const std::uint8_t> rest = file_.subspan(static_cast<std::size_t>(pos_));
  if (read == mcap::RecordRead::kEnd) {
    return Truncated("no Footer: the file ends at offset " + std::to_string(pos_));
  }
  if ((read == mcap::RecordRead::kTruncated || r.opcode == 0) && AllZero(rest)) {
    return Truncated("zero-filled tail from offset " + std::to_string(pos_));
  }
  if (read == mcap::RecordRead::kTruncated) {
    return Truncated("the record at offset " + std::to_string(pos_) + " is cut (" +
                     std::to_string(rest.size()) + " bytes left)");
  }
  const std::size_t bytes = mcap::kRecordPrefixBytes + r.content.size();
  if (!in_summary_ && r.opcode != Op(Opcode::kDataEnd)) {
    data_crc_ = Crc32(rest.first(bytes), data_crc_);
  }
  pos_ += bytes;
  switch (static_cast<Opcode>(r.opcode)) {
    case Opcode::kHeader: return Corrupt("a second Header");
    case Opcode::kFooter: return Footer(r.content);
    case Opcode::kChunk:
      return in_summary_ ? Corrupt("a Chunk after Data End") : OpenChunk(r.content);
    case Opcode::kDataEnd: return in_summary_ ? Corrupt("a second Data End") : DataEnd(r.content);
    case Opcode::kSchema:
    case Opcode::kChannel:
    case Opcode::kMessage:
    case Opcode::kMetadata:
      // The summary repeats Schemas and Channels: yielded once, from the data section.
      return in_summary_ ? Step::kContinue : Deliver(r.opcode, r.content, out);
    default:
      // Indexes, statistics, attachments and opcodes from later spec versions: skipped.
      return r.opcode == 0 ? Corrupt("opcode 0 (not a record)") : Step::kContinue;
  }
}

McapReader::Step McapReader::InChunk(McapRecord* out) {
  mcap::RecordView r;
  switch (mcap::ReadRecord(chunk_, chunk_pos_, &r)) {
    case mcap::RecordRead::kEnd: in_chunk_ = false; return Step::kContinue;
    case mcap::RecordRead::kTruncated: return Corrupt("a record runs past the end of the chunk");
    case mcap::RecordRead::kOk: break;
  }
  const Step step = r.opcode == Op(Opcode::kSchema) || r.opcode == Op(Opcode::kChannel) ||
                            r.opcode == Op(Opcode::kMessage)
                        ? Deliver(r.opcode, r.content, out)
                        : Step::kContinue;  // nothing else belongs in a chunk: skipped
  if (status_ == Status::kReading) chunk_pos_ += mcap::kRecordPrefixBytes + r.content.size();
  return step;
}

McapReader::Step McapReader::Deliver(std::uint8_t opcode, std::span<const std::uint8_t> content,
                                     McapRecord* out) {
  switch (static_cast<Opcode>(opcode)) {
    case Opcode::kSchema: {
      auto& schema = out->emplace<mcap::Schema>();
      if (!mcap::ParseSchema(content, &schema)) return Corrupt("malformed Schema");
      if (schema.id == 0) return Step::kContinue;  // "invalid and should be ignored"
      schemas_.set(schema.id);
      return Step::kYield;
    }
    case Opcode::kChannel: {
      auto& channel = out->emplace<mcap::Channel>();
      if (!mcap::ParseChannel(content, &channel)) return Corrupt("malformed Channel");
      if (channel.schema_id != 0 && !schemas_.test(channel.schema_id)) {
        return Corrupt("Channel " + std::to_string(channel.id) + " names unknown schema " +
                       std::to_string(channel.schema_id));
      }
      channels_.set(channel.id);
      return Step::kYield;
    }
    case Opcode::kMessage: {
      auto& message = out->emplace<mcap::MessageView>();
      if (!mcap::ParseMessage(content, &message)) return Corrupt("malformed Message");
      if (!channels_.test(message.channel_id)) {
        return Corrupt("Message on unknown channel " + std::to_string(message.channel_id));
      }
      ++message_count_;
      return Step::kYield;
    }
    default: {
      auto& metadata = out->emplace<mcap::Metadata>();
      if (!mcap::ParseMetadata(content, &metadata)) return Corrupt("malformed Metadata");
      return Step::kYield;
    }
  }
}

McapReader::Step McapReader::OpenChunk(std::span<const std::uint8_t> content) {
  mcap::ChunkView chunk;
  if (!mcap::ParseChunk(content, &chunk)) return Corrupt("malformed Chunk");
  if (chunk.uncompressed_size > options_.max_chunk_bytes) {
    return Corrupt("chunk of " + std::to_string(chunk.uncompressed_size) +
                   " uncompressed bytes (limit " + std::to_string(options_.max_chunk_bytes) + ")");
  }
  if (chunk.compression.empty() && chunk.records.size() == chunk.uncompressed_size) {
    chunk_ = chunk.records;  // read in place
  } else {
    std::string why;
    if (!decompressor_.Decompress(chunk.compression, chunk.records, chunk.uncompressed_size,
                                  &chunk_buffer_, &why)) {
      return Corrupt(why);
    }
    chunk_ = chunk_buffer_;
  }
  if (chunk.uncompressed_crc != 0) {
    const std::uint32_t crc = Crc32(chunk_);
    if (crc != chunk.uncompressed_crc) {
      return Corrupt("chunk CRC mismatch (stored " + Hex(chunk.uncompressed_crc) + ", computed " +
                     Hex(crc) + ")");
    }
  }
  chunk_pos_ = 0;
  in_chunk_ = true;
  return Step::kContinue;
}

McapReader::Step McapReader::DataEnd(std::span<const std::uint8_t> content) {
  std::uint32_t stored = 0;
  if (!mcap::ParseDataEnd(content, &stored)) return Corrupt("malformed Data End");
  // "CRC32 of all bytes from the beginning of the file up to the DataEnd record."
  if (stored != 0 && stored != data_crc_) {
    return Corrupt("data section CRC mismatch (stored " + Hex(stored) + ", computed " +
                   Hex(data_crc_) + ")");
  }
  in_summary_ = true;
  return Step::kContinue;
}

McapReader::Step McapReader::Footer(std::span<const std::uint8_t> content) {
  mcap::Footer footer;
  if (!mcap::ParseFooter(content, &footer)) return Corrupt("malformed Footer");
  const std::span<const std::uint8_t> tail = file_.subspan(static_cast<std::size_t>(pos_));
  const std::span<const std::uint8_t> magic(mcap::kMagic);
  const std::size_t n = std::min(tail.size(), magic.size());
  if (!std::equal(tail.begin(), tail.begin() + n, magic.begin())) {
    return Corrupt("no closing magic after the Footer");
  }
  if (n < magic.size()) return Truncated("the file ends inside the closing magic");
  if (tail.size() > magic.size()) return Corrupt("bytes after the closing magic");
  // "summary_crc: CRC32 of all bytes from the start of the Summary section up through and
  // including the end of [summary_offset_start] in the footer record."
  if (footer.summary_crc != 0) {
    const std::uint64_t start = footer.summary_start != 0 ? footer.summary_start : record_offset_;
    if (start > record_offset_) return Corrupt("summary_start past the Footer");
    const std::uint64_t end = record_offset_ + mcap::kRecordPrefixBytes + 16;
    const std::uint32_t crc = Crc32(
        file_.subspan(static_cast<std::size_t>(start), static_cast<std::size_t>(end - start)));
    if (crc != footer.summary_crc) {
      return Corrupt("summary CRC mismatch (stored " + Hex(footer.summary_crc) + ", computed " +
                     Hex(crc) + ")");
    }
  }
  status_ = Status::kComplete;
  return Step::kContinue;
}

}  // namespace robot_edge::recorder
