#include "can/bms_codec.hpp"

#include <algorithm>

namespace robot_edge::can {
namespace {

constexpr float kCentiPerUnit = 100.0f;  // 10 mV, 10 mA per count

// `value` clamped to lo..hi and rounded; NaN gives `nan_code`.
long Quantize(float value, float lo, float hi, long nan_code) {
  if (std::isnan(value)) return nan_code;
  return std::lround(std::clamp(value, lo, hi));
}

void PutLe16(std::uint16_t v, std::uint8_t* out) {
  out[0] = static_cast<std::uint8_t>(v & 0xFF);
  out[1] = static_cast<std::uint8_t>(v >> 8);
}

std::uint16_t GetLe16(const std::uint8_t* in) {
  return static_cast<std::uint16_t>(in[0] | (in[1] << 8));
}

}  // namespace

Payload EncodeBms(const BmsReading& r) {
  Payload out{};
  PutLe16(static_cast<std::uint16_t>(Quantize(r.voltage_v * kCentiPerUnit, 0, 65535, 0)), &out[0]);
  const long current = Quantize(r.current_a * kCentiPerUnit, -32767, 32767, 0);
  PutLe16(static_cast<std::uint16_t>(static_cast<std::int16_t>(current)), &out[2]);
  out[4] = static_cast<std::uint8_t>(Quantize(r.percent, 0, 100, kBmsPercentUnknown));
  const long celsius = Quantize(r.temperature_c, -127, 127, kBmsTemperatureUnknown);
  out[5] = static_cast<std::uint8_t>(static_cast<std::int8_t>(celsius));
  out[6] = r.status <= kBmsStatusMax ? r.status : 0;
  out[7] = 0;
  return out;
}

bool DecodeBms(std::span<const std::uint8_t> d, BmsReading* reading) {
  if (d.size() < kBmsMinLength) return false;
  if (d[4] > 100 && d[4] != kBmsPercentUnknown) return false;
  if (d[6] > kBmsStatusMax) return false;
  BmsReading r;
  r.voltage_v = GetLe16(&d[0]) / kCentiPerUnit;
  r.current_a = static_cast<std::int16_t>(GetLe16(&d[2])) / kCentiPerUnit;
  r.percent = d[4] == kBmsPercentUnknown ? NAN : static_cast<float>(d[4]);
  const auto celsius = static_cast<std::int8_t>(d[5]);
  r.temperature_c = celsius == kBmsTemperatureUnknown ? NAN : static_cast<float>(celsius);
  r.status = d[6];
  *reading = r;
  return true;
}

}  // namespace robot_edge::can
