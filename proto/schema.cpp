#include "proto/schema.hpp"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include <set>
#include <string>

namespace robot_edge::proto {
namespace {

// Depth-first, dependencies before the file that imports them; `seen` keeps each file once.
void AddFileAndDependencies(const google::protobuf::FileDescriptor* file,
                            std::set<std::string>* seen, google::protobuf::FileDescriptorSet* set) {
  if (!seen->insert(file->name()).second) return;
  for (int i = 0; i < file->dependency_count(); ++i) {
    AddFileAndDependencies(file->dependency(i), seen, set);
  }
  file->CopyTo(set->add_file());
}

}  // namespace

std::string FileDescriptorSetOf(const google::protobuf::Descriptor* descriptor) {
  google::protobuf::FileDescriptorSet set;
  std::set<std::string> seen;
  AddFileAndDependencies(descriptor->file(), &seen, &set);
  return set.SerializeAsString();
}

}  // namespace robot_edge::proto
