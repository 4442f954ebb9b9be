// What the recorder tests share: hex views of bytes (golden comparisons, as in moteus'
// Hexify(frame) == "..."), and reading a whole file back into plain values.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "recorder/mcap_decode.hpp"
#include "recorder/mcap_reader.hpp"

namespace robot_edge::recorder::test {

inline std::string Hexify(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (std::uint8_t b : bytes) {
    s += kDigits[b >> 4];
    s += kDigits[b & 0xF];
  }
  return s;
}

inline std::vector<std::uint8_t> ToBytes(std::string_view text) {
  return std::vector<std::uint8_t>(text.begin(), text.end());
}

// The file's records (magic excluded) as hex, one string per record, split with ReadRecord.
inline std::vector<std::string> RecordsHex(std::span<const std::uint8_t> file) {
  std::vector<std::string> out;
  std::uint64_t pos = mcap::kMagic.size();
  mcap::RecordView r;
  while (pos < file.size() - mcap::kMagic.size() &&
         mcap::ReadRecord(file, pos, &r) == mcap::RecordRead::kOk) {
    const std::size_t n = mcap::kRecordPrefixBytes + r.content.size();
    out.push_back(Hexify(file.subspan(pos, n)));
    pos += n;
  }
  return out;
}

struct Message {
  std::uint16_t channel_id = 0;
  std::uint32_t sequence = 0;
  std::uint64_t log_time_ns = 0;
  std::uint64_t publish_time_ns = 0;
  std::vector<std::uint8_t> data;
  bool operator==(const Message&) const = default;
};

struct ReadBack {
  std::vector<mcap::Schema> schemas;
  std::vector<mcap::Channel> channels;
  std::vector<mcap::Metadata> metadata;
  std::vector<Message> messages;
  McapReader::Status status = McapReader::Status::kReading;
  std::string error;
};

inline ReadBack ReadAll(std::span<const std::uint8_t> file, McapReaderOptions options = {}) {
  ReadBack back;
  McapReader reader(file, options);
  McapRecord record;
  while (reader.Next(&record)) {
    if (auto* s = std::get_if<mcap::Schema>(&record)) back.schemas.push_back(*s);
    if (auto* c = std::get_if<mcap::Channel>(&record)) back.channels.push_back(*c);
    if (auto* m = std::get_if<mcap::Metadata>(&record)) back.metadata.push_back(*m);
    if (auto* m = std::get_if<mcap::MessageView>(&record)) {
      back.messages.push_back({m->channel_id, m->sequence, m->log_time_ns, m->publish_time_ns,
                               std::vector<std::uint8_t>(m->data.begin(), m->data.end())});
    }
  }
  back.status = reader.status();
  back.error = reader.error();
  return back;
}

}  // namespace robot_edge::recorder::test
