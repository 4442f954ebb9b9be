// A recorded MCAP file, loaded whole for robot-edge-replay: its channels (with their schemas),
// its metadata and its messages in file order. Reads with recorder::McapReader; no clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "recorder/channel_info.hpp"

namespace robot_edge::replay {

struct RecordedChannel {
  std::string topic;
  std::string message_encoding;  // "protobuf"
  std::string schema_name;       // "edge.JointState"
  std::string schema_encoding;   // "protobuf"
  std::string schema;            // its bytes (a FileDescriptorSet for protobuf)
};

struct RecordedMessage {
  std::size_t channel = 0;  // index in Recording::channels
  std::uint64_t log_time_ns = 0;
  std::string data;
};

struct Recording {
  std::vector<RecordedChannel> channels;
  std::vector<RecordedMessage> messages;  // file order (the recorder writes in time order)
  recorder::FileMetadata metadata;        // name -> its map ("run", "robot_document", ...)
  bool complete = false;                  // false: cut short (a power loss); what is whole loaded
  std::string problem;                    // why it is not complete ("" when it is)

  // The channel's index for `topic`, or -1.
  int ChannelOf(const std::string& topic) const;
  // The messages of `topic`, in file order.
  std::vector<const RecordedMessage*> MessagesOf(const std::string& topic) const;
};

// Loads `path`. Throws std::runtime_error naming the file when it cannot be read or is not MCAP
// (a corrupt record after a readable start loads the start, with `problem` set).
Recording LoadRecording(const std::string& path);

}  // namespace robot_edge::replay
