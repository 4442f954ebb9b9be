// The protocol's enum values and field names are the specification's (seed 001): a client built
// from the specification must interoperate, so a renumbering must fail here.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "edge_api.pb.h"
#include "edge_cloud.pb.h"

namespace {

TEST(Enums, ModeAndFirmwareModeUseTheSpecificationsDifferentNumbering) {
  EXPECT_EQ(edge::MODE_STAND, 0);
  EXPECT_EQ(edge::MODE_DAMP, 1);
  EXPECT_EQ(edge::FW_MODE_DAMP, 0);
  EXPECT_EQ(edge::FW_MODE_STAND, 1);
  EXPECT_EQ(edge::FW_MODE_MOVE, 2);
}

TEST(Enums, SubsystemValues) {
  EXPECT_EQ(edge::SUBSYSTEM_FW_LINK, 0);
  EXPECT_EQ(edge::SUBSYSTEM_CAMERA, 1);
  EXPECT_EQ(edge::SUBSYSTEM_MIC, 2);
  EXPECT_EQ(edge::SUBSYSTEM_SPEAKER, 3);
  EXPECT_EQ(edge::SUBSYSTEM_BLE, 4);
  EXPECT_EQ(edge::SUBSYSTEM_CLOUD, 5);
  EXPECT_EQ(edge::SUBSYSTEM_FIRMWARE, 6);
}

TEST(Enums, ErrorFlagBitIsAlertIdMinusOne) {
  const std::pair<edge::AlertId, edge::ErrorFlag> pairs[] = {
      {edge::ALERT_MOTOR_OVERTEMP, edge::ERROR_FLAG_MOTOR_OVERTEMP},
      {edge::ALERT_FALL_DETECTED, edge::ERROR_FLAG_FALL_DETECTED},
      {edge::ALERT_MOTOR_TIMEOUT, edge::ERROR_FLAG_MOTOR_TIMEOUT},
      {edge::ALERT_CAN_BUS_OFF, edge::ERROR_FLAG_CAN_BUS_OFF},
      {edge::ALERT_MOTOR_FAULT, edge::ERROR_FLAG_MOTOR_FAULT},
      {edge::ALERT_IMU_TIMEOUT, edge::ERROR_FLAG_IMU_TIMEOUT},
      {edge::ALERT_CONTROL_LOOP_SLOW, edge::ERROR_FLAG_CONTROL_LOOP_SLOW},
      {edge::ALERT_JOINT_OUT_OF_RANGE, edge::ERROR_FLAG_JOINT_OUT_OF_RANGE},
      {edge::ALERT_BATTERY_LOW, edge::ERROR_FLAG_BATTERY_LOW},
      {edge::ALERT_CONTROL_STALLED, edge::ERROR_FLAG_CONTROL_STALLED},
      {edge::ALERT_JOINT_PAST_LIMIT, edge::ERROR_FLAG_JOINT_PAST_LIMIT},
  };
  for (const auto& [id, flag] : pairs) EXPECT_EQ(1u << (id - 1), static_cast<unsigned>(flag));
}

TEST(Messages, TelemetryHasEveryFieldOfTheSpecificationInTableOrder) {
  const auto* d = edge::EdgeTelemetry::descriptor();
  const char* names[] = {"timestamp_us",
                         "fw_timestamp_us",
                         "sequence",
                         "fw_mode",
                         "joint_pos",
                         "joint_vel",
                         "joint_current",
                         "joint_temp",
                         "imu_quat",
                         "imu_gyro",
                         "imu_gravity",
                         "error_flags",
                         "active_alerts",
                         "fw_age_ms",
                         "last_video_timestamp_us",
                         "last_audio_timestamp_us"};
  for (int i = 0; i < 16; ++i) {
    const auto* f = d->FindFieldByName(names[i]);
    ASSERT_NE(f, nullptr) << names[i];
    EXPECT_EQ(f->number(), i + 1) << names[i];
  }
}

TEST(Messages, CloudCommandIsAOneofOfTheThreeCommands) {
  const auto* d = edge::CloudCommand::descriptor();
  const auto* oneof = d->FindFieldByName("velocity")->containing_oneof();
  ASSERT_NE(oneof, nullptr);
  EXPECT_EQ(d->FindFieldByName("trajectory")->containing_oneof(), oneof);
  EXPECT_EQ(d->FindFieldByName("mode")->containing_oneof(), oneof);
  const auto* src = edge::TrajectoryRequest::descriptor()->FindFieldByName("full");
  EXPECT_EQ(src->containing_oneof(),
            edge::TrajectoryRequest::descriptor()->FindFieldByName("id")->containing_oneof());
}

TEST(Messages, DiagnosticsAndEventsHaveTheSpecificationsFields) {
  for (const char* f :
       {"can_health", "onnx_avg_ms", "onnx_max_ms", "onnx_count", "controller", "provisioned",
        "cloud_connected", "ble_connected", "camera_active", "mic_active"}) {
    EXPECT_NE(edge::EdgeDiagnostics::descriptor()->FindFieldByName(f), nullptr) << f;
  }
  for (const char* f : {"previous", "current", "reason"}) {
    EXPECT_NE(edge::ControllerEvent::descriptor()->FindFieldByName(f), nullptr) << f;
  }
  for (const char* f : {"id", "severity", "value", "threshold", "first_set_us", "source_id"}) {
    EXPECT_NE(edge::FirmwareAlert::descriptor()->FindFieldByName(f), nullptr) << f;
  }
  for (const char* f : {"timestamp_us", "sequence", "error", "diagnostics", "controller"}) {
    EXPECT_NE(edge::EdgeEvent::descriptor()->FindFieldByName(f), nullptr) << f;
  }
}

// edge_cloud.proto is seed 001 and nothing more: every message with exactly the fields of the
// specification's table, only its enums. robot-edge's additions live in edge_api.proto.
TEST(Messages, EdgeCloudProtoIsTheSpecificationAndNothingElse) {
  const google::protobuf::FileDescriptor* file = edge::EdgeTelemetry::descriptor()->file();
  const std::map<std::string, int> fields = {
      {"CloudCommand", 5},   {"VelocityCommand", 3}, {"TrajectoryRequest", 2},
      {"FullTrajectory", 1}, {"JointSegment", 3},    {"ModeCommand", 1},
      {"FirmwareAlert", 6},  {"EdgeTelemetry", 16},  {"EdgeEvent", 5},
      {"EdgeError", 3},      {"CanBusHealth", 5},    {"EdgeDiagnostics", 10},
      {"ControllerEvent", 3}};
  ASSERT_EQ(file->message_type_count(), static_cast<int>(fields.size()));
  for (int i = 0; i < file->message_type_count(); ++i) {
    const auto* m = file->message_type(i);
    ASSERT_TRUE(fields.contains(m->name())) << m->name() << " is not a message of seed 001";
    EXPECT_EQ(m->field_count(), fields.at(m->name())) << m->name();
    for (int f = 0; f < m->field_count(); ++f) {
      EXPECT_EQ(m->field(f)->number(), f + 1) << m->name() << "." << m->field(f)->name();
    }
  }
  ASSERT_EQ(file->enum_type_count(), 3);
  EXPECT_EQ(file->enum_type(0)->name(), "Mode");
  EXPECT_EQ(file->enum_type(1)->name(), "FirmwareMode");
  EXPECT_EQ(file->enum_type(2)->name(), "Subsystem");
}

}  // namespace
