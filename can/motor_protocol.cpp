#include "can/motor_protocol.hpp"

#include <algorithm>

#include "can/damiao_codec.hpp"
#include "can/robstride_codec.hpp"

namespace robot_edge::can {
namespace {

constexpr std::uint8_t kRobstrideRunMode = 2;  // feedback mode bits: 0 reset, 1 calibration, 2 run

can_frame StandardFrame(std::uint32_t id, const Payload& payload, std::uint8_t len = 8) {
  can_frame f{};
  f.can_id = id & CAN_SFF_MASK;
  f.len = len;
  std::copy(payload.begin(), payload.begin() + len, f.data);
  return f;
}

std::span<const std::uint8_t> DataOf(const can_frame& f) {
  return {f.data, std::min<std::size_t>(f.len, CAN_MAX_DLEN)};
}

bool IsStandard(const can_frame& f) {
  return (f.can_id & (CAN_EFF_FLAG | CAN_RTR_FLAG | CAN_ERR_FLAG)) == 0;
}

bool IsExtended(const can_frame& f) {
  return (f.can_id & CAN_EFF_FLAG) != 0 && (f.can_id & (CAN_RTR_FLAG | CAN_ERR_FLAG)) == 0;
}

// The first code in [0, limit) whose mapping is `error` (the simulator's fault injection speaks
// MotorError; each family reports its own code). `bits`: the codes are single bits.
template <typename Map>
std::uint32_t CodeFor(MotorError error, Map map, std::uint32_t limit, bool bits) {
  if (error == MotorError::kNone) return 0;
  std::uint32_t fallback = 0;
  for (std::uint32_t i = 1; i < limit; ++i) {
    const std::uint32_t code = bits ? (1u << (i - 1)) : i;
    const MotorError mapped = map(code);
    if (mapped == error) return code;
    if (fallback == 0 && mapped != MotorError::kNone) fallback = code;
  }
  return fallback;
}

MotorError AkError(std::uint8_t code) {
  return code <= static_cast<std::uint8_t>(MotorError::kPhase) ? static_cast<MotorError>(code)
                                                               : MotorError::kOther;
}

}  // namespace

const char* ToString(MotorFamily family) {
  switch (family) {
    case MotorFamily::kAk: return "ak";
    case MotorFamily::kDamiao: return "damiao";
    case MotorFamily::kRobstride: return "robstride";
  }
  return "?";
}

MotorProtocol ProtocolOf(const MotorModel& m) {
  MotorProtocol p;
  p.family = m.family;
  p.ranges = MitRanges{static_cast<float>(m.p_max_rad), static_cast<float>(m.v_max_rad_s),
                       static_cast<float>(m.t_max_nm), static_cast<float>(m.kp_max),
                       static_cast<float>(m.kd_max)};
  p.layout = m.reply == ReplyFormat::kAk8Byte ? ReplyLayout::kAk8Byte : ReplyLayout::kClassic6Byte;
  return p;
}

can_frame EncodeCommandFrame(const MotorProtocol& p, std::uint32_t motor_id,
                             std::uint32_t /*master_id*/, const MitCommand& command) {
  if (p.family == MotorFamily::kRobstride) {
    return robstride::EncodeOperationControl(static_cast<std::uint8_t>(motor_id), command,
                                             p.ranges);
  }
  return StandardFrame(motor_id, EncodeCommand(command, p.ranges));  // ak, damiao: MIT layout
}

bool EncodeRequestFrame(const MotorProtocol& p, std::uint32_t motor_id, std::uint32_t master_id,
                        MotorRequest request, can_frame* out) {
  switch (p.family) {
    case MotorFamily::kAk:
    case MotorFamily::kDamiao: {
      Payload payload;
      switch (request) {
        case MotorRequest::kEnable: payload = EncodeSpecial(SpecialCommand::kEnterMotorMode); break;
        case MotorRequest::kDisable: payload = EncodeSpecial(SpecialCommand::kExitMotorMode); break;
        case MotorRequest::kSetZero: payload = EncodeSpecial(SpecialCommand::kSetZero); break;
        case MotorRequest::kClearFault:
          if (p.family == MotorFamily::kAk) return false;
          payload = damiao::EncodeControl(damiao::Control::kClearError);
          break;
      }
      *out = StandardFrame(motor_id, payload);
      return true;
    }
    case MotorFamily::kRobstride: {
      const auto id = static_cast<std::uint8_t>(motor_id);
      const auto host = static_cast<std::uint8_t>(master_id);
      switch (request) {
        case MotorRequest::kEnable:
          *out = robstride::EncodeRequest(robstride::Request::kEnable, id, host);
          return true;
        case MotorRequest::kDisable:
          *out = robstride::EncodeRequest(robstride::Request::kStop, id, host);
          return true;
        case MotorRequest::kSetZero:
          *out = robstride::EncodeRequest(robstride::Request::kSetZero, id, host);
          return true;
        case MotorRequest::kClearFault:
          *out = robstride::EncodeRequest(robstride::Request::kStop, id, host, true);
          return true;
      }
    }
  }
  return false;
}

bool ReplySender(MotorFamily family, std::uint32_t master_id, const can_frame& f,
                 std::uint32_t* motor_id) {
  switch (family) {
    case MotorFamily::kAk:
    case MotorFamily::kDamiao:
      if (!IsStandard(f) || (f.can_id & CAN_SFF_MASK) != master_id || f.len < 1) return false;
      *motor_id = family == MotorFamily::kAk ? f.data[0] : (f.data[0] & 0x0F);
      return true;
    case MotorFamily::kRobstride: {
      robstride::Feedback fb;
      if (!IsExtended(f) || !robstride::DecodeFeedback(f, MitRanges{}, &fb)) return false;
      if (fb.host_id != (master_id & 0xFF)) return false;
      *motor_id = fb.motor_id;
      return true;
    }
  }
  return false;
}

bool DecodeReplyFrame(const MotorProtocol& p, const can_frame& f, MotorReply* out) {
  switch (p.family) {
    case MotorFamily::kAk: {
      MitReply r;
      if (!IsStandard(f) || !DecodeReply(DataOf(f), p.ranges, p.layout, &r)) return false;
      *out = {r.motor_id,
              r.position_rad,
              r.velocity_rad_s,
              r.torque_nm,
              static_cast<float>(r.temperature_c),
              p.layout == ReplyLayout::kAk8Byte,
              AkError(r.error_code),
              r.error_code};
      return true;
    }
    case MotorFamily::kDamiao: {
      damiao::Feedback fb;
      if (!IsStandard(f) || !damiao::DecodeFeedback(DataOf(f), p.ranges, &fb)) return false;
      *out = {fb.id_nibble,
              fb.position_rad,
              fb.velocity_rad_s,
              fb.torque_nm,
              static_cast<float>(std::max(fb.mos_temperature_c, fb.rotor_temperature_c)),
              true,
              damiao::ErrorOf(fb.state),
              fb.state};
      out->enabled = damiao::IsEnabled(fb.state);
      return true;
    }
    case MotorFamily::kRobstride: {
      robstride::Feedback fb;
      if (!IsExtended(f) || !robstride::DecodeFeedback(f, p.ranges, &fb)) return false;
      *out = {fb.motor_id,
              fb.position_rad,
              fb.velocity_rad_s,
              fb.torque_nm,
              fb.temperature_c,
              true,
              robstride::ErrorOf(fb.fault_bits),
              fb.fault_bits};
      out->enabled = fb.mode == kRobstrideRunMode;
      return true;
    }
  }
  return false;
}

bool Addressee(MotorFamily family, const can_frame& f, std::uint32_t* motor_id) {
  if (family == MotorFamily::kRobstride) {
    if (!IsExtended(f)) return false;
    *motor_id = f.can_id & 0xFF;  // bits 7..0: the target
    return true;
  }
  if (!IsStandard(f)) return false;
  damiao::RegisterAccess reg;
  if (family == MotorFamily::kDamiao && (f.can_id & CAN_SFF_MASK) == damiao::kRegisterCanId &&
      damiao::DecodeRegister(DataOf(f), &reg)) {
    *motor_id = reg.motor_id;  // registers are addressed in the data
    return true;
  }
  *motor_id = f.can_id & CAN_SFF_MASK;
  return true;
}

bool HasCanTimeoutSetting(MotorFamily family) {
  return family == MotorFamily::kDamiao || family == MotorFamily::kRobstride;
}

namespace {

bool EncodeCanTimeoutAccess(const MotorProtocol& p, std::uint32_t motor_id, std::uint32_t master_id,
                            bool write, std::uint32_t timeout_ms, can_frame* out) {
  if (p.family == MotorFamily::kDamiao) {
    const damiao::RegisterAccess reg{static_cast<std::uint16_t>(motor_id),
                                     write ? damiao::RegisterOp::kWrite : damiao::RegisterOp::kRead,
                                     damiao::kTimeoutRegister,
                                     write ? timeout_ms * damiao::kTimeoutUnitsPerMs : 0};
    *out = StandardFrame(damiao::kRegisterCanId, damiao::EncodeRegister(reg));
    return true;
  }
  if (p.family == MotorFamily::kRobstride) {
    *out = robstride::EncodeParameterRequest(
        {write, static_cast<std::uint8_t>(motor_id), static_cast<std::uint8_t>(master_id),
         robstride::kCanTimeoutParameter, timeout_ms * robstride::kCanTimeoutCountsPerMs});
    return true;
  }
  return false;
}

std::uint32_t RoundedDiv(std::uint32_t value, std::uint32_t by) { return (value + by / 2) / by; }

}  // namespace

bool EncodeCanTimeoutWrite(const MotorProtocol& p, std::uint32_t motor_id, std::uint32_t master_id,
                           std::uint32_t timeout_ms, can_frame* out) {
  return EncodeCanTimeoutAccess(p, motor_id, master_id, true, timeout_ms, out);
}

bool EncodeCanTimeoutRead(const MotorProtocol& p, std::uint32_t motor_id, std::uint32_t master_id,
                          can_frame* out) {
  return EncodeCanTimeoutAccess(p, motor_id, master_id, false, 0, out);
}

bool DecodeCanTimeoutReply(MotorFamily family, std::uint32_t master_id, const can_frame& f,
                           std::uint32_t* motor_id, std::uint32_t* timeout_ms) {
  if (family == MotorFamily::kDamiao) {
    damiao::RegisterAccess reg;
    if (!IsStandard(f) || (f.can_id & CAN_SFF_MASK) != master_id ||
        !damiao::DecodeRegister(DataOf(f), &reg) || reg.rid != damiao::kTimeoutRegister ||
        reg.op == damiao::RegisterOp::kSave) {
      return false;
    }
    *motor_id = reg.motor_id;
    *timeout_ms = RoundedDiv(reg.value, damiao::kTimeoutUnitsPerMs);
    return true;
  }
  if (family == MotorFamily::kRobstride) {
    robstride::ParameterAccess a;
    if (!robstride::DecodeParameterReply(f, &a) || a.host_id != (master_id & 0xFF) ||
        a.index != robstride::kCanTimeoutParameter) {
      return false;
    }
    *motor_id = a.motor_id;
    *timeout_ms = RoundedDiv(a.value, robstride::kCanTimeoutCountsPerMs);
    return true;
  }
  return false;
}

bool DecodeCanTimeoutRequest(const MotorProtocol& p, std::uint32_t motor_id, const can_frame& f,
                             CanTimeoutRequest* out) {
  if (p.family == MotorFamily::kDamiao) {
    damiao::RegisterAccess reg;
    if (!IsStandard(f) || (f.can_id & CAN_SFF_MASK) != damiao::kRegisterCanId ||
        !damiao::DecodeRegister(DataOf(f), &reg) || reg.motor_id != motor_id ||
        reg.rid != damiao::kTimeoutRegister || reg.op == damiao::RegisterOp::kSave) {
      return false;
    }
    *out = {reg.op == damiao::RegisterOp::kWrite,
            RoundedDiv(reg.value, damiao::kTimeoutUnitsPerMs)};
    return true;
  }
  if (p.family == MotorFamily::kRobstride) {
    robstride::ParameterAccess a;
    if (!robstride::DecodeParameterRequest(f, &a) || a.motor_id != motor_id ||
        a.index != robstride::kCanTimeoutParameter) {
      return false;
    }
    *out = {a.write, RoundedDiv(a.value, robstride::kCanTimeoutCountsPerMs)};
    return true;
  }
  return false;
}

bool EncodeCanTimeoutReply(const MotorProtocol& p, std::uint32_t motor_id, std::uint32_t master_id,
                           bool to_write, std::uint32_t timeout_ms, can_frame* out) {
  if (p.family == MotorFamily::kDamiao) {
    const damiao::RegisterAccess reg{
        static_cast<std::uint16_t>(motor_id),
        to_write ? damiao::RegisterOp::kWrite : damiao::RegisterOp::kRead, damiao::kTimeoutRegister,
        timeout_ms * damiao::kTimeoutUnitsPerMs};
    *out = StandardFrame(master_id, damiao::EncodeRegister(reg));
    return true;
  }
  if (p.family == MotorFamily::kRobstride && !to_write) {
    *out = robstride::EncodeParameterReply(
        {false, static_cast<std::uint8_t>(motor_id), static_cast<std::uint8_t>(master_id),
         robstride::kCanTimeoutParameter, timeout_ms * robstride::kCanTimeoutCountsPerMs});
    return true;
  }
  return false;
}

bool DecodeHostFrame(const MotorProtocol& p, const can_frame& f, HostFrame* out) {
  *out = HostFrame{};
  if (p.family == MotorFamily::kRobstride) {
    std::uint8_t id = 0, host = 0;
    robstride::Request request;
    bool clear = false;
    if (robstride::DecodeOperationControl(f, p.ranges, &id, &out->command)) {
      out->is_command = true;
      return true;
    }
    if (!robstride::DecodeRequest(f, &request, &id, &host, &clear)) return false;
    switch (request) {
      case robstride::Request::kEnable: out->request = MotorRequest::kEnable; return true;
      case robstride::Request::kStop:
        out->request = clear ? MotorRequest::kClearFault : MotorRequest::kDisable;
        return true;
      case robstride::Request::kSetZero: out->request = MotorRequest::kSetZero; return true;
    }
    return false;
  }
  // Damiao's register requests share the standard ids (0x7FF): never a command.
  if (p.family == MotorFamily::kDamiao && (f.can_id & CAN_SFF_MASK) == damiao::kRegisterCanId) {
    return false;
  }
  const auto data = DataOf(f);
  SpecialCommand special;
  if (DecodeSpecial(data, &special)) {
    out->request = special == SpecialCommand::kEnterMotorMode  ? MotorRequest::kEnable
                   : special == SpecialCommand::kExitMotorMode ? MotorRequest::kDisable
                                                               : MotorRequest::kSetZero;
    return true;
  }
  damiao::Control control;
  if (p.family == MotorFamily::kDamiao && damiao::DecodeControl(data, &control) &&
      control == damiao::Control::kClearError) {
    out->request = MotorRequest::kClearFault;
    return true;
  }
  out->is_command = DecodeCommand(data, p.ranges, &out->command);
  return out->is_command;
}

can_frame EncodeReplyFrame(const MotorProtocol& p, std::uint32_t master_id, const MotorReply& r) {
  const auto celsius = static_cast<std::uint8_t>(std::clamp(r.temperature_c + 0.5f, 0.0f, 255.0f));
  switch (p.family) {
    case MotorFamily::kAk: {
      MitReply reply{static_cast<std::uint8_t>(r.motor_id),
                     r.position_rad,
                     r.velocity_rad_s,
                     r.torque_nm,
                     celsius,
                     static_cast<std::uint8_t>(r.error)};
      Payload payload;
      const std::uint8_t len = EncodeReply(reply, p.ranges, p.layout, &payload);
      return StandardFrame(master_id, payload, len);
    }
    case MotorFamily::kDamiao: {
      const std::uint32_t state = r.error != MotorError::kNone
                                      ? CodeFor(r.error, damiao::ErrorOf, 16, false)
                                      : (r.enabled ? 1u : 0u);
      damiao::Feedback fb{static_cast<std::uint8_t>(r.motor_id & 0x0F),
                          static_cast<std::uint8_t>(state),
                          r.position_rad,
                          r.velocity_rad_s,
                          r.torque_nm,
                          celsius,
                          celsius};
      return StandardFrame(master_id, damiao::EncodeFeedback(fb, p.ranges));
    }
    case MotorFamily::kRobstride: {
      const std::uint32_t bits = CodeFor(r.error, robstride::ErrorOf, 7, true);
      robstride::Feedback fb{static_cast<std::uint8_t>(r.motor_id),
                             static_cast<std::uint8_t>(master_id),
                             static_cast<std::uint8_t>(bits),
                             static_cast<std::uint8_t>(r.enabled ? kRobstrideRunMode : 0),
                             r.position_rad,
                             r.velocity_rad_s,
                             r.torque_nm,
                             r.temperature_c};
      return robstride::EncodeFeedback(fb, p.ranges);
    }
  }
  return can_frame{};
}

const char* ToString(MotorRequest request) {
  switch (request) {
    case MotorRequest::kEnable: return "enable";
    case MotorRequest::kDisable: return "disable";
    case MotorRequest::kSetZero: return "set zero";
    case MotorRequest::kClearFault: return "clear fault";
  }
  return "?";
}

}  // namespace robot_edge::can
