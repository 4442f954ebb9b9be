// Protobuf schemas as Foxglove and MCAP expect them: a serialized google.protobuf.FileDescriptorSet
// holding the message's .proto file and every file it imports, dependencies first, so that a
// reader can rebuild the message type from these bytes alone.
#pragma once

#include <string>

namespace google::protobuf {
class Descriptor;
}

namespace robot_edge::proto {

// The serialized FileDescriptorSet of `descriptor`'s file and all its (transitive) dependencies,
// each file once, every file after the files it imports. Pure: reads the compiled-in descriptor
// pool, no I/O. Example: FileDescriptorSetOf(edge::JointState::descriptor()) holds
// edge_cloud.proto then edge_api.proto.
std::string FileDescriptorSetOf(const google::protobuf::Descriptor* descriptor);

}  // namespace robot_edge::proto
