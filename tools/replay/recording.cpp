#include "tools/replay/recording.hpp"

#include <map>
#include <stdexcept>
#include <variant>

#include "recorder/byte_sink.hpp"
#include "recorder/mcap_reader.hpp"

namespace robot_edge::replay {

int Recording::ChannelOf(const std::string& topic) const {
  for (std::size_t i = 0; i < channels.size(); ++i) {
    if (channels[i].topic == topic) return static_cast<int>(i);
  }
  return -1;
}

std::vector<const RecordedMessage*> Recording::MessagesOf(const std::string& topic) const {
  std::vector<const RecordedMessage*> out;
  const int channel = ChannelOf(topic);
  if (channel < 0) return out;
  for (const RecordedMessage& m : messages) {
    if (m.channel == static_cast<std::size_t>(channel)) out.push_back(&m);
  }
  return out;
}

Recording LoadRecording(const std::string& path) {
  std::vector<std::uint8_t> bytes;
  std::string error;
  if (!recorder::ReadWholeFile(path, &bytes, &error)) throw std::runtime_error(error);
  recorder::McapReader reader(bytes);
  if (reader.status() == recorder::McapReader::Status::kCorrupt) {
    throw std::runtime_error(path + ": not an MCAP file: " + reader.error());
  }
  Recording out;
  std::map<std::uint16_t, recorder::mcap::Schema> schemas;
  std::map<std::uint16_t, std::size_t> channels;  // MCAP channel id -> index
  recorder::McapRecord record;
  while (reader.Next(&record)) {
    if (auto* s = std::get_if<recorder::mcap::Schema>(&record)) {
      schemas[s->id] = std::move(*s);
    } else if (auto* c = std::get_if<recorder::mcap::Channel>(&record)) {
      RecordedChannel rc;
      rc.topic = c->topic;
      rc.message_encoding = c->message_encoding;
      if (const auto it = schemas.find(c->schema_id); it != schemas.end()) {
        rc.schema_name = it->second.name;
        rc.schema_encoding = it->second.encoding;
        rc.schema.assign(it->second.data.begin(), it->second.data.end());
      }
      channels[c->id] = out.channels.size();
      out.channels.push_back(std::move(rc));
    } else if (auto* md = std::get_if<recorder::mcap::Metadata>(&record)) {
      out.metadata[md->name] = std::move(md->metadata);
    } else if (const auto* m = std::get_if<recorder::mcap::MessageView>(&record)) {
      const auto it = channels.find(m->channel_id);
      if (it == channels.end()) continue;  // a message of an undeclared channel: not ours to show
      out.messages.push_back({it->second, m->log_time_ns, {m->data.begin(), m->data.end()}});
    }
  }
  out.complete = reader.status() == recorder::McapReader::Status::kComplete;
  if (!out.complete) out.problem = reader.error();
  return out;
}

}  // namespace robot_edge::replay
