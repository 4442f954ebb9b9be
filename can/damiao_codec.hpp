// Damiao DM-J series motors in MIT mode, as pure functions over bytes (Damiao's DM-J4310-2EC
// manual, "MIT mode" and "feedback frame"; the layout as the vendor's examples and open-source
// drivers decode it: id = D0 & 0x0F, state = D0 >> 4).
//
// Command (host -> motor, standard id = the motor's CAN id, 8 bytes): bit for bit the MIT
// layout of mit_codec.hpp (p 16, v 12, kp 12, kd 12, t 12 bits, big-endian), so
// can::EncodeCommand / DecodeCommand serve; the ranges are the motor's PMAX, VMAX, TMAX settings.
// Control frames: FF FF FF FF FF FF FF then FC enable, FD disable, FE save the present position
// as zero, FB clear error.
// Feedback (motor -> its MST_ID, the bus's master id here, 8 bytes):
//   D0 state << 4 | id & 0x0F | D1-D2 position 16 | D3 v[11:4] | D4 v[3:0] << 4 | t[11:8] |
//   D5 t[7:0] | D6 MOS temperature (°C) | D7 rotor (coil) temperature (°C)
// State: 0 disabled, 1 enabled, 8 overvoltage, 9 undervoltage, A overcurrent, B MOS
// overtemperature, C rotor overtemperature, D communication lost, E overload.
// Registers (host -> standard id 0x7FF; the reply comes on MST_ID in the same layout):
//   D0-D1 the motor's CAN id, little-endian | D2 0x33 read, 0x55 write, 0xAA save to flash |
//   D3 register id (RID) | D4-D7 value, little-endian (uint32 or float, by register)
// RID 9 (TIMEOUT) is the CAN-loss timeout in 50 µs units (0: off): with no command for that long
// the motor leaves motor mode with state D.
#pragma once

#include <cstdint>
#include <span>

#include "can/mit_codec.hpp"

namespace robot_edge::can::damiao {

enum class Control : std::uint8_t {
  kEnable = 0xFC,
  kDisable = 0xFD,
  kSetZero = 0xFE,
  kClearError = 0xFB,
};

Payload EncodeControl(Control control);
// True (and *out set) when `data` is one of the four control frames.
bool DecodeControl(std::span<const std::uint8_t> data, Control* out);

struct Feedback {
  std::uint8_t id_nibble = 0;  // the motor's CAN id, low 4 bits
  std::uint8_t state = 0;      // see above
  float position_rad = 0;
  float velocity_rad_s = 0;
  float torque_nm = 0;
  std::uint8_t mos_temperature_c = 0;
  std::uint8_t rotor_temperature_c = 0;
};

// False when `data` is shorter than 8 bytes.
bool DecodeFeedback(std::span<const std::uint8_t> data, const MitRanges& ranges, Feedback* out);
Payload EncodeFeedback(const Feedback& feedback, const MitRanges& ranges);

MotorError ErrorOf(std::uint8_t state);

inline constexpr std::uint32_t kRegisterCanId = 0x7FF;
inline constexpr std::uint8_t kTimeoutRegister = 9;
inline constexpr std::uint32_t kTimeoutUnitsPerMs = 20;  // 50 µs units

enum class RegisterOp : std::uint8_t { kRead = 0x33, kWrite = 0x55, kSave = 0xAA };

// A register request or its reply (both have this layout).
struct RegisterAccess {
  std::uint16_t motor_id = 0;
  RegisterOp op = RegisterOp::kRead;
  std::uint8_t rid = 0;
  std::uint32_t value = 0;
};

Payload EncodeRegister(const RegisterAccess& access);
// False unless `data` is 8 bytes with a known op in D2.
bool DecodeRegister(std::span<const std::uint8_t> data, RegisterAccess* out);
bool IsEnabled(std::uint8_t state);

}  // namespace robot_edge::can::damiao
