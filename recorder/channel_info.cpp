#include "recorder/channel_info.hpp"

namespace robot_edge::recorder {

bool DeclareFile(McapWriter& writer, std::span<const ChannelInfo> channels,
                 const FileMetadata& metadata) {
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const ChannelInfo& c = channels[i];
    std::uint16_t schema_id = 0;
    if (!c.schema_name.empty()) {
      const auto* data = reinterpret_cast<const std::uint8_t*>(c.schema.data());
      schema_id = writer.AddSchema(c.schema_name, c.schema_encoding, {data, c.schema.size()});
      if (schema_id == 0) return false;
    }
    if (writer.AddChannel(schema_id, c.topic, c.message_encoding) != i + 1) return false;
  }
  for (const auto& [name, map] : metadata) {
    if (!writer.AddMetadata(name, map)) return false;
  }
  return writer.ok();
}

}  // namespace robot_edge::recorder
