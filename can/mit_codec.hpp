// The MIT "mini cheetah" CAN protocol of T-Motor AK / CubeMars / Damiao motors, as pure functions
// over bytes: no I/O, no state (the model: mjbots moteus_protocol.h).
//
// Command (host -> motor, standard id = motor id, 8 bytes), big-endian bit fields:
//   d0-d1 p_des[15:0] | d2 v_des[11:4] | d3 v_des[3:0]<<4 | kp[11:8] | d4 kp[7:0]
//   d5 kd[11:4] | d6 kd[3:0]<<4 | t_ff[11:8] | d7 t_ff[7:0]
// Reply (motor -> master id):
//   d0 motor id | d1-d2 p[15:0] | d3 v[11:4] | d4 v[3:0]<<4 | t[11:8] | d5 t[7:0]
//   AK variant only: d6 temperature (°C, unsigned) | d7 error code (MotorError)
// Special frames: FF FF FF FF FF FF FF then FC enter motor mode, FD exit, FE set zero.
//
// Floats map onto an n-bit field over [lo, hi] with span / (2^n - 1) per step, clamped first and
// rounded to nearest (the reference firmware truncates and does not clamp: an out-of-range value
// there wraps around to the other end of the range). NaN encodes as 0 (clamped into the range):
// zero gain, zero velocity, zero torque. A command whose bytes would read as a special frame (every
// field at its maximum) has its torque stepped down one LSB.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace robot_edge::can {

inline constexpr int kPositionBits = 16;
inline constexpr int kVelocityBits = 12;
inline constexpr int kGainBits = 12;
inline constexpr int kTorqueBits = 12;

using Payload = std::array<std::uint8_t, 8>;

// Ranges a motor model scales its fields over: p in ±p_max, v in ±v_max, t in ±t_max,
// kp in 0..kp_max, kd in 0..kd_max.
struct MitRanges {
  float p_max = 12.5f;    // rad
  float v_max = 50.0f;    // rad/s
  float t_max = 18.0f;    // N·m
  float kp_max = 500.0f;  // N·m/rad
  float kd_max = 5.0f;    // N·m·s/rad
};

enum class ReplyLayout {
  kAk8Byte,      // 8 bytes with temperature and error code
  kClassic6Byte  // 6 bytes
};

// A motor's fault, whatever its family (MOTOR_FAULT's value). 0..6 are also the error codes in
// byte 7 of an AK reply; the other families' fault fields map onto these (damiao_codec.hpp,
// robstride_codec.hpp).
enum class MotorError : std::uint8_t {
  kNone = 0,
  kOvertemp = 1,
  kOvercurrent = 2,
  kOvervoltage = 3,
  kUndervoltage = 4,
  kEncoder = 5,
  kPhase = 6,
  kOverload = 7,      // Damiao: overload
  kCommLost = 8,      // Damiao: the motor's own CAN-loss timeout fired
  kUncalibrated = 9,  // Robstride: encoder not calibrated
  kOther = 15,        // a fault bit or code this table does not name
};

// One PD + feed-forward target: torque = kp (p - p_meas) + kd (v - v_meas) + t.
struct MitCommand {
  float position_rad = 0;
  float velocity_rad_s = 0;
  float kp = 0;
  float kd = 0;
  float torque_nm = 0;
};

struct MitReply {
  std::uint8_t motor_id = 0;
  float position_rad = 0;
  float velocity_rad_s = 0;
  float torque_nm = 0;
  std::uint8_t temperature_c = 0;  // AK layout only
  std::uint8_t error_code = 0;     // AK layout only (MotorError)
};

enum class SpecialCommand : std::uint8_t {
  kEnterMotorMode = 0xFC,
  kExitMotorMode = 0xFD,
  kSetZero = 0xFE,  // never sent automatically
};

// Float <-> unsigned n-bit field over [lo, hi].
std::uint32_t FloatToUint(float x, float lo, float hi, int bits);
float UintToFloat(std::uint32_t x, float lo, float hi, int bits);

Payload EncodeCommand(const MitCommand& command, const MitRanges& ranges);
// False if `data` is not an 8-byte command (a special frame is not a command).
bool DecodeCommand(std::span<const std::uint8_t> data, const MitRanges& ranges, MitCommand* out);

// Writes the reply into `out`; returns its length (8 or 6).
std::uint8_t EncodeReply(const MitReply& reply, const MitRanges& ranges, ReplyLayout layout,
                         Payload* out);
// False if `data` is shorter than the layout needs.
bool DecodeReply(std::span<const std::uint8_t> data, const MitRanges& ranges, ReplyLayout layout,
                 MitReply* out);

Payload EncodeSpecial(SpecialCommand command);
// True (and *out set) if `data` is one of the three special frames.
bool DecodeSpecial(std::span<const std::uint8_t> data, SpecialCommand* out);

const char* ToString(MotorError error);

}  // namespace robot_edge::can
