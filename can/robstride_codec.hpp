// Robstride RS0x / Xiaomi CyberGear motors in "operation control" mode, as pure functions over
// frames (Xiaomi CyberGear micro-motor manual, section 4 "communication protocol"; Robstride's
// RS01..RS04 manuals use the same private protocol).
//
// Every frame has a 29-bit id: bits 28..24 communication type, bits 23..8 "data area 2",
// bits 7..0 the target (the motor for host -> motor frames, the host for replies). Data 8 bytes.
//   type 1 operation control (host -> motor): data area 2 = torque (uint16 over ±t_max);
//          data: angle (±p_max), velocity (±v_max), kp (0..kp_max), kd (0..kd_max), each uint16
//          big-endian
//   type 2 feedback (motor -> host): data area 2 = mode << 14 | fault bits << 8 | motor id
//          (mode 0 reset, 1 calibration, 2 run; fault bits 0 undervoltage, 1 overcurrent,
//          2 overtemperature, 3 magnetic encoder fault, 4 HALL encoder fault, 5 not calibrated);
//          data: angle, velocity, torque (uint16 big-endian as above), temperature (°C × 10)
//   type 3 enable, type 4 stop (data[0] = 1 also clears faults), type 6 set mechanical zero
//          (data[0] = 1): data area 2 = the host id.
//   type 17 parameter read (host -> motor: data area 2 = host id; data 0-1 the index,
//          little-endian), answered with type 17 (data area 2 = motor id, target = host id; data
//          0-1 the index, 4-7 the value, little-endian); type 18 parameter write (as a read, with
//          the value in data 4-7), answered with a type 2 feedback frame.
//   Parameter 0x7028 (canTimeout, uint32) is the CAN-loss timeout in 20 counts a millisecond
//   (20000 = 1 s; 0: off): with no frame for that long the motor resets to mode 0.
// Floats map onto the 16-bit fields as in mit_codec.hpp (clamped, rounded; NaN as 0).
#pragma once

#include <linux/can.h>

#include <cstdint>

#include "can/mit_codec.hpp"

namespace robot_edge::can::robstride {

inline constexpr int kFieldBits = 16;

can_frame EncodeOperationControl(std::uint8_t motor_id, const MitCommand& command,
                                 const MitRanges& ranges);
// False unless `frame` is an extended type 1 frame of 8 bytes.
bool DecodeOperationControl(const can_frame& frame, const MitRanges& ranges, std::uint8_t* motor_id,
                            MitCommand* out);

enum class Request : std::uint8_t { kEnable = 3, kStop = 4, kSetZero = 6 };

can_frame EncodeRequest(Request request, std::uint8_t motor_id, std::uint8_t host_id,
                        bool clear_fault = false);
bool DecodeRequest(const can_frame& frame, Request* request, std::uint8_t* motor_id,
                   std::uint8_t* host_id, bool* clear_fault);

struct Feedback {
  std::uint8_t motor_id = 0;
  std::uint8_t host_id = 0;
  std::uint8_t fault_bits = 0;  // 6 bits, see above
  std::uint8_t mode = 0;        // 0 reset, 1 calibration, 2 run
  float position_rad = 0;
  float velocity_rad_s = 0;
  float torque_nm = 0;
  float temperature_c = 0;
};

// False unless `frame` is an extended type 2 frame of 8 bytes.
bool DecodeFeedback(const can_frame& frame, const MitRanges& ranges, Feedback* out);
can_frame EncodeFeedback(const Feedback& feedback, const MitRanges& ranges);

// The most serious fault set in `fault_bits` (kNone when none).
MotorError ErrorOf(std::uint8_t fault_bits);

inline constexpr std::uint16_t kCanTimeoutParameter = 0x7028;
inline constexpr std::uint32_t kCanTimeoutCountsPerMs = 20;

// A parameter read or write request (type 17 or 18), or a read's reply (type 17).
struct ParameterAccess {
  bool write = false;  // type 18; replies are reads
  std::uint8_t motor_id = 0;
  std::uint8_t host_id = 0;
  std::uint16_t index = 0;
  std::uint32_t value = 0;  // unused in a read request
};

can_frame EncodeParameterRequest(const ParameterAccess& access);
bool DecodeParameterRequest(const can_frame& frame, ParameterAccess* out);
can_frame EncodeParameterReply(const ParameterAccess& access);
// False unless `frame` is an extended type 17 frame of 8 bytes; the ids are read as a reply's.
bool DecodeParameterReply(const can_frame& frame, ParameterAccess* out);

}  // namespace robot_edge::can::robstride
