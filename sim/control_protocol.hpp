// The fault-injection control language of robot-edge-sim, as a pure parser: one text line in, one
// command (or a readable error) out. No I/O; the simulator executes the commands.
//
// One command per line; words separated by spaces or tabs; a trailing '\r' is ignored.
// JOINT is a joint name from the config (e.g. L_Knee) or its index 0..N-1 in firmware order.
// BUS is a bus name from the config (e.g. left_leg) or its interface (e.g. vcan0).
//   temp JOINT CELSIUS      pin the motor's temperature (°C, -50..300)
//   temp JOINT release      let the thermal model run again from the pinned value
//   silence JOINT on|off    a cut cable: the motor neither processes nor answers frames
//   fault JOINT CODE        a can::MotorError 0..255 in the family's fault field (0 clears)
//   mount JOINT OFFSET DIR  the motor sits on its joint at this offset (rad, ±2π) and direction
//                           (1 or -1), whatever the config says: q_joint = DIR·r·q_motor + OFFSET
//                           (a wrong or missing calibration, a reversed motor)
//   tilt ROLL_DEG PITCH_DEG set the IMU attitude (each -180..180; 0 0 = upright; kinematic only)
//   imu on|off              start / stop sending IMU frames
//   battery PERCENT|on|off  set the simulated BMS's state of charge (%, 0..100, it drains on from
//                           there), or stop / resume its frames (battery.source can only)
//   gantry HEIGHT_M|off     hold the base at this height (m, 0..5) on an elastic support, or
//                           release it (physics only)
//   push BODY FX FY FZ S    a force (N, world frame, each ±5000) on a body of the model for S
//                           seconds (0..10) (physics only)
//   truth                   ground truth: base pose and velocity, torso height, tilt, contacts
//   busoff BUS              write one CAN_ERR_FLAG|CAN_ERR_BUSOFF error frame on the bus
//   restarted BUS           write one CAN_ERR_FLAG|CAN_ERR_RESTARTED error frame on the bus
//   link BUS down|up        clear / set IFF_UP on the bus's interface (needs CAP_NET_ADMIN)
//   get JOINT               one line with the motor's state
//   status                  the status line
//   help                    the list of commands
// Every reply is one line: "ok ..." or "error: ...".
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/config.hpp"

namespace robot_edge::sim {

enum class ControlVerb {
  kTemp,           // joint, celsius
  kTempRelease,    // joint
  kSilence,        // joint, on
  kFault,          // joint, code
  kMount,          // joint, offset_rad, direction
  kTilt,           // roll_deg, pitch_deg
  kImu,            // on
  kBattery,        // on: the BMS's frames
  kBatteryCharge,  // percent
  kGantry,         // on, height_m
  kPush,           // body, force_n, seconds
  kTruth,
  kRecord,     // per joint: peak |torque| and limit hits since the previous record
  kQpos,       // the physics model's generalized positions (robot-edge-viewer)
  kBusOff,     // bus
  kRestarted,  // bus
  kLink,       // bus, on (= up)
  kGet,        // joint
  kStatus,
  kHelp,
};

struct ControlCommand {
  ControlVerb verb = ControlVerb::kHelp;
  std::size_t joint = 0;  // index into config.joints
  std::size_t bus = 0;    // index into config.buses
  bool on = false;        // silence on, imu on, battery on, link up
  double percent = 0;     // battery PERCENT
  double celsius = 0;
  std::uint8_t code = 0;
  double roll_deg = 0;
  double pitch_deg = 0;
  double height_m = 0;
  std::string body;
  std::array<double, 3> force_n{};
  double seconds = 0;
  double offset_rad = 0;
  double direction = 1;
};

// Exactly one of the two is set.
struct ParseResult {
  std::optional<ControlCommand> command;
  std::string error;  // e.g. "unknown joint 'L_Kne' (a joint name or 0..24)"
};

// The reply to `help` (without "ok ").
extern const char* const kControlHelp;

ParseResult ParseControlLine(std::string_view line, const config::Config& config);

}  // namespace robot_edge::sim
