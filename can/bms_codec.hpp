// The battery management system's (BMS) CAN frame, as pure functions over bytes.
//   BMS frame (BatteryConfig::can_id, standard id), 8 bytes, little-endian:
//     d0-d1 voltage            uint16, 10 mV   (0..655.35 V)
//     d2-d3 current            int16, 10 mA    (±327.67 A; positive = discharging)
//     d4    state of charge    uint8, %        (0..100; 0xFF = unknown)
//     d5    temperature        int8, °C        (-127..127; -128 = unknown)
//     d6    status             uint8           (0 unknown, 1 discharging, 2 charging, 3 full,
//                                               4 fault: sm::BatteryStatus's order)
//     d7    reserved, 0 (ignored on receipt)
// can/ does not know the state machine: the reading here is the frame's, the daemon maps it.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>

#include "can/mit_codec.hpp"

namespace robot_edge::can {

inline constexpr std::size_t kBmsMinLength = 7;  // d7 is reserved: a 7-byte frame is whole
inline constexpr std::uint8_t kBmsPercentUnknown = 0xFF;
inline constexpr std::int8_t kBmsTemperatureUnknown = -128;
inline constexpr std::uint8_t kBmsStatusMax = 4;  // fault

// One BMS reading. `status` is 0..kBmsStatusMax as in the frame.
struct BmsReading {
  float voltage_v = NAN;
  float current_a = NAN;      // positive: discharging
  float percent = NAN;        // state of charge 0..100; NaN = unknown
  float temperature_c = NAN;  // NaN = unknown
  std::uint8_t status = 0;    // 0 unknown, 1 discharging, 2 charging, 3 full, 4 fault
};

// Each field clamped to its range and rounded; NaN voltage or current is sent as 0, NaN percent
// or temperature as the unknown code; a status beyond kBmsStatusMax as 0 (unknown).
Payload EncodeBms(const BmsReading& reading);

// False (and *reading untouched) when the frame is garbled: shorter than kBmsMinLength, a state
// of charge above 100 that is not 0xFF, or a status above kBmsStatusMax. A garbled frame is
// refused whole, never half-used.
bool DecodeBms(std::span<const std::uint8_t> data, BmsReading* reading);

}  // namespace robot_edge::can
