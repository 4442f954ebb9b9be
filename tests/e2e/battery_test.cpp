// End to end on vcan: the battery from the BMS's CAN frame (robot-edge-sim's simulated pack,
// config battery.source can) in the state stream, telemetry and diagnostics, and the BATTERY_LOW
// warning with its hysteresis.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "harness.hpp"

namespace robot_edge::e2e {
namespace {

constexpr std::uint32_t kBatteryLow = 9;  // edge_api.proto ALERT_BATTERY_LOW

bool BatteryLowActive(const edge::EdgeTelemetry& t) {
  for (const auto& a : t.active_alerts()) {
    if (a.id() == kBatteryLow) return true;
  }
  return false;
}

// Proves: the simulated pack's frame reaches every client: the state stream's JointState, the
// TelemetryExtension and the diagnostics carry its voltage, current, charge and status.
TEST(Battery, TheBmsFrameReachesTheStateTelemetryAndDiagnostics) {
  Robot robot;
  auto c = robot.Connect("");
  WaitMotorsReady(c);
  ASSERT_EQ(robot.Sim("battery 60").rfind("ok", 0), 0u);
  const auto t = WaitTelemetryMessage(
      c,
      [](const auto& m) {
        return m.telemetry_extension().has_battery() &&
               std::fabs(m.telemetry_extension().battery().percent() - 60.0f) < 1.0f;
      },
      3s);
  ASSERT_TRUE(t) << "no battery at 60 % in telemetry";
  const edge::BatteryState& b = t->telemetry_extension().battery();
  EXPECT_GT(b.voltage_v(), 40.0f);
  EXPECT_LT(b.voltage_v(), 52.0f);
  EXPECT_GT(b.current_a(), 0.0f) << "discharging";
  EXPECT_NEAR(b.power_w(), b.voltage_v() * b.current_a(), 0.01f * b.power_w());
  EXPECT_EQ(b.status(), edge::BATTERY_STATUS_DISCHARGING);
  EXPECT_GT(b.reading_time_us(), 0);

  ASSERT_TRUE(c.StreamState(50, 2s));
  std::optional<edge::JointState> state;
  for (int i = 0; i < 100 && !state; ++i) {
    auto m = c.Read(100ms);
    if (m && m->has_joint_state() && m->joint_state().has_battery()) state = m->joint_state();
  }
  ASSERT_TRUE(state) << "no JointState with the battery";
  EXPECT_NEAR(state->battery().percent(), 60.0f, 1.0f);
  EXPECT_GE(state->battery().wh_accumulated(), 0.0f);

  const auto d =
      WaitDiagnostics(c, 3s, [](const auto& m) { return m.diagnostics_extension().has_battery(); });
  ASSERT_TRUE(d) << "no battery in the diagnostics";
  EXPECT_NEAR(d->diagnostics_extension().battery().percent(), 60.0f, 1.0f);
}

// Proves: at or below 20 % BATTERY_LOW is raised (an EdgeError, an active warning in
// telemetry), the robot still stands up (a warning neither DAMPs nor blocks), at 22 % it stays
// (hysteresis), at 30 % it clears.
TEST(Battery, LowBatteryIsAWarningWithHysteresis) {
  Robot robot;
  auto c = robot.Connect("cloud");
  WaitMotorsReady(c);
  ASSERT_EQ(robot.Sim("battery 15").rfind("ok", 0), 0u);
  const auto error = WaitError(c, "BATTERY_LOW", 5s);
  ASSERT_TRUE(error) << "no BATTERY_LOW";
  EXPECT_NE(error->error().message().find("15 %"), std::string::npos) << error->error().message();
  const auto low = WaitTelemetry(c, BatteryLowActive, 3s);
  ASSERT_TRUE(low);
  for (const auto& a : low->active_alerts()) {
    if (a.id() == kBatteryLow) {
      EXPECT_EQ(a.severity(), 1u) << "SEVERITY_WARNING";
    }
  }
  EXPECT_TRUE(Command(c, Mode(edge::MODE_STAND)).accepted()) << "a warning does not block STAND";
  ASSERT_TRUE(WaitTelemetry(
      c, [](const auto& t) { return t.fw_mode() == edge::FW_MODE_STAND; }, 5s));

  ASSERT_EQ(robot.Sim("battery 22").rfind("ok", 0), 0u);
  std::this_thread::sleep_for(1s);
  const auto still = WaitTelemetry(
      c, [](const auto&) { return true; }, 2s);
  ASSERT_TRUE(still);
  EXPECT_TRUE(BatteryLowActive(*still)) << "cleared below clear_percent (25)";
  EXPECT_EQ(still->fw_mode(), edge::FW_MODE_STAND) << "never DAMP for a low battery";

  ASSERT_EQ(robot.Sim("battery 30").rfind("ok", 0), 0u);
  EXPECT_TRUE(WaitTelemetry(
      c, [](const auto& t) { return !BatteryLowActive(t); }, 3s))
      << "not cleared at 30 %";
  Command(c, Mode(edge::MODE_DAMP));
}

}  // namespace
}  // namespace robot_edge::e2e
