// What can/ knows of the robot: its motor models, its buses, which motor drives each joint and
// how it is mounted, and the ids of the IMU's and the BMS's frames. config/ parses the YAML into
// these types (MotorModel and BusConfig are config::Config's own) and builds the Wiring once at
// start-up (config/wiring.hpp), the way it builds the joint table for statemachine/.
//
// Threads: built and copied at start-up only; the control thread reads copies of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "can/joint_transform.hpp"

namespace robot_edge::can {

// The most joints and buses a robot may have (config's Validate() enforces them); the emergency
// sender's stack is sized for them.
inline constexpr std::size_t kMaxJoints = 128;
inline constexpr std::size_t kMaxBuses = 16;
// Index of a bus or motor name that names nothing (config's Validate() reports it).
inline constexpr std::size_t kUnresolved = static_cast<std::size_t>(-1);

// Which CAN protocol a motor speaks: each family's frames are in can/<family>_codec.hpp.
enum class MotorFamily {
  kAk,        ///< "ak": T-Motor AK / CubeMars MIT mode: standard ids, FC/FD/FE, reply per `reply`
  kDamiao,    ///< "damiao": Damiao DM-J MIT mode: standard ids, state nibble, MOS/rotor °C
  kRobstride  ///< "robstride": Robstride / Xiaomi CyberGear operation control: 29-bit ids
};
// "ak", "damiao", "robstride".
const char* ToString(MotorFamily family);

// Layout of an MIT-protocol motor's reply frame.
enum class ReplyFormat {
  kAk8Byte,      ///< "ak": 8 bytes, temperature (°C) in byte 6, error code in byte 7
  kClassic6Byte  ///< "classic": 6 bytes, no temperature, no error code
};

// An MIT-protocol motor model: the ranges its 16/12-bit fields are scaled over.
// yaml: motors.<name>
struct MotorModel {
  std::string name;                           ///< the key under motors:
  MotorFamily family = MotorFamily::kAk;      ///< family: ak | damiao | robstride
  double p_max_rad = 12.5;                    ///< p_max: position field spans ±p_max (rad)
  double v_max_rad_s = 50.0;                  ///< v_max: velocity field spans ±v_max (rad/s)
  double t_max_nm = 18.0;                     ///< t_max: torque field spans ±t_max (N·m)
  double kp_max = 500.0;                      ///< kp_max: kp field spans 0..kp_max (N·m/rad)
  double kd_max = 5.0;                        ///< kd_max: kd field spans 0..kd_max (N·m·s/rad)
  ReplyFormat reply = ReplyFormat::kAk8Byte;  ///< reply: ak | classic (family ak only)
  double torque_constant_nm_per_a = 0.8;      ///< torque_constant: output N·m per A
  std::uint32_t can_timeout_ms = 0;  ///< can_timeout_ms: the CAN-loss timeout configured in the
                                     ///< motor's own firmware (with its vendor's tool): after this
                                     ///< long without a command it stops driving. What keeps a
                                     ///< motor safe when nothing sends DAMP. 0 = none or
                                     ///< unknown (a start-up warning)

  bool operator==(const MotorModel&) const = default;
};

// One CAN bus. yaml: buses[i]
struct BusConfig {
  std::string name;                 ///< name: logical name used by joints and imu (e.g. left_leg)
  std::string interface;            ///< interface: network interface (e.g. vcan0, can0)
  std::uint32_t bitrate = 1000000;  ///< bitrate (bit/s); set only on real CAN hardware, 0 = keep
  std::uint32_t restart_ms = 100;   ///< restart_ms: kernel auto-restart after bus-off; 0 = the
                                    ///< daemon restarts the controller itself
  std::uint32_t master_id = 0;      ///< master_id: CAN id the motors send their replies to

  bool operator==(const BusConfig&) const = default;
};

// The motor of one joint (yaml: joints[i]'s name, bus, can_id, motor, offset, direction,
// gear_ratio, damp_kd).
struct JointMotor {
  std::string joint;                // the joint's name, for messages
  std::size_t bus = kUnresolved;    // index into Wiring::buses
  std::uint32_t can_id = 0;         // the motor's CAN id
  std::size_t motor = kUnresolved;  // index into Wiring::motors (its model)
  JointTransform transform;         // how it is mounted
  float damp_kd = 0;                // DAMP's damping at the joint (N·m·s/rad)
};

// The IMU's frames (yaml: imu; their layout: imu_codec.hpp).
struct ImuFrames {
  std::size_t bus = kUnresolved;  // index into Wiring::buses
  std::uint32_t quat_id = 0x101;  // quaternion frame's standard id
  std::uint32_t gyro_id = 0x102;  // angular-velocity frame's standard id
  std::uint32_t accel_id = 0;     // accelerometer frame's standard id; 0 = none
};

// The BMS's frame (yaml: battery with source can; its layout: bms_codec.hpp).
struct BmsFrame {
  bool on_can = false;            // false: the battery is not read from CAN
  std::size_t bus = kUnresolved;  // index into Wiring::buses
  std::uint32_t can_id = 0x180;   // its standard id
};

struct Wiring {
  std::vector<MotorModel> motors;
  std::vector<BusConfig> buses;
  std::vector<JointMotor> joints;  // firmware order
  ImuFrames imu;
  BmsFrame bms;
  std::uint32_t motor_reply_timeout_ms = 50;  // MOTOR_TIMEOUT and re-enable after this silence

  const MotorModel& motor_of(std::size_t joint) const { return motors[joints[joint].motor]; }
};

}  // namespace robot_edge::can
