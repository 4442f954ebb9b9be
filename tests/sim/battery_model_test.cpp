// The simulated pack: its voltage curve, the drain by energy used, fault injection's charge and
// switch, and the BMS frame it produces (decoded with the daemon's codec).
#include "sim/battery_model.hpp"

#include <gtest/gtest.h>

#include <span>

#include "can/bms_codec.hpp"

namespace robot_edge::sim {
namespace {

can::BmsReading Decode(const can_frame& f) {
  can::BmsReading r;
  EXPECT_TRUE(can::DecodeBms(std::span<const std::uint8_t>(f.data, f.len), &r));
  return r;
}

TEST(BatteryModel, VoltageIsLinearFromEmptyToFull) {
  BatteryModel b(0x180);
  EXPECT_DOUBLE_EQ(b.percent(), 80.0);
  EXPECT_DOUBLE_EQ(b.voltage_v(), 42.0 + 8.4 * 0.8);
  b.SetPercent(0);
  EXPECT_DOUBLE_EQ(b.voltage_v(), 42.0);  // 3.5 V a cell
  b.SetPercent(100);
  EXPECT_DOUBLE_EQ(b.voltage_v(), 50.4);  // 4.2 V a cell
  b.SetPercent(150);
  EXPECT_DOUBLE_EQ(b.percent(), 100.0);
  b.SetPercent(-3);
  EXPECT_DOUBLE_EQ(b.percent(), 0.0);
}

TEST(BatteryModel, TheFrameCarriesThePacksState) {
  const BatteryModel b(0x180);
  const can_frame f = b.Frame();
  EXPECT_EQ(f.can_id, 0x180u);
  EXPECT_EQ(f.len, 8);
  const can::BmsReading r = Decode(f);
  EXPECT_NEAR(r.voltage_v, 48.72f, 0.005f);
  EXPECT_NEAR(r.current_a, 1.5f, 0.005f);  // idle
  EXPECT_FLOAT_EQ(r.percent, 80.0f);
  EXPECT_FLOAT_EQ(r.temperature_c, 30.0f);
  EXPECT_EQ(r.status, 1u);  // discharging
}

// Idle: 1.5 A at ~48.7 V is ~73 W, 73 Wh an hour: 7.3 % of a 1000 Wh pack.
TEST(BatteryModel, IdleDrainsByTheElectronicsAlone) {
  BatteryModel b(0x180);
  for (int s = 0; s < 3600; ++s) b.Drain(0, 1.0);
  EXPECT_NEAR(b.percent(), 80.0 - 7.3, 0.05);
  EXPECT_DOUBLE_EQ(b.current_a(), 1.5);
}

TEST(BatteryModel, TheMotorsPowerDrawsCurrentAndEnergy) {
  BatteryModel b(0x180, {.capacity_wh = 1000, .initial_percent = 50, .idle_current_a = 0});
  b.Drain(900, 60);  // 900 W for a minute: 15 Wh, 1.5 %
  EXPECT_NEAR(b.percent(), 48.5, 1e-9);
  EXPECT_NEAR(b.current_a(), 900 / b.voltage_v(), 1e-9);
  EXPECT_NEAR(Decode(b.Frame()).current_a, 900 / b.voltage_v(), 0.006);
  b.Drain(-500, 60);  // braking: no regeneration
  EXPECT_NEAR(b.percent(), 48.5, 1e-9);
  EXPECT_DOUBLE_EQ(b.current_a(), 0.0);
}

TEST(BatteryModel, AnEmptyPackStaysAtZero) {
  BatteryModel b(0x180, {.initial_percent = 0.01});
  b.Drain(2000, 3600);
  EXPECT_DOUBLE_EQ(b.percent(), 0.0);
  EXPECT_FLOAT_EQ(Decode(b.Frame()).percent, 0.0f);
  EXPECT_NEAR(Decode(b.Frame()).voltage_v, 42.0f, 0.005f);
}

TEST(BatteryModel, FaultInjectionSetsTheChargeAndTheSwitch) {
  BatteryModel b(0x181);
  EXPECT_TRUE(b.enabled());
  b.SetEnabled(false);
  EXPECT_FALSE(b.enabled());
  b.SetPercent(15);
  EXPECT_FLOAT_EQ(Decode(b.Frame()).percent, 15.0f);
  EXPECT_EQ(b.Frame().can_id, 0x181u);
  b.SetEnabled(true);
  EXPECT_TRUE(b.enabled());
}

}  // namespace
}  // namespace robot_edge::sim
