// /robot.json of the repository's robot: what the dashboard reads once.
#include "live/robot_document.hpp"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

namespace robot_edge::live {
namespace {

using google::protobuf::Struct;

config::Config SmallRobot() {
  config::Config config;
  config.robot_name = "bench \"A\"";
  config.control.rate_hz = 500;
  config.telemetry.rate_hz = 10;
  config.safety.overtemp_trip_c = 80;
  config.safety.overtemp_clear_c = 70;
  config::JointConfig hip;
  hip.name = "L_Hip_Pitch";
  hip.min_rad = -2.0;
  hip.max_rad = 1.5;
  hip.stand_rad = -0.3;
  config::JointConfig knee;
  knee.name = "L_Knee";
  knee.min_rad = 0;
  knee.max_rad = 2.4;
  knee.stand_rad = 0.6;
  config.joints = {hip, knee};
  return config;
}

TEST(RobotDocument, ExactText) {
  EXPECT_EQ(RobotDocument(SmallRobot()),
            R"({"name":"bench \"A\"","control_rate_hz":500,"telemetry_rate_hz":10,)"
            R"("safety":{"overtemp_trip_c":80,"overtemp_clear_c":70},"joints":[)"
            R"({"name":"L_Hip_Pitch","min_rad":-2,"max_rad":1.5,"stand_rad":-0.3},)"
            R"({"name":"L_Knee","min_rad":0,"max_rad":2.4,"stand_rad":0.6}]})");
}

TEST(RobotDocument, TheRepositorysRobotIsValidJsonInFirmwareOrder) {
  const config::Config config = config::LoadConfig(ROBOT_EDGE_CONFIG);
  Struct document;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(RobotDocument(config), &document).ok());
  const auto& fields = document.fields();
  EXPECT_EQ(fields.at("name").string_value(), config.robot_name);
  EXPECT_EQ(fields.at("control_rate_hz").number_value(), 500);
  EXPECT_EQ(fields.at("safety").struct_value().fields().at("overtemp_clear_c").number_value(), 70);
  const auto& joints = fields.at("joints").list_value().values();
  ASSERT_EQ(joints.size(), 25);
  for (int i = 0; i < joints.size(); ++i) {
    const auto& joint = joints[i].struct_value().fields();
    EXPECT_EQ(joint.at("name").string_value(), config.joints[i].name);
    EXPECT_EQ(joint.at("min_rad").number_value(), config.joints[i].min_rad);
    EXPECT_EQ(joint.at("max_rad").number_value(), config.joints[i].max_rad);
    EXPECT_EQ(joint.at("stand_rad").number_value(), config.joints[i].stand_rad);
  }
  EXPECT_EQ(joints[0].struct_value().fields().at("name").string_value(), "L_Hip_Pitch");
  EXPECT_EQ(joints[24].struct_value().fields().at("name").string_value(), "Neck_Yaw");
}

}  // namespace
}  // namespace robot_edge::live
