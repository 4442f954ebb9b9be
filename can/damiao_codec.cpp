#include "can/damiao_codec.hpp"

#include <algorithm>

namespace robot_edge::can::damiao {

Payload EncodeControl(Control control) {
  return Payload{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, static_cast<std::uint8_t>(control)};
}

bool DecodeControl(std::span<const std::uint8_t> d, Control* out) {
  if (d.size() != 8 ||
      !std::all_of(d.begin(), d.begin() + 7, [](std::uint8_t b) { return b == 0xFF; })) {
    return false;
  }
  switch (d[7]) {
    case 0xFB:
    case 0xFC:
    case 0xFD:
    case 0xFE: *out = static_cast<Control>(d[7]); return true;
    default: return false;
  }
}

bool DecodeFeedback(std::span<const std::uint8_t> d, const MitRanges& r, Feedback* out) {
  if (d.size() < 8) return false;
  const std::uint32_t p = (d[1] << 8) | d[2];
  const std::uint32_t v = (d[3] << 4) | (d[4] >> 4);
  const std::uint32_t t = ((d[4] & 0xF) << 8) | d[5];
  out->id_nibble = d[0] & 0x0F;
  out->state = d[0] >> 4;
  out->position_rad = UintToFloat(p, -r.p_max, r.p_max, kPositionBits);
  out->velocity_rad_s = UintToFloat(v, -r.v_max, r.v_max, kVelocityBits);
  out->torque_nm = UintToFloat(t, -r.t_max, r.t_max, kTorqueBits);
  out->mos_temperature_c = d[6];
  out->rotor_temperature_c = d[7];
  return true;
}

Payload EncodeFeedback(const Feedback& f, const MitRanges& r) {
  const std::uint32_t p = FloatToUint(f.position_rad, -r.p_max, r.p_max, kPositionBits);
  const std::uint32_t v = FloatToUint(f.velocity_rad_s, -r.v_max, r.v_max, kVelocityBits);
  const std::uint32_t t = FloatToUint(f.torque_nm, -r.t_max, r.t_max, kTorqueBits);
  return Payload{
      static_cast<std::uint8_t>((f.state << 4) | (f.id_nibble & 0x0F)),
      static_cast<std::uint8_t>(p >> 8),
      static_cast<std::uint8_t>(p & 0xFF),
      static_cast<std::uint8_t>(v >> 4),
      static_cast<std::uint8_t>(((v & 0xF) << 4) | (t >> 8)),
      static_cast<std::uint8_t>(t & 0xFF),
      f.mos_temperature_c,
      f.rotor_temperature_c,
  };
}

MotorError ErrorOf(std::uint8_t state) {
  switch (state) {
    case 0x0:
    case 0x1: return MotorError::kNone;
    case 0x8: return MotorError::kOvervoltage;
    case 0x9: return MotorError::kUndervoltage;
    case 0xA: return MotorError::kOvercurrent;
    case 0xB:
    case 0xC: return MotorError::kOvertemp;
    case 0xD: return MotorError::kCommLost;
    case 0xE: return MotorError::kOverload;
    default: return MotorError::kOther;
  }
}

bool IsEnabled(std::uint8_t state) { return state == 0x1; }

Payload EncodeRegister(const RegisterAccess& a) {
  const std::uint32_t v = a.value;
  return Payload{static_cast<std::uint8_t>(a.motor_id & 0xFF),
                 static_cast<std::uint8_t>(a.motor_id >> 8),
                 static_cast<std::uint8_t>(a.op),
                 a.rid,
                 static_cast<std::uint8_t>(v & 0xFF),
                 static_cast<std::uint8_t>((v >> 8) & 0xFF),
                 static_cast<std::uint8_t>((v >> 16) & 0xFF),
                 static_cast<std::uint8_t>(v >> 24)};
}

bool DecodeRegister(std::span<const std::uint8_t> d, RegisterAccess* out) {
  if (d.size() != 8) return false;
  switch (d[2]) {
    case 0x33:
    case 0x55:
    case 0xAA: break;
    default: return false;
  }
  out->motor_id = static_cast<std::uint16_t>(d[0] | (d[1] << 8));
  out->op = static_cast<RegisterOp>(d[2]);
  out->rid = d[3];
  out->value = static_cast<std::uint32_t>(d[4]) | (static_cast<std::uint32_t>(d[5]) << 8) |
               (static_cast<std::uint32_t>(d[6]) << 16) | (static_cast<std::uint32_t>(d[7]) << 24);
  return true;
}

}  // namespace robot_edge::can::damiao
