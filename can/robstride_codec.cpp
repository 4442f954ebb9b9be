#include "can/robstride_codec.hpp"

#include <algorithm>

namespace robot_edge::can::robstride {
namespace {

constexpr std::uint32_t kTypeOperation = 1;
constexpr std::uint32_t kTypeFeedback = 2;

canid_t Id(std::uint32_t type, std::uint32_t area2, std::uint8_t target) {
  return CAN_EFF_FLAG | ((type & 0x1F) << 24) | ((area2 & 0xFFFF) << 8) | target;
}

bool IsExtended8(const can_frame& f) {
  return (f.can_id & CAN_EFF_FLAG) != 0 && (f.can_id & (CAN_RTR_FLAG | CAN_ERR_FLAG)) == 0 &&
         f.len == 8;
}

std::uint32_t TypeOf(const can_frame& f) { return (f.can_id >> 24) & 0x1F; }
std::uint32_t Area2Of(const can_frame& f) { return (f.can_id >> 8) & 0xFFFF; }

void Put16(std::uint8_t* at, std::uint32_t v) {
  at[0] = static_cast<std::uint8_t>(v >> 8);
  at[1] = static_cast<std::uint8_t>(v & 0xFF);
}
std::uint32_t Get16(const std::uint8_t* at) { return (at[0] << 8) | at[1]; }

std::uint32_t Field(float x, float lo, float hi) { return FloatToUint(x, lo, hi, kFieldBits); }
float Value(std::uint32_t x, float lo, float hi) { return UintToFloat(x, lo, hi, kFieldBits); }

}  // namespace

can_frame EncodeOperationControl(std::uint8_t motor_id, const MitCommand& c, const MitRanges& r) {
  can_frame f{};
  f.can_id = Id(kTypeOperation, Field(c.torque_nm, -r.t_max, r.t_max), motor_id);
  f.len = 8;
  Put16(f.data + 0, Field(c.position_rad, -r.p_max, r.p_max));
  Put16(f.data + 2, Field(c.velocity_rad_s, -r.v_max, r.v_max));
  Put16(f.data + 4, Field(c.kp, 0.0f, r.kp_max));
  Put16(f.data + 6, Field(c.kd, 0.0f, r.kd_max));
  return f;
}

bool DecodeOperationControl(const can_frame& f, const MitRanges& r, std::uint8_t* motor_id,
                            MitCommand* out) {
  if (!IsExtended8(f) || TypeOf(f) != kTypeOperation) return false;
  *motor_id = static_cast<std::uint8_t>(f.can_id & 0xFF);
  out->torque_nm = Value(Area2Of(f), -r.t_max, r.t_max);
  out->position_rad = Value(Get16(f.data + 0), -r.p_max, r.p_max);
  out->velocity_rad_s = Value(Get16(f.data + 2), -r.v_max, r.v_max);
  out->kp = Value(Get16(f.data + 4), 0.0f, r.kp_max);
  out->kd = Value(Get16(f.data + 6), 0.0f, r.kd_max);
  return true;
}

can_frame EncodeRequest(Request request, std::uint8_t motor_id, std::uint8_t host_id,
                        bool clear_fault) {
  can_frame f{};
  f.can_id = Id(static_cast<std::uint32_t>(request), host_id, motor_id);
  f.len = 8;
  if (request == Request::kSetZero || (request == Request::kStop && clear_fault)) f.data[0] = 1;
  return f;
}

bool DecodeRequest(const can_frame& f, Request* request, std::uint8_t* motor_id,
                   std::uint8_t* host_id, bool* clear_fault) {
  if (!IsExtended8(f)) return false;
  const std::uint32_t type = TypeOf(f);
  if (type != 3 && type != 4 && type != 6) return false;
  *request = static_cast<Request>(type);
  *motor_id = static_cast<std::uint8_t>(f.can_id & 0xFF);
  *host_id = static_cast<std::uint8_t>(Area2Of(f) & 0xFF);
  *clear_fault = type == 4 && f.data[0] == 1;
  return true;
}

bool DecodeFeedback(const can_frame& f, const MitRanges& r, Feedback* out) {
  if (!IsExtended8(f) || TypeOf(f) != kTypeFeedback) return false;
  const std::uint32_t area2 = Area2Of(f);
  out->motor_id = static_cast<std::uint8_t>(area2 & 0xFF);
  out->fault_bits = static_cast<std::uint8_t>((area2 >> 8) & 0x3F);
  out->mode = static_cast<std::uint8_t>((area2 >> 14) & 0x3);
  out->host_id = static_cast<std::uint8_t>(f.can_id & 0xFF);
  out->position_rad = Value(Get16(f.data + 0), -r.p_max, r.p_max);
  out->velocity_rad_s = Value(Get16(f.data + 2), -r.v_max, r.v_max);
  out->torque_nm = Value(Get16(f.data + 4), -r.t_max, r.t_max);
  out->temperature_c = static_cast<float>(Get16(f.data + 6)) / 10.0f;
  return true;
}

can_frame EncodeFeedback(const Feedback& fb, const MitRanges& r) {
  can_frame f{};
  const std::uint32_t area2 = (static_cast<std::uint32_t>(fb.mode & 0x3) << 14) |
                              (static_cast<std::uint32_t>(fb.fault_bits & 0x3F) << 8) | fb.motor_id;
  f.can_id = Id(kTypeFeedback, area2, fb.host_id);
  f.len = 8;
  Put16(f.data + 0, Field(fb.position_rad, -r.p_max, r.p_max));
  Put16(f.data + 2, Field(fb.velocity_rad_s, -r.v_max, r.v_max));
  Put16(f.data + 4, Field(fb.torque_nm, -r.t_max, r.t_max));
  const float tenths = std::clamp(fb.temperature_c * 10.0f + 0.5f, 0.0f, 65535.0f);
  Put16(f.data + 6, static_cast<std::uint32_t>(tenths));
  return f;
}

MotorError ErrorOf(std::uint8_t bits) {
  if (bits & 0x02) return MotorError::kOvercurrent;
  if (bits & 0x04) return MotorError::kOvertemp;
  if (bits & 0x18) return MotorError::kEncoder;
  if (bits & 0x01) return MotorError::kUndervoltage;
  if (bits & 0x20) return MotorError::kUncalibrated;
  return MotorError::kNone;
}

namespace {

constexpr std::uint32_t kTypeParameterRead = 17;
constexpr std::uint32_t kTypeParameterWrite = 18;

void PutLe32(std::uint8_t* at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) at[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
std::uint32_t GetLe32(const std::uint8_t* at) {
  return at[0] | (at[1] << 8) | (at[2] << 16) | (static_cast<std::uint32_t>(at[3]) << 24);
}

can_frame ParameterFrame(std::uint32_t type, std::uint32_t area2, std::uint8_t target,
                         const ParameterAccess& a) {
  can_frame f{};
  f.can_id = Id(type, area2, target);
  f.len = 8;
  f.data[0] = static_cast<std::uint8_t>(a.index & 0xFF);
  f.data[1] = static_cast<std::uint8_t>(a.index >> 8);
  PutLe32(f.data + 4, a.value);
  return f;
}

void ReadParameterData(const can_frame& f, ParameterAccess* out) {
  out->index = static_cast<std::uint16_t>(f.data[0] | (f.data[1] << 8));
  out->value = GetLe32(f.data + 4);
}

}  // namespace

can_frame EncodeParameterRequest(const ParameterAccess& a) {
  ParameterAccess sent = a;
  if (!a.write) sent.value = 0;
  return ParameterFrame(a.write ? kTypeParameterWrite : kTypeParameterRead, a.host_id, a.motor_id,
                        sent);
}

bool DecodeParameterRequest(const can_frame& f, ParameterAccess* out) {
  if (!IsExtended8(f)) return false;
  const std::uint32_t type = TypeOf(f);
  if (type != kTypeParameterRead && type != kTypeParameterWrite) return false;
  out->write = type == kTypeParameterWrite;
  out->motor_id = static_cast<std::uint8_t>(f.can_id & 0xFF);
  out->host_id = static_cast<std::uint8_t>(Area2Of(f) & 0xFF);
  ReadParameterData(f, out);
  return true;
}

can_frame EncodeParameterReply(const ParameterAccess& a) {
  return ParameterFrame(kTypeParameterRead, a.motor_id, a.host_id, a);
}

bool DecodeParameterReply(const can_frame& f, ParameterAccess* out) {
  if (!IsExtended8(f) || TypeOf(f) != kTypeParameterRead) return false;
  out->write = false;
  out->motor_id = static_cast<std::uint8_t>(Area2Of(f) & 0xFF);
  out->host_id = static_cast<std::uint8_t>(f.can_id & 0xFF);
  ReadParameterData(f, out);
  return true;
}

}  // namespace robot_edge::can::robstride
