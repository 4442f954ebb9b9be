// The battery from Linux's power-supply class: the pure parse of the files' contents (units, the
// current's sign across drivers, fallbacks, garbage), then real files in a temporary directory
// (a charging battery, a missing directory, garbage).
#include "daemon/api/battery_sysfs.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace robot_edge::daemon {
namespace {

using sm::BatteryStatus;
constexpr std::int64_t kNow = 5'000'000;

// ---- ParsePowerSupply: contents as the kernel writes them (one value and a newline) ----

TEST(ParsePowerSupply, AnAcpiLaptopBatteryDischarging) {
  PowerSupplyFiles f;
  f.status = "Discharging\n";
  f.capacity = "57\n";
  f.voltage_now = "11400000\n";  // µV
  f.current_now = "1520000\n";   // µA, a magnitude (ACPI)
  const sm::BatteryMeasurement m = ParsePowerSupply(f, kNow);
  EXPECT_EQ(m.status, BatteryStatus::kDischarging);
  EXPECT_FLOAT_EQ(m.percent, 57.0f);
  EXPECT_FLOAT_EQ(m.voltage_v, 11.4f);
  EXPECT_FLOAT_EQ(m.current_a, 1.52f);
  EXPECT_TRUE(std::isnan(m.temperature_c)) << "no temp file";
  EXPECT_EQ(m.last_update_us, kNow);
}

// The status decides the sign when it can; otherwise the ABI's convention (negative while
// discharging) is turned into ours (positive while discharging).
TEST(ParsePowerSupply, TheCurrentsSignFollowsTheStatusThenTheAbi) {
  PowerSupplyFiles f;
  f.voltage_now = "48000000";
  f.current_now = "-2000000";  // the ABI: discharging
  f.status = "Discharging";
  EXPECT_FLOAT_EQ(ParsePowerSupply(f, kNow).current_a, 2.0f);
  f.status = "Charging";
  EXPECT_FLOAT_EQ(ParsePowerSupply(f, kNow).current_a, -2.0f);
  f.current_now = "2000000";  // the ABI: charging, or an ACPI magnitude
  EXPECT_FLOAT_EQ(ParsePowerSupply(f, kNow).current_a, -2.0f);
  f.status = "Unknown";
  EXPECT_FLOAT_EQ(ParsePowerSupply(f, kNow).current_a, -2.0f);
  f.current_now = "-2000000";
  f.status.reset();
  EXPECT_FLOAT_EQ(ParsePowerSupply(f, kNow).current_a, 2.0f);
}

TEST(ParsePowerSupply, PowerOverVoltageWithoutACurrentFile) {
  PowerSupplyFiles f;
  f.status = "Discharging";
  f.voltage_now = "12000000";
  f.power_now = "24000000";  // µW
  EXPECT_FLOAT_EQ(ParsePowerSupply(f, kNow).current_a, 2.0f);
  f.status = "Charging";
  EXPECT_FLOAT_EQ(ParsePowerSupply(f, kNow).current_a, -2.0f);
  f.voltage_now.reset();
  EXPECT_TRUE(std::isnan(ParsePowerSupply(f, kNow).current_a)) << "no voltage to divide by";
}

TEST(ParsePowerSupply, ChargeFromEnergyOrChargeWithoutCapacity) {
  PowerSupplyFiles f;
  f.energy_now = "30000000";  // µWh
  f.energy_full = "60000000";
  EXPECT_FLOAT_EQ(ParsePowerSupply(f, kNow).percent, 50.0f);
  f.energy_now.reset();
  f.charge_now = "1000000";  // µAh
  f.charge_full = "4000000";
  EXPECT_FLOAT_EQ(ParsePowerSupply(f, kNow).percent, 25.0f);
  f.capacity = "81";
  EXPECT_FLOAT_EQ(ParsePowerSupply(f, kNow).percent, 81.0f) << "capacity first";
  f.charge_full = "0";
  f.capacity.reset();
  EXPECT_TRUE(std::isnan(ParsePowerSupply(f, kNow).percent));
}

TEST(ParsePowerSupply, StatusesTemperatureAndHealth) {
  PowerSupplyFiles f;
  f.temp = "315\n";  // 0.1 °C
  EXPECT_FLOAT_EQ(ParsePowerSupply(f, kNow).temperature_c, 31.5f);
  const std::pair<const char*, BatteryStatus> statuses[] = {
      {"Charging", BatteryStatus::kCharging}, {"Discharging", BatteryStatus::kDischarging},
      {"Full", BatteryStatus::kFull},         {"Not charging", BatteryStatus::kUnknown},
      {"Unknown", BatteryStatus::kUnknown},   {"Sideways", BatteryStatus::kUnknown}};
  for (const auto& [text, status] : statuses) {
    f.status = std::string(text) + "\n";
    EXPECT_EQ(ParsePowerSupply(f, kNow).status, status) << text;
  }
  f.status = "Discharging\n";
  f.health = "Good\n";
  EXPECT_EQ(ParsePowerSupply(f, kNow).status, BatteryStatus::kDischarging);
  f.health = "Overheat\n";
  EXPECT_EQ(ParsePowerSupply(f, kNow).status, BatteryStatus::kFault);
  f.health = "Over voltage\n";
  EXPECT_EQ(ParsePowerSupply(f, kNow).status, BatteryStatus::kFault);
}

TEST(ParsePowerSupply, GarbageLeavesNaNAndNothingUsableIsNoReading) {
  PowerSupplyFiles f;
  f.capacity = "lots\n";
  f.voltage_now = "12.5V\n";
  f.current_now = "\n";
  f.temp = "0x20";
  f.status = "Discharging\n";
  sm::BatteryMeasurement m = ParsePowerSupply(f, kNow);
  EXPECT_TRUE(std::isnan(m.percent));
  EXPECT_TRUE(std::isnan(m.voltage_v));
  EXPECT_TRUE(std::isnan(m.current_a));
  EXPECT_TRUE(std::isnan(m.temperature_c));
  EXPECT_EQ(m.last_update_us, kNow) << "the status is a reading";
  f.status = "Unknown\n";
  f.capacity = "150";  // beyond 100 %
  m = ParsePowerSupply(f, kNow);
  EXPECT_TRUE(std::isnan(m.percent));
  EXPECT_EQ(m.last_update_us, -1);
  EXPECT_EQ(ParsePowerSupply(PowerSupplyFiles{}, kNow).last_update_us, -1);
}

// ---- ReadPowerSupply: real files ----

class PowerSupplyDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/robot-edge-battery.XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    root_ = dir;
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  // Creates supply `name` holding the files `files` (name, contents); returns its directory.
  std::string Supply(const std::string& name,
                     std::initializer_list<std::pair<const char*, const char*>> files) {
    const std::filesystem::path dir = root_ / name;
    std::filesystem::create_directories(dir);
    for (const auto& [file, contents] : files) std::ofstream(dir / file) << contents;
    return dir.string();
  }

  std::filesystem::path root_;
};

TEST_F(PowerSupplyDir, AChargingBattery) {
  const std::string dir = Supply("BAT0", {{"type", "Battery\n"},
                                          {"status", "Charging\n"},
                                          {"capacity", "42\n"},
                                          {"voltage_now", "16800000\n"},
                                          {"current_now", "2500000\n"},
                                          {"temp", "287\n"}});
  std::string error = "stale";
  const sm::BatteryMeasurement m = ReadPowerSupply(dir, kNow, &error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(m.last_update_us, kNow);
  EXPECT_EQ(m.status, BatteryStatus::kCharging);
  EXPECT_FLOAT_EQ(m.percent, 42.0f);
  EXPECT_FLOAT_EQ(m.voltage_v, 16.8f);
  EXPECT_FLOAT_EQ(m.current_a, -2.5f) << "charging: into the pack";
  EXPECT_FLOAT_EQ(m.temperature_c, 28.7f);
}

TEST_F(PowerSupplyDir, MissingFilesLeaveTheirValuesUnknown) {
  const std::string dir = Supply("BAT1", {{"capacity", "12\n"}});
  std::string error;
  const sm::BatteryMeasurement m = ReadPowerSupply(dir, kNow, &error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(m.last_update_us, kNow);
  EXPECT_FLOAT_EQ(m.percent, 12.0f);
  EXPECT_TRUE(std::isnan(m.voltage_v));
  EXPECT_TRUE(std::isnan(m.current_a));
  EXPECT_EQ(m.status, BatteryStatus::kUnknown);
}

TEST_F(PowerSupplyDir, AMissingDirectoryIsNoSuchPowerSupply) {
  const std::string dir = (root_ / "BAT9").string();
  std::string error;
  const sm::BatteryMeasurement m = ReadPowerSupply(dir, kNow, &error);
  EXPECT_EQ(m.last_update_us, -1);
  EXPECT_TRUE(std::isnan(m.percent));
  EXPECT_EQ(error, "battery.path " + dir + ": no such power supply");
  EXPECT_EQ(ReadPowerSupply(dir, kNow, nullptr).last_update_us, -1) << "no error wanted";
}

TEST_F(PowerSupplyDir, AFileIsNotAPowerSupply) {
  const std::string file = (root_ / "capacity").string();
  std::ofstream(file) << "50\n";
  std::string error;
  EXPECT_EQ(ReadPowerSupply(file, kNow, &error).last_update_us, -1);
  EXPECT_EQ(error,
            "battery.path " + file + ": not a directory (e.g. /sys/class/power_supply/BAT0)");
}

TEST_F(PowerSupplyDir, NoReadableFileAtAll) {
  const std::string dir = Supply("empty", {{"type", "Battery\n"}});
  std::string error;
  EXPECT_EQ(ReadPowerSupply(dir, kNow, &error).last_update_us, -1);
  EXPECT_EQ(error, "battery.path " + dir +
                       ": no readable status, capacity, voltage_now, current_now or temp file");
}

TEST_F(PowerSupplyDir, GarbageContents) {
  const std::string dir = Supply("junk", {{"status", "Unknown\n"},
                                          {"capacity", "many\n"},
                                          {"voltage_now", "\x01\x02\n"},
                                          {"temp", ""}});
  std::string error;
  const sm::BatteryMeasurement m = ReadPowerSupply(dir, kNow, &error);
  EXPECT_EQ(m.last_update_us, -1);
  EXPECT_TRUE(std::isnan(m.percent));
  EXPECT_TRUE(std::isnan(m.voltage_v));
  EXPECT_EQ(error, "battery.path " + dir + ": no file holds a usable value");
}

}  // namespace
}  // namespace robot_edge::daemon
