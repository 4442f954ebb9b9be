// The battery from Linux's power-supply class (battery.source sysfs): the files of one supply's
// directory, e.g. /sys/class/power_supply/BAT0 (the kernel's ABI: Documentation/ABI/testing/
// sysfs-class-power). What is read, each file one value:
//   status       "Charging", "Discharging", "Not charging", "Full", "Unknown" -> BatteryStatus
//                (Not charging: on external power, neither filling nor draining -> kUnknown);
//                a `health` naming a failure (Overheat, Dead, Over voltage, ...) -> kFault
//   capacity     state of charge (%, 0..100); without it energy_now / energy_full, or
//                charge_now / charge_full
//   voltage_now  µV
//   current_now  µA; without it power_now (µW) / voltage_now
//   temp         0.1 °C
// The current's sign differs between drivers (the ABI says negative while discharging; ACPI
// batteries report a magnitude): with status Charging it is -|I|, with Discharging +|I| (our
// positive = discharging); with any other status the ABI's convention, -I.
// A file that is missing or does not hold a number leaves its value NaN.
//
// Threads: any; called by the API thread once a second, never by the control thread (it opens
// files and allocates).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "statemachine/io.hpp"

namespace robot_edge::daemon {

// The contents of a supply's files, as read (nullopt: missing or unreadable).
struct PowerSupplyFiles {
  std::optional<std::string> status, health;
  std::optional<std::string> capacity, energy_now, energy_full, charge_now, charge_full;
  std::optional<std::string> voltage_now, current_now, power_now, temp;
};

// Pure: the measurement the files describe, stamped `now_us`, or last_update_us -1 when no file
// holds a usable value.
sm::BatteryMeasurement ParsePowerSupply(const PowerSupplyFiles& files, std::int64_t now_us);

// Reads the files of directory `dir`.
PowerSupplyFiles ReadPowerSupplyFiles(const std::string& dir);

// Reads and parses `dir` at `now_us` (steady µs). On success *error is cleared; otherwise the
// measurement's last_update_us is -1 and *error says why, e.g. "battery.path
// /sys/class/power_supply/BAT0: no such power supply".
sm::BatteryMeasurement ReadPowerSupply(const std::string& dir, std::int64_t now_us,
                                       std::string* error);

}  // namespace robot_edge::daemon
