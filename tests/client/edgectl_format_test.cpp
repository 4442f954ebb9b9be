// How robot-edgectl prints messages: names not numbers, joints by name, units, and JSON that
// keeps zero values (DAMP is 0).
#include <gtest/gtest.h>

#include <string>

#include "fake_daemon.hpp"
#include "tools/edgectl/format.hpp"

namespace robot_edge::edgectl {
namespace {

namespace fake = robot_edge::testing;

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

edge::FirmwareAlert Overtemp() {
  edge::FirmwareAlert a;
  a.set_id(edge::ALERT_MOTOR_OVERTEMP);
  a.set_severity(edge::SEVERITY_CRITICAL);
  a.set_value(82);
  a.set_threshold(80);
  a.set_source_id(3);
  return a;
}

TEST(EdgectlFormat, ModeNames) {
  EXPECT_EQ(ModeName(edge::CONTROL_MODE_DAMP), "DAMP");
  EXPECT_EQ(ModeName(edge::CONTROL_MODE_MOVE_TRAJECTORY), "MOVE/TRAJECTORY");
  EXPECT_EQ(ModeName(static_cast<edge::ControlMode>(9)), "mode 9");
  EXPECT_EQ(FirmwareModeName(edge::FW_MODE_DAMP), "DAMP");
  EXPECT_EQ(FirmwareModeName(edge::FW_MODE_MOVE), "MOVE");
}

TEST(EdgectlFormat, TimestampsAreUtcWithMilliseconds) {
  EXPECT_EQ(FormatTimestamp(0), "1970-01-01 00:00:00.000Z");
  EXPECT_EQ(FormatTimestamp(1717243200123456ull), "2024-06-01 12:00:00.123Z");
}

TEST(EdgectlFormat, AlertsNameTheJointAndUnits) {
  EXPECT_EQ(FormatAlert(Overtemp(), fake::JointNames()),
            "MOTOR_OVERTEMP (critical) L_Knee: 82 °C (trips at 80 °C)");
  edge::FirmwareAlert fault;
  fault.set_id(edge::ALERT_MOTOR_FAULT);
  fault.set_severity(edge::SEVERITY_CRITICAL);
  fault.set_value(2);
  fault.set_source_id(24);
  EXPECT_EQ(FormatAlert(fault, fake::JointNames()),
            "MOTOR_FAULT (critical) Neck_Yaw: fault code 2 (overcurrent)");
}

TEST(EdgectlFormat, StatusHasTheModeTheAlertsAndOneRowPerJoint) {
  edge::Welcome welcome = fake::Welcome(500.0f, "cloud").welcome();
  welcome.set_live_url("http://127.0.0.1:8765/");
  edge::ServerMessage m = fake::Telemetry(7, edge::CONTROL_MODE_MOVE_TRAJECTORY, fake::TestPose());
  *m.mutable_telemetry()->add_active_alerts() = Overtemp();
  const std::string text = FormatStatus(welcome, m.telemetry(), m.telemetry_extension());
  EXPECT_NE(text.find("robot       asimov-sim (robot-edged 0.1.0, control 500 Hz"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("mode        MOVE/TRAJECTORY (firmware MOVE)"), std::string::npos);
  EXPECT_NE(text.find("controller  cloud  [may command: ble, cloud]"), std::string::npos);
  EXPECT_NE(text.find("\nlive view   http://127.0.0.1:8765/\n"), std::string::npos) << text;
  EXPECT_NE(text.find("alerts      MOTOR_OVERTEMP (critical) L_Knee"), std::string::npos);
  for (const std::string& joint : fake::JointNames()) {
    EXPECT_EQ(Count(text, " " + joint + " "), 1u) << joint;
  }
  // Row 3: L_Knee at 0.030 rad, 33.0 °C, 0.30 A.
  EXPECT_NE(text.find("  3  L_Knee                 0.030      0.000     33.0       0.30"),
            std::string::npos)
      << text;
}

TEST(EdgectlFormat, StatusShowsTheBatteryAndItsLowAlert) {
  const edge::Welcome welcome = fake::Welcome(500.0f, "cloud").welcome();
  edge::ServerMessage m = fake::Telemetry(7, edge::CONTROL_MODE_STAND, fake::TestPose());
  edge::BatteryState* b = m.mutable_telemetry_extension()->mutable_battery();
  b->set_reading_time_us(123);
  b->set_voltage_v(44.4f);
  b->set_current_a(3.5f);
  b->set_power_w(155.4f);
  b->set_percent(18.0f);
  b->set_temperature_c(31.0f);
  b->set_wh_accumulated(12.44f);
  b->set_status(edge::BATTERY_STATUS_DISCHARGING);
  edge::FirmwareAlert* low = m.mutable_telemetry()->add_active_alerts();
  low->set_id(edge::ALERT_BATTERY_LOW);
  low->set_severity(edge::SEVERITY_WARNING);
  low->set_value(18);
  low->set_threshold(20);
  std::string text = FormatStatus(welcome, m.telemetry(), m.telemetry_extension());
  EXPECT_NE(text.find("battery     44.4 V  3.5 A (155 W)  18 %  31 °C  discharging, 12.4 Wh drawn"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("BATTERY_LOW (warning) charge 18 % (low at 20 %)"), std::string::npos)
      << text;
  b->set_reading_time_us(-1);
  text = FormatStatus(welcome, m.telemetry(), m.telemetry_extension());
  EXPECT_NE(text.find("battery     no reading yet"), std::string::npos) << text;
  m.mutable_telemetry_extension()->clear_battery();
  text = FormatStatus(welcome, m.telemetry(), m.telemetry_extension());
  EXPECT_EQ(text.find("battery"), std::string::npos) << "no battery source: no line";
}

TEST(EdgectlFormat, TelemetryLine) {
  edge::ServerMessage m = fake::Telemetry(7, edge::CONTROL_MODE_STAND, fake::TestPose());
  m.mutable_telemetry()->set_fw_age_ms(4);
  m.mutable_telemetry_extension()->set_last_command_sequence(57);
  *m.mutable_telemetry()->add_active_alerts() = Overtemp();
  const std::size_t shown[] = {3};
  EXPECT_EQ(FormatTelemetryLine(m.telemetry(), m.telemetry_extension(), fake::JointNames(), shown),
            "#7 STAND fw_age=4ms alerts=MOTOR_OVERTEMP cmd=#57 maxT=54.0°C(Neck_Yaw) "
            "maxI=2.40A(Neck_Yaw) L_Knee=0.030");
}

TEST(EdgectlFormat, EventLines) {
  edge::EdgeEvent e;
  e.set_sequence(12);
  e.set_timestamp_us(1717243200123456ull);
  e.mutable_error()->set_subsystem(edge::SUBSYSTEM_FIRMWARE);
  e.mutable_error()->set_code("MOTOR_OVERTEMP");
  e.mutable_error()->set_message("L_Knee at 82 °C");
  EXPECT_EQ(FormatEvent(e),
            "#12 2024-06-01 12:00:00.123Z error FIRMWARE MOTOR_OVERTEMP: L_Knee at 82 °C");
  e.mutable_controller()->set_current("cloud");
  e.mutable_controller()->set_reason("acquired");
  EXPECT_EQ(FormatEvent(e), "#12 2024-06-01 12:00:00.123Z controller (none) -> cloud (acquired)");
  const edge::ServerMessage d = fake::Diagnostics(13);
  const std::string diag = FormatEvent(d.event(), d.diagnostics_extension());
  EXPECT_NE(diag.find("diagnostics STAND, controller cloud, loop 499.9 Hz"), std::string::npos)
      << diag;
  EXPECT_NE(diag.find("CAN 1/2 up"), std::string::npos) << diag;
  EXPECT_NE(diag.find("3 command drops, 2 clients"), std::string::npos) << diag;
}

TEST(EdgectlFormat, DiagnosticsTableOneRowPerBusAndTheDrops) {
  const edge::ServerMessage d = fake::Diagnostics(13);
  const std::string text = FormatDiagnostics(d.event(), d.diagnostics_extension());
  EXPECT_NE(text.find("diagnostics #13 at 2024-06-01 12:00:00.123Z"), std::string::npos) << text;
  EXPECT_NE(text.find("left_leg     vcan0   up   ERROR_ACTIVE        1000"), std::string::npos)
      << text;
  EXPECT_NE(text.find("right_leg    vcan1   DOWN BUS_OFF             1001"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  velocity_in_damp         3\n"), std::string::npos) << text;
}

TEST(EdgectlFormat, DiagnosticsNameNonFinitePolicyOutputsOnlyWhenThereAreSome) {
  edge::ServerMessage m = fake::Diagnostics(13);
  m.mutable_event()->mutable_diagnostics()->set_onnx_count(500);
  EXPECT_EQ(FormatDiagnostics(m.event(), m.diagnostics_extension()).find("non-finite"),
            std::string::npos);
  m.mutable_diagnostics_extension()->set_onnx_nonfinite_outputs(7);
  const std::string text = FormatDiagnostics(m.event(), m.diagnostics_extension());
  EXPECT_NE(text.find("500 inferences, avg 0.00 ms, max 0.00 ms, 7 non-finite outputs (used as 0)"),
            std::string::npos)
      << text;
}

TEST(EdgectlFormat, JsonKeepsZeroValuesAndProtoNames) {
  const edge::ServerMessage m = fake::Telemetry(0, edge::CONTROL_MODE_DAMP, fake::TestPose());
  const std::string json = ToJson(m);
  EXPECT_NE(json.find("\"fw_mode\":\"FW_MODE_DAMP\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"control_mode\":\"CONTROL_MODE_DAMP\""), std::string::npos);
  EXPECT_NE(json.find("\"fw_age_ms\":0"), std::string::npos);
  EXPECT_EQ(json.find('\n'), std::string::npos);  // one line
}

}  // namespace
}  // namespace robot_edge::edgectl
