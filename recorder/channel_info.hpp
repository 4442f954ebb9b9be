// What every recording file declares, so that each file stands alone: one Schema and one Channel
// record per ChannelInfo, then the metadata records, written when the file opens. Messages name
// a channel by its index in the list given to the recorder (MCAP channel id = index + 1).
#pragma once

#include <cstddef>
#include <map>
#include <span>
#include <string>

#include "recorder/mcap_format.hpp"
#include "recorder/mcap_writer.hpp"

namespace robot_edge::recorder {

struct ChannelInfo {
  std::string topic;                         // e.g. "/telemetry"
  std::string schema_name;                   // e.g. "edge.EdgeTelemetry"; "" = no schema
  std::string schema_encoding = "protobuf";  // "protobuf", "jsonschema", ...
  std::string schema;                        // raw bytes, e.g. a serialized FileDescriptorSet
  std::string message_encoding = "protobuf";
};

// Metadata record name -> its key/value map ("robot" -> {name, daemon_version, config_digest}).
using FileMetadata = std::map<std::string, mcap::StringMap>;

// Writes the Schema and Channel records of `channels` (channel i gets id i + 1; a channel with an
// empty schema_name gets no Schema record and schema id 0), then one Metadata record per entry
// of `metadata`. False when the writer fails (writer.error() says why).
bool DeclareFile(McapWriter& writer, std::span<const ChannelInfo> channels,
                 const FileMetadata& metadata);

}  // namespace robot_edge::recorder
