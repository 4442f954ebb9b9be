#include "can/mit_codec.hpp"

#include <algorithm>
#include <cmath>

namespace robot_edge::can {
namespace {

float ClampToRange(float x, float lo, float hi) {
  if (std::isnan(x)) x = 0.0f;
  return std::clamp(x, lo, hi);
}

}  // namespace

std::uint32_t FloatToUint(float x, float lo, float hi, int bits) {
  const double steps = static_cast<double>((1u << bits) - 1u);
  const double span = static_cast<double>(hi) - static_cast<double>(lo);
  const double scaled = (static_cast<double>(ClampToRange(x, lo, hi)) - lo) * steps / span;
  return static_cast<std::uint32_t>(std::lround(std::clamp(scaled, 0.0, steps)));
}

float UintToFloat(std::uint32_t x, float lo, float hi, int bits) {
  const double steps = static_cast<double>((1u << bits) - 1u);
  const double span = static_cast<double>(hi) - static_cast<double>(lo);
  return static_cast<float>(static_cast<double>(x) * span / steps + lo);
}

Payload EncodeCommand(const MitCommand& c, const MitRanges& r) {
  const std::uint32_t p = FloatToUint(c.position_rad, -r.p_max, r.p_max, kPositionBits);
  const std::uint32_t v = FloatToUint(c.velocity_rad_s, -r.v_max, r.v_max, kVelocityBits);
  const std::uint32_t kp = FloatToUint(c.kp, 0.0f, r.kp_max, kGainBits);
  const std::uint32_t kd = FloatToUint(c.kd, 0.0f, r.kd_max, kGainBits);
  std::uint32_t t = FloatToUint(c.torque_nm, -r.t_max, r.t_max, kTorqueBits);
  // All fields at their maximum would read FF..FF FC/FD/FE: a special frame. Step the torque one
  // LSB down so a command can never enter or leave motor mode or zero the encoder.
  if (p == 0xFFFF && v == 0xFFF && kp == 0xFFF && kd == 0xFFF && t >= 0xFFC && t <= 0xFFE) {
    t = 0xFFB;
  }
  return Payload{
      static_cast<std::uint8_t>(p >> 8),
      static_cast<std::uint8_t>(p & 0xFF),
      static_cast<std::uint8_t>(v >> 4),
      static_cast<std::uint8_t>(((v & 0xF) << 4) | (kp >> 8)),
      static_cast<std::uint8_t>(kp & 0xFF),
      static_cast<std::uint8_t>(kd >> 4),
      static_cast<std::uint8_t>(((kd & 0xF) << 4) | (t >> 8)),
      static_cast<std::uint8_t>(t & 0xFF),
  };
}

bool DecodeCommand(std::span<const std::uint8_t> d, const MitRanges& r, MitCommand* out) {
  SpecialCommand special;
  if (d.size() != 8 || DecodeSpecial(d, &special)) return false;
  const std::uint32_t p = (d[0] << 8) | d[1];
  const std::uint32_t v = (d[2] << 4) | (d[3] >> 4);
  const std::uint32_t kp = ((d[3] & 0xF) << 8) | d[4];
  const std::uint32_t kd = (d[5] << 4) | (d[6] >> 4);
  const std::uint32_t t = ((d[6] & 0xF) << 8) | d[7];
  out->position_rad = UintToFloat(p, -r.p_max, r.p_max, kPositionBits);
  out->velocity_rad_s = UintToFloat(v, -r.v_max, r.v_max, kVelocityBits);
  out->kp = UintToFloat(kp, 0.0f, r.kp_max, kGainBits);
  out->kd = UintToFloat(kd, 0.0f, r.kd_max, kGainBits);
  out->torque_nm = UintToFloat(t, -r.t_max, r.t_max, kTorqueBits);
  return true;
}

std::uint8_t EncodeReply(const MitReply& reply, const MitRanges& r, ReplyLayout layout,
                         Payload* out) {
  const std::uint32_t p = FloatToUint(reply.position_rad, -r.p_max, r.p_max, kPositionBits);
  const std::uint32_t v = FloatToUint(reply.velocity_rad_s, -r.v_max, r.v_max, kVelocityBits);
  const std::uint32_t t = FloatToUint(reply.torque_nm, -r.t_max, r.t_max, kTorqueBits);
  *out = Payload{
      reply.motor_id,
      static_cast<std::uint8_t>(p >> 8),
      static_cast<std::uint8_t>(p & 0xFF),
      static_cast<std::uint8_t>(v >> 4),
      static_cast<std::uint8_t>(((v & 0xF) << 4) | (t >> 8)),
      static_cast<std::uint8_t>(t & 0xFF),
      0,
      0,
  };
  if (layout == ReplyLayout::kClassic6Byte) return 6;
  (*out)[6] = reply.temperature_c;
  (*out)[7] = reply.error_code;
  return 8;
}

bool DecodeReply(std::span<const std::uint8_t> d, const MitRanges& r, ReplyLayout layout,
                 MitReply* out) {
  const std::size_t needed = layout == ReplyLayout::kAk8Byte ? 8 : 6;
  if (d.size() < needed) return false;
  const std::uint32_t p = (d[1] << 8) | d[2];
  const std::uint32_t v = (d[3] << 4) | (d[4] >> 4);
  const std::uint32_t t = ((d[4] & 0xF) << 8) | d[5];
  out->motor_id = d[0];
  out->position_rad = UintToFloat(p, -r.p_max, r.p_max, kPositionBits);
  out->velocity_rad_s = UintToFloat(v, -r.v_max, r.v_max, kVelocityBits);
  out->torque_nm = UintToFloat(t, -r.t_max, r.t_max, kTorqueBits);
  out->temperature_c = layout == ReplyLayout::kAk8Byte ? d[6] : 0;
  out->error_code = layout == ReplyLayout::kAk8Byte ? d[7] : 0;
  return true;
}

Payload EncodeSpecial(SpecialCommand command) {
  return Payload{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, static_cast<std::uint8_t>(command)};
}

bool DecodeSpecial(std::span<const std::uint8_t> d, SpecialCommand* out) {
  if (d.size() != 8) return false;
  if (!std::all_of(d.begin(), d.begin() + 7, [](std::uint8_t b) { return b == 0xFF; })) {
    return false;
  }
  if (d[7] < 0xFC || d[7] > 0xFE) return false;
  *out = static_cast<SpecialCommand>(d[7]);
  return true;
}

const char* ToString(MotorError error) {
  switch (error) {
    case MotorError::kNone: return "none";
    case MotorError::kOvertemp: return "overtemperature";
    case MotorError::kOvercurrent: return "overcurrent";
    case MotorError::kOvervoltage: return "overvoltage";
    case MotorError::kUndervoltage: return "undervoltage";
    case MotorError::kEncoder: return "encoder fault";
    case MotorError::kPhase: return "phase fault";
    case MotorError::kOverload: return "overload";
    case MotorError::kCommLost: return "communication lost (motor timeout)";
    case MotorError::kUncalibrated: return "not calibrated";
    case MotorError::kOther: return "fault";
  }
  return "unknown error";
}

}  // namespace robot_edge::can
