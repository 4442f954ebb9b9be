// Every motor family's CAN frames behind one set of pure functions, so that the scheduler, the
// emergency stop and the simulator never branch on the family themselves. The families' own
// layouts: mit_codec.hpp (ak), damiao_codec.hpp (damiao), robstride_codec.hpp (robstride).
// Everything here is in motor space (joint_transform.hpp converts).
//
//   family     host -> motor                       motor -> host
//   ak         std id = motor id, MIT command;     std id = master id, byte 0 = motor id,
//              FF..FC enable, FD disable, FE zero  6 or 8 bytes (reply: classic | ak)
//   damiao     as ak; FF..FB clears a fault        std id = master id, byte 0 = state << 4 |
//                                                  motor id (low nibble), MOS and rotor °C
//   robstride  29-bit id: type 1 command (torque   29-bit id: type 2, motor id in bits 15..8,
//              in the id), 3 enable, 4 stop, 6     fault bits 21..16, host id = master id
//              zero; host id = master id
#pragma once

#include <linux/can.h>

#include <cstdint>

#include "can/mit_codec.hpp"
#include "can/wiring.hpp"

namespace robot_edge::can {

// How to talk to one motor model.
struct MotorProtocol {
  MotorFamily family = MotorFamily::kAk;
  MitRanges ranges;                            // the model's field ranges
  ReplyLayout layout = ReplyLayout::kAk8Byte;  // ak only
};

// The protocol of a configured motor model (the range table lives with its codec, here).
MotorProtocol ProtocolOf(const MotorModel& motor);

enum class MotorRequest : std::uint8_t {
  kEnable,      // ak/damiao FC (motor mode), robstride type 3
  kDisable,     // ak/damiao FD, robstride type 4
  kSetZero,     // ak/damiao FE, robstride type 6: the present position becomes the motor's 0
  kClearFault,  // damiao FB, robstride type 4 with clear; ak has none
};

// A reply, in motor space.
struct MotorReply {
  std::uint32_t motor_id = 0;
  float position_rad = 0;
  float velocity_rad_s = 0;
  float torque_nm = 0;
  float temperature_c = 0;               // the hottest reported (damiao: max of MOS and rotor)
  bool has_temperature = false;          // ak classic replies carry none
  MotorError error = MotorError::kNone;  // the family's fault field, mapped
  std::uint32_t raw_fault = 0;           // the family's fault field as sent (ak code, damiao state,
                                         // robstride fault bits)
  bool enabled = true;                   // damiao: state 1; robstride: mode "run"; ak: always
};

// ---- the host's side ----

// The command frame for motor `motor_id` on a bus whose master (host) id is `master_id`.
can_frame EncodeCommandFrame(const MotorProtocol& p, std::uint32_t motor_id,
                             std::uint32_t master_id, const MitCommand& command);
// False when the family has no such request (ak: kClearFault).
bool EncodeRequestFrame(const MotorProtocol& p, std::uint32_t motor_id, std::uint32_t master_id,
                        MotorRequest request, can_frame* out);
// The motor id a frame received on a bus with master id `master_id` claims to come from, if it
// is shaped as a reply of `family` (it may still be another family's: check the id's motor).
bool ReplySender(MotorFamily family, std::uint32_t master_id, const can_frame& frame,
                 std::uint32_t* motor_id);
// False when `frame` is not a complete reply of the protocol's family and layout.
bool DecodeReplyFrame(const MotorProtocol& p, const can_frame& frame, MotorReply* out);

// The motor's own CAN-loss timeout, where its family can be told over CAN (damiao register 9,
// robstride parameter 0x7028; ak firmware has no such request, its timeout is set with the
// vendor's tool). Values are in ms, rounded to the family's unit.
bool HasCanTimeoutSetting(MotorFamily family);
// False for a family without the setting.
bool EncodeCanTimeoutWrite(const MotorProtocol& p, std::uint32_t motor_id, std::uint32_t master_id,
                           std::uint32_t timeout_ms, can_frame* out);
bool EncodeCanTimeoutRead(const MotorProtocol& p, std::uint32_t motor_id, std::uint32_t master_id,
                          can_frame* out);
// A reply carrying the timeout (damiao: a register reply of RID 9, read or write; robstride: a
// parameter read reply of 0x7028) received on a bus with master id `master_id`.
bool DecodeCanTimeoutReply(MotorFamily family, std::uint32_t master_id, const can_frame& frame,
                           std::uint32_t* motor_id, std::uint32_t* timeout_ms);

// ---- the motor's side (the simulator) ----

// The motor id a host frame of `family` is addressed to (false: not shaped as that family's).
bool Addressee(MotorFamily family, const can_frame& frame, std::uint32_t* motor_id);

struct HostFrame {
  bool is_command = false;  // else a request
  MitCommand command;
  MotorRequest request = MotorRequest::kEnable;
};
// False when `frame` is neither a command nor a request the family knows.
bool DecodeHostFrame(const MotorProtocol& p, const can_frame& frame, HostFrame* out);

// A request to write or read the CAN-loss timeout, addressed to `motor_id`.
struct CanTimeoutRequest {
  bool write = false;
  std::uint32_t timeout_ms = 0;  // written (write only)
};
bool DecodeCanTimeoutRequest(const MotorProtocol& p, std::uint32_t motor_id, const can_frame& frame,
                             CanTimeoutRequest* out);
// The reply to such a request: the motor's timeout now (robstride answers a write with a feedback
// frame instead: false).
bool EncodeCanTimeoutReply(const MotorProtocol& p, std::uint32_t motor_id, std::uint32_t master_id,
                           bool to_write, std::uint32_t timeout_ms, can_frame* out);
can_frame EncodeReplyFrame(const MotorProtocol& p, std::uint32_t master_id,
                           const MotorReply& reply);

const char* ToString(MotorRequest request);

}  // namespace robot_edge::can
