#include "daemon/api/battery_sysfs.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>

namespace robot_edge::daemon {
namespace {

std::string_view Trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// A file holding one integer; NaN when missing or anything else.
double Integer(const std::optional<std::string>& text) {
  if (!text) return NAN;
  const std::string_view t = Trim(*text);
  long long value = 0;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size()) return NAN;
  return static_cast<double>(value);
}

std::string_view Word(const std::optional<std::string>& text) {
  return text ? Trim(*text) : std::string_view();
}

// now / full in %, when both are numbers and full is positive.
double Ratio(const std::optional<std::string>& now, const std::optional<std::string>& full) {
  const double n = Integer(now), f = Integer(full);
  if (!(f > 0) || !(n >= 0)) return NAN;
  return std::min(100.0, 100.0 * n / f);
}

double PercentOf(const PowerSupplyFiles& f) {
  if (const double c = Integer(f.capacity); c >= 0 && c <= 100) return c;
  if (const double e = Ratio(f.energy_now, f.energy_full); !std::isnan(e)) return e;
  return Ratio(f.charge_now, f.charge_full);
}

// The health values of sysfs-class-power that name a failure (Good, Warm, Cool, Unknown,
// Calibration required, No battery do not).
constexpr std::string_view kFailures[] = {
    "Overheat", "Dead", "Over voltage",        "Under voltage",         "Over current",
    "Cold",     "Hot",  "Unspecified failure", "Watchdog timer expire", "Safety timer expire"};

bool IsFailure(std::string_view health) {
  return std::find(std::begin(kFailures), std::end(kFailures), health) != std::end(kFailures);
}

sm::BatteryStatus StatusOf(std::string_view status, std::string_view health) {
  if (IsFailure(health)) return sm::BatteryStatus::kFault;
  if (status == "Charging") return sm::BatteryStatus::kCharging;
  if (status == "Discharging") return sm::BatteryStatus::kDischarging;
  if (status == "Full") return sm::BatteryStatus::kFull;
  return sm::BatteryStatus::kUnknown;  // "Unknown", "Not charging", anything else
}

// Positive = discharging, whatever the driver's sign (see the header).
double CurrentOf(const PowerSupplyFiles& f, double voltage_v, std::string_view status) {
  double amps = Integer(f.current_now) * 1e-6;
  if (std::isnan(amps) && voltage_v > 0) amps = Integer(f.power_now) * 1e-6 / voltage_v;
  if (std::isnan(amps)) return NAN;
  if (status == "Charging") return -std::fabs(amps);
  if (status == "Discharging") return std::fabs(amps);
  return -amps;
}

std::optional<std::string> ReadValue(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

bool AnyRead(const PowerSupplyFiles& f) {
  for (const auto* file :
       {&f.status, &f.health, &f.capacity, &f.energy_now, &f.energy_full, &f.charge_now,
        &f.charge_full, &f.voltage_now, &f.current_now, &f.power_now, &f.temp}) {
    if (file->has_value()) return true;
  }
  return false;
}

void Set(std::string* error, std::string text) {
  if (error != nullptr) *error = std::move(text);
}

}  // namespace

sm::BatteryMeasurement ParsePowerSupply(const PowerSupplyFiles& f, std::int64_t now_us) {
  sm::BatteryMeasurement m;
  const std::string_view status = Word(f.status);
  const double voltage_v = Integer(f.voltage_now) * 1e-6;
  m.voltage_v = static_cast<float>(voltage_v);
  m.current_a = static_cast<float>(CurrentOf(f, voltage_v, status));
  m.percent = static_cast<float>(PercentOf(f));
  m.temperature_c = static_cast<float>(Integer(f.temp) / 10.0);
  m.status = StatusOf(status, Word(f.health));
  const bool usable = !std::isnan(m.voltage_v) || !std::isnan(m.current_a) ||
                      !std::isnan(m.percent) || !std::isnan(m.temperature_c) ||
                      m.status != sm::BatteryStatus::kUnknown;
  m.last_update_us = usable ? now_us : -1;
  return m;
}

PowerSupplyFiles ReadPowerSupplyFiles(const std::string& dir) {
  const std::filesystem::path d(dir);
  PowerSupplyFiles f;
  f.status = ReadValue(d / "status");
  f.health = ReadValue(d / "health");
  f.capacity = ReadValue(d / "capacity");
  f.energy_now = ReadValue(d / "energy_now");
  f.energy_full = ReadValue(d / "energy_full");
  f.charge_now = ReadValue(d / "charge_now");
  f.charge_full = ReadValue(d / "charge_full");
  f.voltage_now = ReadValue(d / "voltage_now");
  f.current_now = ReadValue(d / "current_now");
  f.power_now = ReadValue(d / "power_now");
  f.temp = ReadValue(d / "temp");
  return f;
}

sm::BatteryMeasurement ReadPowerSupply(const std::string& dir, std::int64_t now_us,
                                       std::string* error) {
  const std::string where = "battery.path " + dir + ": ";
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) {
    Set(error, where + "no such power supply");
    return {};
  }
  if (!std::filesystem::is_directory(dir, ec)) {
    Set(error, where + "not a directory (e.g. /sys/class/power_supply/BAT0)");
    return {};
  }
  const PowerSupplyFiles files = ReadPowerSupplyFiles(dir);
  if (!AnyRead(files)) {
    Set(error, where + "no readable status, capacity, voltage_now, current_now or temp file");
    return {};
  }
  const sm::BatteryMeasurement m = ParsePowerSupply(files, now_us);
  Set(error, m.last_update_us < 0 ? where + "no file holds a usable value" : std::string());
  return m;
}

}  // namespace robot_edge::daemon
