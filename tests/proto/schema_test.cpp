// FileDescriptorSetOf: the bytes Foxglove and MCAP readers rebuild a message type from.
#include "proto/schema.hpp"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "edge_api.pb.h"
#include "edge_cloud.pb.h"

namespace {

using google::protobuf::DescriptorPool;
using google::protobuf::FileDescriptorSet;

FileDescriptorSet Parse(const std::string& bytes) {
  FileDescriptorSet set;
  EXPECT_TRUE(set.ParseFromString(bytes));
  return set;
}

TEST(FileDescriptorSetOf, JointStateHoldsItsFileAfterTheFileItImports) {
  const FileDescriptorSet set =
      Parse(robot_edge::proto::FileDescriptorSetOf(edge::JointState::descriptor()));
  ASSERT_EQ(set.file_size(), 2);
  EXPECT_EQ(set.file(0).name(), "edge_cloud.proto");
  EXPECT_EQ(set.file(1).name(), "edge_api.proto");
  EXPECT_EQ(set.file(1).dependency(0), "edge_cloud.proto");
}

TEST(FileDescriptorSetOf, EdgeTelemetryNeedsOnlyItsOwnFile) {
  const FileDescriptorSet set =
      Parse(robot_edge::proto::FileDescriptorSetOf(edge::EdgeTelemetry::descriptor()));
  ASSERT_EQ(set.file_size(), 1);
  EXPECT_EQ(set.file(0).name(), "edge_cloud.proto");
}

// A reader with nothing compiled in: build a pool from the bytes alone, find the message by its
// full name, and decode a real message with it.
TEST(FileDescriptorSetOf, RebuildsJointStateInAnEmptyPool) {
  const FileDescriptorSet set =
      Parse(robot_edge::proto::FileDescriptorSetOf(edge::JointState::descriptor()));
  DescriptorPool pool;
  for (const auto& file : set.file()) ASSERT_NE(pool.BuildFile(file), nullptr) << file.name();

  const auto* type = pool.FindMessageTypeByName("edge.JointState");
  ASSERT_NE(type, nullptr);
  ASSERT_NE(pool.FindEnumTypeByName("edge.FirmwareMode"), nullptr);  // from edge_cloud.proto
  const auto* q = type->FindFieldByName("q");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->number(), 7);
  EXPECT_TRUE(q->is_packed());

  edge::JointState state;
  state.set_tick(42);
  state.set_control_mode(edge::CONTROL_MODE_STAND);
  state.add_q(0.25f);
  google::protobuf::DynamicMessageFactory factory(&pool);
  std::unique_ptr<google::protobuf::Message> decoded(factory.GetPrototype(type)->New());
  ASSERT_TRUE(decoded->ParseFromString(state.SerializeAsString()));
  const auto* reflection = decoded->GetReflection();
  EXPECT_EQ(reflection->GetUInt64(*decoded, type->FindFieldByName("tick")), 42u);
  EXPECT_EQ(reflection->GetEnum(*decoded, type->FindFieldByName("control_mode"))->name(),
            "CONTROL_MODE_STAND");
  EXPECT_FLOAT_EQ(reflection->GetRepeatedFloat(*decoded, q, 0), 0.25f);
}

TEST(FileDescriptorSetOf, IsDeterministic) {
  EXPECT_EQ(robot_edge::proto::FileDescriptorSetOf(edge::EdgeEvent::descriptor()),
            robot_edge::proto::FileDescriptorSetOf(edge::EdgeEvent::descriptor()));
}

}  // namespace
