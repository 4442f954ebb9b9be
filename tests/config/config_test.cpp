// Configuration: the shipped files describe the real robot, and every validation rule rejects a
// broken file with "file:line: key: message" (the model: ros2_control's test_component_parser).
#include "config/config.hpp"
#include "config/bus_capacity.hpp"
#include "config/host_port.hpp"
#include "config/library_options.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

namespace robot_edge::config {
namespace {

std::string ReadFile(const char* path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string& DefaultYaml() {
  static const std::string text = ReadFile(ROBOT_EDGE_DEFAULT_CONFIG);
  return text;
}

int LineOf(const std::string& text, std::size_t offset) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + offset, '\n'));
}

// Every problem ParseConfig + Validate report for `text`.
std::vector<std::string> Problems(const std::string& text) {
  try {
    return Validate(ParseConfig(text, "robot-edge.yaml"));
  } catch (const ConfigError& e) {
    return e.problems();
  }
}

TEST(DefaultConfig, IsValidAndDescribesTheRobot) {
  const Config c = LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  const char* names[] = {
      "L_Hip_Pitch", "L_Hip_Roll",  "L_Hip_Yaw",        "L_Knee",          "L_Ankle_A",
      "L_Ankle_B",   "R_Hip_Pitch", "R_Hip_Roll",       "R_Hip_Yaw",       "R_Knee",
      "R_Ankle_A",   "R_Ankle_B",   "L_Shoulder_Pitch", "L_Shoulder_Roll", "L_Shoulder_Yaw",
      "L_Elbow",     "L_Wrist_Yaw", "R_Shoulder_Pitch", "R_Shoulder_Roll", "R_Shoulder_Yaw",
      "R_Elbow",     "R_Wrist_Yaw", "Waist_Yaw",        "Neck_Pitch",      "Neck_Yaw"};
  ASSERT_EQ(c.joints.size(), 25u);
  for (std::size_t i = 0; i < 25; ++i) EXPECT_EQ(c.joints[i].name, names[i]);
  ASSERT_EQ(c.buses.size(), 5u);
  // Bus per group, CAN ids 1..n within each bus, replies to master id 0.
  const std::size_t first[] = {0, 6, 12, 17, 22, 25};
  for (std::size_t b = 0; b < 5; ++b) {
    EXPECT_EQ(c.buses[b].interface, "vcan" + std::to_string(b));
    EXPECT_EQ(c.buses[b].master_id, 0u);
    EXPECT_EQ(c.buses[b].bitrate, 1000000u);
    for (std::size_t j = first[b]; j < first[b + 1]; ++j) {
      EXPECT_EQ(c.joints[j].bus, b) << names[j];
      EXPECT_EQ(c.joints[j].can_id, j - first[b] + 1) << names[j];
    }
  }
  for (const auto& j : c.joints) {
    const MotorModel& m = c.motors[j.motor];
    EXPECT_EQ(m.p_max_rad, 12.5);
    EXPECT_EQ(m.v_max_rad_s, 50.0);
    EXPECT_EQ(m.t_max_nm, 18.0);
    EXPECT_EQ(m.kp_max, 500.0);
    EXPECT_EQ(m.kd_max, 5.0);
    EXPECT_EQ(m.reply, ReplyFormat::kAk8Byte);
    EXPECT_GE(j.kp, 40.0);
    EXPECT_LE(j.kp, 150.0);
    EXPECT_GE(j.kd, 2.0);
    EXPECT_LE(j.kd, 5.0);
  }
  EXPECT_EQ(c.control.rate_hz, 500.0);
  EXPECT_EQ(c.period_us(), 2000);
  EXPECT_EQ(c.control.trajectory_timeout_ms, 200u);
  EXPECT_EQ(c.control.stand_ramp_s, 2.0);
  EXPECT_EQ(c.telemetry.rate_hz, 10.0);
  EXPECT_EQ(c.telemetry.diagnostics_rate_hz, 1.0);
  EXPECT_EQ(c.safety.overtemp_trip_c, 80.0);
  EXPECT_EQ(c.safety.overtemp_clear_c, 70.0);
  EXPECT_EQ(c.imu.bus, 4u);
  EXPECT_EQ(c.imu.quat_id, 0x101u);  // hex in YAML
  EXPECT_EQ(c.imu.gyro_id, 0x102u);
  EXPECT_EQ(c.imu.accel_id, 0x103u);
  EXPECT_EQ(c.battery.source, BatteryConfig::Source::kCan);  // the simulator's BMS
  EXPECT_EQ(c.battery.bus, 4u);
  EXPECT_EQ(c.battery.can_id, 0x180u);
  EXPECT_EQ(c.battery.low_percent, 20.0);
  EXPECT_EQ(c.battery.clear_percent, 25.0);
  EXPECT_EQ(c.battery.timeout_ms, 3000u);
  EXPECT_EQ(c.api.controllers,
            (std::vector<std::string>{"ble", "cloud", "maintainer", "dds", "fleet"}));
  EXPECT_EQ(c.api.maintenance_controllers, (std::vector<std::string>{"maintainer"}));
}

TEST(HardwareExample, IsValidAndUsesRealCanInterfaces) {
  const Config c = LoadConfig(ROBOT_EDGE_HARDWARE_CONFIG);
  ASSERT_EQ(c.buses.size(), 5u);
  for (std::size_t b = 0; b < 5; ++b) EXPECT_EQ(c.buses[b].interface, "can" + std::to_string(b));
  EXPECT_EQ(c.joints.size(), 25u);
  EXPECT_GT(c.realtime.priority, 0);
  // A mixed robot, calibrated into a file the service may write.
  std::set<MotorFamily> families;
  for (std::size_t j = 0; j < c.joints.size(); ++j) families.insert(c.motor_of(j).family);
  EXPECT_EQ(families.size(), 3u);
  EXPECT_EQ(c.calibration_path, "/var/lib/robot-edge/calibration.yaml");
  EXPECT_EQ(c.battery.source, BatteryConfig::Source::kNone);  // both sources shown, commented
  EXPECT_EQ(c.api.maintenance_controllers, (std::vector<std::string>{"maintainer"}));
  for (const MotorModel& m : c.motors) {
    EXPECT_GT(m.can_timeout_ms, 0u) << m.name << ": the example declares a CAN-loss timeout";
  }
}

TEST(LoadConfig, MissingFileNamesThePath) {
  try {
    LoadConfig("/nonexistent/robot.yaml");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/robot.yaml: cannot open the file");
  }
}

// A broken file: `from` (unique in the default file) replaced by `to`; the problem must name
// `key` and say `message`, on the line of the change unless check_line is false.
struct Case {
  const char* rule;
  const char* from;
  const char* to;
  const char* key;
  const char* message;
  bool check_line = true;
};

class Rejects : public testing::TestWithParam<Case> {};

TEST_P(Rejects, NamesFileLineAndKey) {
  const Case& c = GetParam();
  std::string text = DefaultYaml();
  const auto at = text.find(c.from);
  ASSERT_NE(at, std::string::npos) << "test data: '" << c.from << "' not in the default config";
  ASSERT_EQ(text.find(c.from, at + 1), std::string::npos) << "'" << c.from << "' is not unique";
  text.replace(at, std::string(c.from).size(), c.to);

  const auto problems = Problems(text);
  ASSERT_FALSE(problems.empty()) << c.rule << ": the broken file was accepted";
  const std::string prefix = c.check_line
                                 ? "robot-edge.yaml:" + std::to_string(LineOf(text, at)) + ": "
                                 : "robot-edge.yaml:";
  bool found = false;
  for (const auto& p : problems) {
    found |= p.rfind(prefix, 0) == 0 && p.find(std::string(c.key) + ": ") != std::string::npos &&
             p.find(c.message) != std::string::npos;
  }
  std::string all;
  for (const auto& p : problems) all += "\n  " + p;
  EXPECT_TRUE(found) << c.rule << ": expected '" << prefix << "… " << c.key << ": …" << c.message
                     << "' among:" << all;
}

std::string RuleName(const testing::TestParamInfo<Case>& info) {
  std::string name = info.param.rule;
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

// A policy section as one flow-style line before sim: (see the policy rows below).
#define SIM "sim:                                      #"
#define P(keys) "policy: {" keys "}\n" SIM
#define J1 "joints: [L_Knee]"
#define J2 "joints: [L_Knee, R_Knee]"
#define O "observation: [{term: command}]"

INSTANTIATE_TEST_SUITE_P(
    EveryRule, Rejects,
    testing::Values(
        // The issue's own example: joints[3] is L_Knee.
        Case{"joint kp range",
             "kp: 150, kd: 4.0, stand:  0.60, damp_kd: 1.5}\n  - {name: L_Ankle_A",
             "kp: 700, kd: 4.0, stand:  0.60, damp_kd: 1.5}\n  - {name: L_Ankle_A", "joints[3].kp",
             "700 is outside 0..500"},
        Case{"joint kd range",
             "name: L_Elbow,          bus: left_arm,   can_id: 4, motor: ak80_9, min: -0.2, max: "
             "2.4, kp:  60, kd: 2.0",
             "name: L_Elbow,          bus: left_arm,   can_id: 4, motor: ak80_9, min: -0.2, max: "
             "2.4, kp:  60, kd: 6.0",
             "joints[15].kd", "6 is outside 0..5"},
        Case{"joint damp_kd range", "stand:  0.00, damp_kd: 0.5}\n  - {name: R_Shoulder_Pitch",
             "stand:  0.00, damp_kd: 9}\n  - {name: R_Shoulder_Pitch", "joints[16].damp_kd",
             "9 is outside 0..5"},
        Case{"joint min below max",
             "name: Waist_Yaw,        bus: waist_neck, can_id: 1, motor: ak80_9, min: -1.0, max: "
             "1.0",
             "name: Waist_Yaw,        bus: waist_neck, can_id: 1, motor: ak80_9, min: 1.0, max: "
             "-1.0",
             "joints[22].min", "must be below max"},
        Case{"joint limits within the motor's range",
             "name: Neck_Yaw,         bus: waist_neck, can_id: 3, motor: ak80_9, min: -1.2",
             "name: Neck_Yaw,         bus: waist_neck, can_id: 3, motor: ak80_9, min: -13",
             "joints[24].min", "-13 is outside -12.5..12.5"},
        Case{"stand pose within limits",
             "max: 2.4, kp: 150, kd: 4.0, stand:  0.60, damp_kd: 1.5}\n  - {name: L_Ankle_A",
             "max: 2.4, kp: 150, kd: 4.0, stand:  3.00, damp_kd: 1.5}\n  - {name: L_Ankle_A",
             "joints[3].stand", "3 is outside 0..2.4"},
        Case{"unique joint names", "{name: R_Knee,", "{name: L_Knee,", "joints[9].name",
             "'L_Knee' is used twice"},
        Case{"can id range", "name: Neck_Pitch,       bus: waist_neck, can_id: 2",
             "name: Neck_Pitch,       bus: waist_neck, can_id: 0", "joints[23].can_id",
             "0 is outside 1..255 (an MIT motor's reply carries its id in one byte)"},
        Case{"can id fits the reply's byte", "name: Neck_Pitch,       bus: waist_neck, can_id: 2",
             "name: Neck_Pitch,       bus: waist_neck, can_id: 256", "joints[23].can_id",
             "256 is outside 1..255"},
        Case{"can id unique per bus", "name: Neck_Pitch,       bus: waist_neck, can_id: 2",
             "name: Neck_Pitch,       bus: waist_neck, can_id: 1", "joints[23].can_id",
             "1 is used twice on bus 'waist_neck'"},
        Case{"can id differs from master id",
             "interface: vcan2, bitrate: 1000000, restart_ms: 100, master_id: 0",
             "interface: vcan2, bitrate: 1000000, restart_ms: 100, master_id: 3",
             "joints[14].can_id", "equals the master_id of bus 'left_arm'", false},
        Case{
            "joint bus must exist", "name: L_Knee,           bus: left_leg,",
            "name: L_Knee,           bus: left_lge,", "joints[3].bus",
            "unknown bus 'left_lge' (known: left_leg, right_leg, left_arm, right_arm, waist_neck)"},
        Case{"joint motor must exist",
             "name: L_Knee,           bus: left_leg,   can_id: 4, motor: ak80_9",
             "name: L_Knee,           bus: left_leg,   can_id: 4, motor: ak10", "joints[3].motor",
             "unknown motor 'ak10' (known: ak80_9)"},
        Case{"joint keys are required", "{name: L_Knee,           bus: left_leg,   can_id: 4,",
             "{name: L_Knee,           bus: left_leg,", "joints[3]",
             "missing required key 'can_id'"},
        Case{"unknown joint key", "name: L_Knee,           bus: left_leg,",
             "name: L_Knee, kpp: 3,           bus: left_leg,", "joints[3].kpp", "unknown key"},
        Case{"sim inertia range", "name: L_Knee,           bus: left_leg,",
             "name: L_Knee, inertia: -1,           bus: left_leg,", "joints[3].inertia",
             "-1 is outside 0..100"},
        Case{"wrong value type", "rate_hz: 500 ", "rate_hz: fast ", "control.rate_hz",
             "'fast' is not a number"},
        Case{"control rate", "rate_hz: 500 ", "rate_hz: 5000 ", "control.rate_hz",
             "5000 is outside 50..2000"},
        Case{"trajectory timeout", "trajectory_timeout_ms: 200", "trajectory_timeout_ms: 5",
             "control.trajectory_timeout_ms", "5 is outside 20..2000"},
        Case{"stand ramp", "stand_ramp_s: 2.0", "stand_ramp_s: 0", "control.stand_ramp_s",
             "0 is outside 0.1..10"},
        Case{"max segments", "max_segments: 100", "max_segments: 0", "control.max_segments",
             "0 is outside 1..4096"},
        Case{"max segments play within the watchdog", "max_segments: 100", "max_segments: 101",
             "control.max_segments",
             "101 segments play for 202 ms, longer than control.trajectory_timeout_ms (200): at "
             "most 100"},
        Case{"motor reply timeout vs period", "motor_reply_timeout_ms: 50",
             "motor_reply_timeout_ms: 3", "control.motor_reply_timeout_ms",
             "must be at least two control periods (4 ms)"},
        Case{"realtime priority", "priority: 0 ", "priority: 100 ", "realtime.priority",
             "100 is outside 0..99"},
        Case{"realtime cpu", "cpu: -1 ", "cpu: -2 ", "realtime.cpu", "-2 is outside -1..1023"},
        Case{"telemetry rate", "  rate_hz: 10\n", "  rate_hz: 0\n", "telemetry.rate_hz",
             "0 is outside 0.1..100"},
        Case{"diagnostics rate", "diagnostics_rate_hz: 1", "diagnostics_rate_hz: 0",
             "telemetry.diagnostics_rate_hz", "0 is outside 0.01..10"},
        Case{"overtemp trip range", "overtemp_trip_c: 80", "overtemp_trip_c: 200",
             "safety.overtemp_trip_c", "200 is outside 40..150"},
        Case{"overtemp clear range", "overtemp_clear_c: 70", "overtemp_clear_c: 10",
             "safety.overtemp_clear_c", "10 is outside 20..150"},
        Case{"overtemp hysteresis", "overtemp_clear_c: 70", "overtemp_clear_c: 85",
             "safety.overtemp_clear_c", "85 must be below overtemp_trip_c (80)"},
        Case{"fall tilt range", "fall_tilt_deg: 60", "fall_tilt_deg: 5", "safety.fall_tilt_deg",
             "5 is outside 10..90"},
        Case{"fall clear range", "fall_clear_deg: 30", "fall_clear_deg: 0", "safety.fall_clear_deg",
             "0 is outside 1..90"},
        Case{"fall hysteresis", "fall_clear_deg: 30", "fall_clear_deg: 70", "safety.fall_clear_deg",
             "70 must be below fall_tilt_deg (60)"},
        Case{"loop rate floor", "min_loop_rate_fraction: 0.5", "min_loop_rate_fraction: 1.5",
             "safety.min_loop_rate_fraction", "1.5 is outside 0..0.95"},
        Case{"control stall beyond two periods", "control_stall_ms: 50", "control_stall_ms: 3",
             "safety.control_stall_ms", "3 is outside 4..2000"},
        Case{"fall hold", "fall_hold_ms: 100", "fall_hold_ms: 5000", "safety.fall_hold_ms",
             "5000 is outside 0..2000"},
        Case{"vx within the API", "vx_max: 2.0", "vx_max: 3.0", "velocity.vx_max",
             "3 is outside 0..2"},
        Case{"vy within the API", "vy_max: 1.0", "vy_max: 1.5", "velocity.vy_max",
             "1.5 is outside 0..1"},
        Case{"vyaw within the API", "vyaw_max: 2.0", "vyaw_max: -1", "velocity.vyaw_max",
             "-1 is outside 0..2"},
        Case{"motor p_max positive", "p_max: 12.5", "p_max: 0", "motors.ak80_9.p_max",
             "0 must be greater than 0"},
        Case{"motor v_max positive", "v_max: 50.0", "v_max: -5", "motors.ak80_9.v_max",
             "-5 must be greater than 0"},
        Case{"motor t_max positive", "t_max: 18.0", "t_max: 0", "motors.ak80_9.t_max",
             "must be greater than 0"},
        Case{"motor kp_max positive", "kp_max: 500.0", "kp_max: 0", "motors.ak80_9.kp_max",
             "must be greater than 0"},
        Case{"motor kd_max positive", "kd_max: 5.0", "kd_max: 0", "motors.ak80_9.kd_max",
             "must be greater than 0"},
        Case{"torque constant positive", "torque_constant: 0.8", "torque_constant: 0",
             "motors.ak80_9.torque_constant", "must be greater than 0"},
        Case{"reply format", "reply: ak,", "reply: can,", "motors.ak80_9.reply",
             "'can' is not a reply format (ak, classic)"},
        Case{"unique bus names", "{name: right_leg,  interface: vcan1",
             "{name: left_leg,  interface: vcan1", "buses[1].name", "'left_leg' is used twice"},
        Case{"unique bus interfaces", "interface: vcan3", "interface: vcan2", "buses[3].interface",
             "'vcan2' is used by two buses"},
        Case{"interface name length", "interface: vcan3", "interface: vcan3456789012345",
             "buses[3].interface", "is not a network interface name (1..15 characters)"},
        Case{"bitrate", "interface: vcan3, bitrate: 1000000", "interface: vcan3, bitrate: 5",
             "buses[3].bitrate", "5 is outside 10000..1000000"},
        Case{"restart_ms", "interface: vcan3, bitrate: 1000000, restart_ms: 100",
             "interface: vcan3, bitrate: 1000000, restart_ms: 70000", "buses[3].restart_ms",
             "70000 is outside 0..60000"},
        Case{"master id range", "interface: vcan3, bitrate: 1000000, restart_ms: 100, master_id: 0",
             "interface: vcan3, bitrate: 1000000, restart_ms: 100, master_id: 0x800",
             "buses[3].master_id", "2048 is outside 0..2047"},
        Case{"bus needs an interface", "{name: right_arm,  interface: vcan3,", "{name: right_arm,",
             "buses[3]", "missing required key 'interface'"},
        Case{"imu ids distinct", "gyro_id: 0x102", "gyro_id: 0x101", "imu.gyro_id",
             "equals imu.quat_id"},
        Case{"imu id range", "gyro_id: 0x102", "gyro_id: 0x900", "imu.gyro_id",
             "2304 is outside 1..2047"},
        Case{"imu accel id distinct from quat", "accel_id: 0x103", "accel_id: 0x101",
             "imu.accel_id", "equals imu.quat_id"},
        Case{"imu accel id distinct from gyro", "accel_id: 0x103", "accel_id: 0x102",
             "imu.accel_id", "equals imu.gyro_id"},
        Case{"imu accel id range", "accel_id: 0x103", "accel_id: 0x900", "imu.accel_id",
             "2304 is outside 0..2047"},
        Case{"imu timeout", "0x102, timeout_ms: 100}", "0x102, timeout_ms: 0}", "imu.timeout_ms",
             "0 is outside 5..5000"},
        Case{"imu id vs joints", "quat_id: 0x101", "quat_id: 2", "imu",
             "an IMU id collides with joint Neck_Pitch on bus 'waist_neck'"},
        Case{"imu id vs master id",
             "interface: vcan4, bitrate: 1000000, restart_ms: 100, master_id: 0",
             "interface: vcan4, bitrate: 1000000, restart_ms: 100, master_id: 0x101", "imu",
             "an IMU id equals the master_id of bus 'waist_neck'", false},
        Case{"imu accel id vs joints", "accel_id: 0x103", "accel_id: 2", "imu",
             "an IMU id collides with joint Neck_Pitch on bus 'waist_neck'"},
        Case{"imu accel id vs master id",
             "interface: vcan4, bitrate: 1000000, restart_ms: 100, master_id: 0",
             "interface: vcan4, bitrate: 1000000, restart_ms: 100, master_id: 0x103", "imu",
             "an IMU id equals the master_id of bus 'waist_neck'", false},
        Case{"imu bus must exist", "imu: {bus: waist_neck,", "imu: {bus: neck,", "imu.bus",
             "unknown bus 'neck'"},
        Case{"battery source known", "source: can,", "source: bms,", "battery.source",
             "'bms' is not none, can or sysfs"},
        Case{"battery bus must exist", "bus: waist_neck, can_id: 0x180", "bus: neck, can_id: 0x180",
             "battery.bus",
             "unknown bus 'neck' (known: left_leg, right_leg, left_arm, right_arm, waist_neck)"},
        Case{"battery bus required with can", "source: can, bus: waist_neck,", "source: can,",
             "battery.bus", "required with source can (known: left_leg,"},
        Case{"battery id range", "can_id: 0x180", "can_id: 0x800", "battery.can_id",
             "2048 is outside 1..2047"},
        Case{"battery id not zero", "can_id: 0x180", "can_id: 0", "battery.can_id",
             "0 is outside 1..2047"},
        Case{"battery id vs joints", "can_id: 0x180", "can_id: 2", "battery.can_id",
             "collides with joint Neck_Pitch on bus 'waist_neck'"},
        Case{"battery id vs master id",
             "interface: vcan4, bitrate: 1000000, restart_ms: 100, master_id: 0",
             "interface: vcan4, bitrate: 1000000, restart_ms: 100, master_id: 0x180",
             "battery.can_id", "equals the master_id of bus 'waist_neck'", false},
        Case{"battery id vs imu", "can_id: 0x180", "can_id: 0x102", "battery.can_id",
             "equals an IMU id (imu.quat_id, gyro_id or accel_id) on bus 'waist_neck'"},
        Case{"battery id vs imu accel", "can_id: 0x180", "can_id: 0x103", "battery.can_id",
             "equals an IMU id"},
        Case{"battery sysfs path absolute", "source: can, bus: waist_neck, can_id: 0x180",
             "source: sysfs, path: power_supply/BAT0", "battery.path",
             "'power_supply/BAT0' is not an absolute path (e.g. /sys/class/power_supply/BAT0)"},
        Case{"battery sysfs path not empty", "source: can, bus: waist_neck, can_id: 0x180",
             "source: sysfs, path: \"\"", "battery.path", "'' is not an absolute path"},
        Case{"battery low percent range", "low_percent: 20", "low_percent: -1",
             "battery.low_percent", "-1 is outside 0..100"},
        Case{"battery clear percent range", "clear_percent: 25", "clear_percent: 101",
             "battery.clear_percent", "101 is outside 0..100"},
        Case{"battery hysteresis", "clear_percent: 25", "clear_percent: 20",
             "battery.clear_percent", "20 must be above low_percent (20)"},
        Case{"battery timeout short", "clear_percent: 25}", "clear_percent: 25, timeout_ms: 50}",
             "battery.timeout_ms", "50 is outside 100..60000"},
        Case{"battery timeout long", "clear_percent: 25}", "clear_percent: 25, timeout_ms: 70000}",
             "battery.timeout_ms", "70000 is outside 100..60000"},
        Case{"battery percent is a number", "low_percent: 20", "low_percent: low",
             "battery.low_percent", "'low' is not a number"},
        Case{"battery unknown key", "low_percent: 20", "low_pct: 20", "battery.low_pct",
             "unknown key"},
        Case{"battery must be a mapping",
             "battery: {source: can, bus: waist_neck, can_id: 0x180, low_percent: 20, "
             "clear_percent: 25}",
             "battery: can", "battery", "expected a mapping"},
        Case{"api needs a socket", "unix_socket: /run/robot-edge/api.sock", "unix_socket: \"\"",
             "api", "neither unix_socket nor tcp is set", false},
        Case{"unix socket path length", "unix_socket: /run/robot-edge/api.sock",
             "unix_socket: "
             "/run/robot-edge/"
             "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
             "aaaaaaaaaaaaaaaa.sock",
             "api.unix_socket", "longer than 107 characters"},
        Case{"one shared token is refused", "tcp: \"\"", "token: \"abc\"", "api.token",
             "one shared token is no longer accepted: give each controller its own, in a file "
             "(api.access.<name>.token_file)"},
        Case{"controllers not empty", "controllers: [ble, cloud, maintainer, dds, fleet]",
             "controllers: []", "api.controllers", "empty: no client could ever command the robot"},
        Case{"access names", "access: {}", "access: {pilot: {users: [x]}}", "api.access.pilot",
             "'pilot' is neither observer nor a name of api.controllers"},
        Case{"the old api.roles is refused with directions", "access: {}",
             "roles: {cloud: {users: [x]}}", "api.roles",
             "renamed api.access (the same entries: who may connect as each controller or "
             "observer)"},
        Case{"the old api.maintenance_roles is refused with directions",
             "maintenance_controllers: [maintainer]", "maintenance_roles: [maintainer]",
             "api.maintenance_roles", "renamed api.maintenance_controllers (the same list)"},
        Case{"an access entry grants somebody", "access: {}", "access: {cloud: {}}",
             "api.access.cloud", "grants nobody: give users, groups or a token_file"},
        Case{"unknown access key", "access: {}", "access: {cloud: {user: [x]}}",
             "api.access.cloud.user", "unknown key"},
        Case{"command age", "max_command_age_ms: 100", "max_command_age_ms: 5",
             "api.max_command_age_ms", "5 is outside 10..10000"},
        Case{"motor can timeout", "can_timeout_ms: 100}", "can_timeout_ms: 70000}",
             "motors.ak80_9.can_timeout_ms", "70000 is outside 0..60000"},
        Case{"tcp host:port", "tcp: \"\"", "tcp: \"localhost\"", "api.tcp",
             "'localhost' is not host:port with a port 1..65535"},
        Case{"tcp off loopback needs tls", "tcp: \"\"", "tcp: \"0.0.0.0:7000\"", "api.tcp",
             "'0.0.0.0:7000' is not a loopback address and api.tls is not set: tokens and "
             "commands would travel in clear",
             false},
        Case{"tls needs tcp", "tcp: \"\"", "tls: {certificate: a.pem, private_key: a.key}",
             "api.tls", "set, but api.tcp is not", false},
        Case{"tls needs a key", "tcp: \"\"", "tcp: \"0.0.0.0:7000\"\n  tls: {certificate: a.pem}",
             "api.tls", "missing required key 'private_key'", false},
        Case{"unknown tls key", "tcp: \"\"",
             "tcp: \"0.0.0.0:7000\"\n  tls: {certificate: a.pem, private_key: a.key, ca: c}",
             "api.tls.ca", "unknown key", false},
        Case{"controller names unique", "controllers: [ble, cloud, maintainer, dds, fleet]",
             "controllers: [ble, cloud, ble]", "api.controllers[2]", "'ble' is listed twice"},
        Case{"controller names non-empty", "controllers: [ble, cloud, maintainer, dds, fleet]",
             "controllers: [ble, \"\"]", "api.controllers[1]", "empty controller name"},
        Case{"maintenance controllers are controllers", "maintenance_controllers: [maintainer]",
             "maintenance_controllers: [janitor]", "api.maintenance_controllers",
             "'janitor' is not a name of api.controllers"},
        Case{"apply-config roles are controllers", "apply_config_controllers: []",
             "apply_config_controllers: [janitor]", "api.apply_config_controllers",
             "'janitor' is not a name of api.controllers"},
        Case{"fleet may change protected sections only", "fleet_may_change: []",
             "fleet_may_change: [safety, policy]", "api.fleet_may_change",
             "'policy' is not a protected section"},
        Case{"clock offset bound", "max_clock_offset_ms: 1000", "max_clock_offset_ms: 0",
             "api.max_clock_offset_ms", "0 is outside 10..600000"},
        Case{"joint limit margin", "min_loop_rate_fraction: 0.5",
             "min_loop_rate_fraction: 0.5\n  joint_limit_margin_rad: 2",
             "safety.joint_limit_margin_rad", "2 is outside 0.01..1", false},
        Case{"controller idle timeout", "controller_idle_timeout_ms: 10000",
             "controller_idle_timeout_ms: 0", "api.controller_idle_timeout_ms",
             "0 is outside 100..3600000"},
        Case{"max clients", "max_clients: 64", "max_clients: 0", "api.max_clients",
             "0 is outside 1..1024"},
        Case{"event history", "event_history: 1024", "event_history: 1", "api.event_history",
             "1 is outside 16..65536"},
        Case{"client backlog", "client_backlog_kib: 4096", "client_backlog_kib: 8",
             "api.client_backlog_kib", "8 is outside 16..1048576"},
        Case{"sim ambient", "ambient_c: 30", "ambient_c: 100", "sim.ambient_c",
             "100 is outside -40..60"},
        Case{"sim thermal time constant", "thermal_time_constant_s: 120",
             "thermal_time_constant_s: 0", "sim.thermal_time_constant_s", "must be greater than 0"},
        Case{"sim heating", "heating_c_per_nm2_s: 0.01", "heating_c_per_nm2_s: -1",
             "sim.heating_c_per_nm2_s", "-1 is outside 0..10"},
        Case{"sim motor timeout moved", "ambient_c: 30", "motor_can_timeout_ms: 100",
             "sim.motor_can_timeout_ms",
             "moved: the simulated motors use their model's motors.<name>.can_timeout_ms"},
        Case{"sim imu rate", "imu_rate_hz: 200", "imu_rate_hz: 0", "sim.imu_rate_hz",
             "0 is outside 1..2000"},
        Case{"recorder compression", "compression: zstd ", "compression: gzip ",
             "recorder.compression", "'gzip' is not zstd, lz4 or none"},
        Case{"recorder channel known", "channels: [joint_state, telemetry, events, commands]",
             "channels: [joint_state, video]", "recorder.channels[1]",
             "'video' is not a channel (joint_state, telemetry, events, commands, diagnostics, "
             "can)"},
        Case{"recorder channel once", "channels: [joint_state, telemetry, events, commands]",
             "channels: [events, events]", "recorder.channels[1]", "'events' is listed twice"},
        Case{"recorder black box length", "black_box_seconds: 30 ", "black_box_seconds: 0 ",
             "recorder.black_box_seconds", "0 is outside 1..600"},
        Case{"recorder file size", "max_file_mb: 512 ", "max_file_mb: 0 ", "recorder.max_file_mb",
             "0 is outside 1..65536"},
        Case{"live address", "address: 127.0.0.1:8765 ", "address: robot ", "live.address",
             "'robot' is not host:port with a port 0..65535"},
        Case{"live token off loopback", "address: 127.0.0.1:8765 ", "address: 0.0.0.0:8765 ",
             "live.token_file",
             "required when live.address (0.0.0.0:8765) is not a loopback address: anyone on the "
             "network would watch the robot",
             false},
        Case{"live off loopback is plaintext", "address: 127.0.0.1:8765 ", "address: 0.0.0.0:8765 ",
             "live.address",
             "'0.0.0.0:8765' is not a loopback address and live.tls is not set: its tokens would "
             "travel in clear",
             false},
        Case{"live tls needs a key", "address: 127.0.0.1:8765 ",
             "address: 127.0.0.1:8765\n  tls: {certificate: a.pem}\n  #", "live.tls",
             "missing required key 'private_key'", false},
        Case{"live tls has no client_ca", "address: 127.0.0.1:8765 ",
             "address: 127.0.0.1:8765\n  tls: {certificate: a.pem, private_key: a.key, client_ca: "
             "c.pem}\n  #",
             "live.tls.client_ca", "unknown key", false},
        Case{"live connections", "max_connections: 16 ", "max_connections: 2 ",
             "live.max_connections", "2 is outside 5..1024"},
        Case{"live origin", "allowed_origins: []", "allowed_origins: [evil.example/page]",
             "live.allowed_origins[0]",
             "'evil.example/page' is not an origin: http(s)://host[:port], no path"},
        Case{"sim fitted joint", "ambient_c: 30", "fitted: {Tail: ak80_9}", "sim.fitted.Tail",
             "no joint 'Tail'"},
        Case{"sim fitted motor", "ambient_c: 30", "fitted: {L_Knee: rs99}", "sim.fitted.L_Knee",
             "unknown motor 'rs99'"},
        Case{"sim fitted is a mapping", "ambient_c: 30", "fitted: [L_Knee]", "sim.fitted",
             "expected a mapping of joint names to motor models"},
        Case{"sim joint name's joint", "ambient_c: 30", "joint_names: {Tail: tail_joint}",
             "sim.joint_names.Tail", "no joint 'Tail'"},
        Case{"sim joint names distinct", "ambient_c: 30", "joint_names: {L_Knee: R_Knee}",
             "sim.joint_names.L_Knee", "joints L_Knee and R_Knee both name the model's 'R_Knee'"},
        Case{"sim joint names a mapping", "ambient_c: 30", "joint_names: [L_Knee]",
             "sim.joint_names", "expected a mapping of joint names to model names"},
        Case{"sim inertia", "joint_inertia: 0.02", "joint_inertia: 0", "sim.joint_inertia",
             "must be greater than 0"},
        Case{"sim friction", "joint_friction: 0.2", "joint_friction: -1", "sim.joint_friction",
             "-1 is outside 0..100"},
        // policy: one flow-style line inserted before sim:, so that every key is on that line.
        Case{"target limit unknown joint", "R_Shoulder_Pitch, R_Shoulder_Roll, R_Shoulder_Yaw",
             "R_Shoulder_Pich, R_Shoulder_Roll, R_Shoulder_Yaw", "target_limits[0].joints[5]",
             "unknown joint 'R_Shoulder_Pich'"},
        Case{"target limit joint twice", "R_Shoulder_Pitch, R_Shoulder_Roll, R_Shoulder_Yaw",
             "R_Shoulder_Pitch, L_Elbow, R_Shoulder_Yaw", "target_limits[0].joints[6]",
             "'L_Elbow' is listed twice"},
        Case{"target limit joint in two groups", "    max_acceleration: 6.28",
             "    max_acceleration: 6.28\n  - {joints: [L_Knee, L_Elbow]}",
             "target_limits[1].joints[1]", "'L_Elbow' is already in an earlier group", false},
        Case{"target limit velocity range", "max_velocity: 3.0", "max_velocity: -3",
             "target_limits[0].max_velocity", "-3 is outside 0..1000"},
        Case{"target limit low pass", "    max_acceleration: 6.28",
             "    max_acceleration: 6.28\n    low_pass: 0", "target_limits[0].low_pass",
             "must be > 0 and <= 1", false},
        Case{"policy model required", SIM,
             P("joints: [L_Knee], action_scale: 0.25, observation: [{term: command}]"), "policy",
             "missing required key 'model'"},
        Case{"policy model not empty", SIM, P("model: \"\", " J1 ", action_scale: 0.25, " O),
             "policy.model", "must name an ONNX file"},
        Case{"policy fault action", SIM,
             P("model: m.onnx, " J1 ", action_scale: 0.25, on_fault: fly, " O), "policy.on_fault",
             "'fly' is not stand or damp"},
        Case{"policy stall timeout", SIM,
             P("model: m.onnx, " J1 ", action_scale: 0.25, stall_timeout_ms: 5, " O),
             "policy.stall_timeout_ms",
             "5 must be at least one policy period (20 ms) and at most 2000"},
        Case{"policy rate", SIM, P("model: m.onnx, rate_hz: 600, " J1 ", action_scale: 0.25, " O),
             "policy.rate_hz", "600 is outside 1..500"},
        Case{"policy joints required", SIM, P("model: m.onnx, action_scale: 0.25, " O), "policy",
             "missing required key 'joints'"},
        Case{"policy joints not empty", SIM, P("model: m.onnx, joints: [], action_scale: 0.25, " O),
             "policy.joints", "at least one joint is required"},
        Case{"policy joint must exist", SIM,
             P("model: m.onnx, joints: [L_Knee, L_Knees], action_scale: 0.25, " O),
             "policy.joints[1]", "unknown joint 'L_Knees'"},
        Case{"policy joint once", SIM,
             P("model: m.onnx, joints: [L_Knee, L_Knee], action_scale: 0.25, " O),
             "policy.joints[1]", "'L_Knee' is listed twice"},
        Case{"policy default pose per joint", SIM,
             P("model: m.onnx, " J2 ", default_pose: [0.6], action_scale: 0.25, " O),
             "policy.default_pose", "has 1 values: give one per policy joint (2)"},
        Case{"policy default pose within limits", SIM,
             P("model: m.onnx, " J1 ", default_pose: [3.0], action_scale: 0.25, " O),
             "policy.default_pose[0]", "3 is outside 0..2.4"},
        Case{"policy action scale required", SIM, P("model: m.onnx, " J1 ", " O), "policy",
             "missing required key 'action_scale'"},
        Case{"policy action scale count", SIM,
             P("model: m.onnx, joints: [L_Knee, R_Knee, L_Hip_Roll], action_scale: [0.1, 0.2], " O),
             "policy.action_scale", "has 2 values: give one, or one per policy joint (3)"},
        Case{"policy action scale range", SIM, P("model: m.onnx, " J1 ", action_scale: 20, " O),
             "policy.action_scale", "20 is outside -10..10"},
        Case{"policy action scale is a number", SIM,
             P("model: m.onnx, " J1 ", action_scale: big, " O), "policy.action_scale",
             "'big' is not a number"},
        Case{"policy action clip", SIM,
             P("model: m.onnx, " J1 ", action_scale: 0.25, action_clip: -1, " O),
             "policy.action_clip", "-1 is outside 0..1000"},
        Case{"policy kp count", SIM,
             P("model: m.onnx, " J2 ", action_scale: 0.25, kp: [1, 2, 3], " O), "policy.kp",
             "has 3 values: give one, or one per policy joint (2)"},
        Case{"policy kp range", SIM, P("model: m.onnx, " J2 ", action_scale: 0.25, kp: 600, " O),
             "policy.kp", "600 is outside 0..500"},
        Case{"policy kd range per joint", SIM,
             P("model: m.onnx, " J2 ", action_scale: 0.25, kd: [1, 7], " O), "policy.kd[1]",
             "7 is outside 0..5"},
        Case{"policy observation required", SIM, P("model: m.onnx, " J1 ", action_scale: 0.25"),
             "policy", "missing required key 'observation'"},
        Case{"policy observation not empty", SIM,
             P("model: m.onnx, " J1 ", action_scale: 0.25, observation: []"), "policy.observation",
             "at least one term is required"},
        Case{"policy observation is a list", SIM,
             P("model: m.onnx, " J1 ", action_scale: 0.25, observation: 5"), "policy.observation",
             "expected a list of terms"},
        Case{"policy observation term known", SIM,
             P("model: m.onnx, " J1 ", action_scale: 0.25, observation: [{term: joint_torque}]"),
             "policy.observation[0].term",
             "'joint_torque' is not an observation term (base_ang_vel, projected_gravity, command, "
             "joint_pos, joint_vel, last_action, phase)"},
        Case{"policy phase period required", SIM,
             P("model: m.onnx, " J1 ", action_scale: 0.25, observation: [{term: phase}]"),
             "policy.observation[0]", "missing required key 'period_s'"},
        Case{"policy phase period range", SIM,
             P("model: m.onnx, " J1 ", action_scale: 0.25, observation: [{term: phase, "
               "period_s: 0}]"),
             "policy.observation[0].period_s", "0 is outside 0.01..1000"},
        Case{"policy phase values", SIM,
             P("model: m.onnx, " J1 ", action_scale: 0.25, observation: [{term: phase, "
               "period_s: 0.8, values: tan}]"),
             "policy.observation[0].values", "'tan' is not sin_cos, sin or cos"},
        Case{"policy phase since", SIM,
             P("model: m.onnx, " J1 ", action_scale: 0.25, observation: [{term: phase, "
               "period_s: 0.8, since: boot}]"),
             "policy.observation[0].since", "'boot' is not policy or start"},
        Case{"policy phase keys only on phase", SIM,
             P("model: m.onnx, " J1 ", action_scale: 0.25, observation: [{term: command, "
               "period_s: 0.8}]"),
             "policy.observation[0].period_s", "only the phase term takes it"},
        Case{"policy recurrent state is a mapping", SIM,
             P("model: m.onnx, " J1 ", action_scale: 0.25, " O ", recurrent_state: [h_in]"),
             "policy.recurrent_state", "expected a mapping of the network's state inputs"},
        Case{"policy observation term required", SIM,
             P("model: m.onnx, " J1 ", action_scale: 0.25, observation: [{scale: 1}]"),
             "policy.observation[0]", "missing required key 'term'"},
        Case{"policy observation scale count", SIM,
             P("model: m.onnx, " J1
               ", action_scale: 0.25, observation: [{term: command, scale: [1, 2]}]"),
             "policy.observation[0].scale",
             "has 2 values: give one, or one per value of command (3)"},
        Case{"policy observation scale finite", SIM,
             P("model: m.onnx, " J1
               ", action_scale: 0.25, observation: [{term: command, scale: .nan}]"),
             "policy.observation[0].scale", "nan is not a finite number"},
        Case{"policy observation joints only for joint terms", SIM,
             P("model: m.onnx, " J1
               ", action_scale: 0.25, observation: [{term: command, joints: [L_Knee]}]"),
             "policy.observation[0].joints", "only joint_pos and joint_vel take joints"},
        Case{"policy observation joint must exist", SIM,
             P("model: m.onnx, " J1
               ", action_scale: 0.25, observation: [{term: joint_pos, joints: [Tail]}]"),
             "policy.observation[0].joints[0]", "unknown joint 'Tail'"},
        Case{"policy observation joints not empty", SIM,
             P("model: m.onnx, " J1
               ", action_scale: 0.25, observation: [{term: joint_vel, joints: []}]"),
             "policy.observation[0].joints", "empty: leave it out to use policy.joints"},
        Case{"policy observation clip per value", SIM,
             P("model: m.onnx, " J1
               ", action_scale: 0.25, observation: [{term: command, clip: [[-1, 1], [0, 1]]}]"),
             "policy.observation[0].clip",
             "has 2 values: give one, or one per value of command (3)"},
        Case{"policy observation clip low first", SIM,
             P("model: m.onnx, " J1
               ", action_scale: 0.25, observation: [{term: command, clip: [1, -1]}]"),
             "policy.observation[0].clip", "[1, -1] is not a range of finite numbers, low first"},
        Case{"policy observation clip is a range", SIM,
             P("model: m.onnx, " J1
               ", action_scale: 0.25, observation: [{term: command, clip: [1, 2, 3]}]"),
             "policy.observation[0].clip", "expected [low, high]"},
        Case{"policy history", SIM, P("model: m.onnx, " J1 ", action_scale: 0.25, history: 0, " O),
             "policy.history", "0 is outside 1..64"},
        Case{"policy history layout", SIM,
             P("model: m.onnx, " J1 ", action_scale: 0.25, history_layout: interleaved, " O),
             "policy.history_layout",
             "'interleaved' is not a history layout (frame_major, term_major)"},
        Case{"policy observation clip", SIM,
             P("model: m.onnx, " J1 ", action_scale: 0.25, observation_clip: -5, " O),
             "policy.observation_clip", "-5 is outside 0..10000"},
        Case{"policy unknown key", SIM,
             P("modle: m.onnx, model: m.onnx, " J1 ", action_scale: 0.25, " O), "policy.modle",
             "unknown key"},
        Case{"policy must be a mapping", SIM, "policy: 5\n" SIM, "policy", "expected a mapping"},
        Case{"unknown section", "sim:                                      #",
             "policies: {}\nsim:                                      #", "policies",
             "unknown key"},
        Case{"unknown key in a section", "stand_ramp_s: 2.0", "stand_ramps: 2.0",
             "control.stand_ramps", "unknown key"},
        Case{"negative unsigned", "fall_hold_ms: 100", "fall_hold_ms: -3", "safety.fall_hold_ms",
             "-3 is not a non-negative integer"},
        Case{"section must be a mapping", "realtime:                       #",
             "realtime: 5\nold_realtime:                       #", "realtime",
             "expected a mapping"}),
    RuleName);
#undef SIM
#undef P
#undef J1
#undef J2
#undef O

TEST(Rejects, TelemetryFasterThanControl) {
  std::string text = DefaultYaml();
  text.replace(text.find("rate_hz: 500 "), 13, "rate_hz: 50 ");
  text.replace(text.find("max_segments: 100"), 17, "max_segments: 10 ");
  text.replace(text.find("  rate_hz: 10\n"), 14, "  rate_hz: 80\n");
  text.replace(text.find("control_stall_ms: 50 "), 21, "control_stall_ms: 100");  // 2 periods+
  const auto p = Problems(text);
  ASSERT_EQ(p.size(), 1u) << p[0];
  EXPECT_NE(p[0].find("telemetry.rate_hz: must not exceed control.rate_hz"), std::string::npos)
      << p[0];
}

TEST(Rejects, EmptyListsAndMissingSections) {
  const auto p = Problems("robot: {name: x}\nimu: {bus: a}\n");
  const auto has = [&](const std::string& s) {
    return std::any_of(p.begin(), p.end(), [&](const auto& m) { return m.find(s) != m.npos; });
  };
  EXPECT_TRUE(has("unknown bus 'a'"));
  const auto q = Problems("robot: {name: x}\n");
  const auto has_q = [&](const std::string& s) {
    return std::any_of(q.begin(), q.end(), [&](const auto& m) { return m.find(s) != m.npos; });
  };
  EXPECT_TRUE(has_q("imu: missing required section"));
  std::string no_joints = DefaultYaml();
  no_joints.replace(no_joints.find("\njoints:"), 8, "\nold_joints:");
  const auto r = Problems(no_joints);
  const auto has_r = [&](const std::string& s) {
    return std::any_of(r.begin(), r.end(), [&](const auto& m) { return m.find(s) != m.npos; });
  };
  EXPECT_TRUE(has_r("old_joints: unknown key"));
}

TEST(Rejects, NoJointsNoBusesNoMotors) {
  Config c = ParseConfig(DefaultYaml(), "robot-edge.yaml");
  c.joints.clear();
  c.buses.clear();
  c.motors.clear();
  const auto p = Validate(c);
  const auto has = [&](const std::string& s) {
    return std::any_of(p.begin(), p.end(), [&](const auto& m) { return m.find(s) != m.npos; });
  };
  EXPECT_TRUE(has("joints: at least one joint is required"));
  EXPECT_TRUE(has("buses: at least one bus is required"));
  EXPECT_TRUE(has("motors: at least one motor model is required"));
}

TEST(Rejects, TooManyJoints) {
  Config c = ParseConfig(DefaultYaml(), "robot-edge.yaml");
  while (c.joints.size() <= kMaxJoints) {
    JointConfig j = c.joints[0];
    j.name = "extra" + std::to_string(c.joints.size());
    j.can_id = 100 + static_cast<std::uint32_t>(c.joints.size());
    c.joints.push_back(j);
  }
  const auto p = Validate(c);
  ASSERT_FALSE(p.empty());
  EXPECT_NE(p[0].find("joints: more than 128"), std::string::npos) << p[0];
}

TEST(Rejects, YamlSyntaxErrorNamesTheLine) {
  try {
    ParseConfig("robot:\n  name: [unclosed\n", "bad.yaml");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("bad.yaml:", 0), 0u) << e.what();
  }
}

TEST(Rejects, EveryProblemIsReportedAtOnce) {
  std::string text = DefaultYaml();
  text.replace(text.find("rate_hz: 500 "), 13, "rate_hz: 5000 ");
  text.replace(text.find("fall_hold_ms: 100"), 17, "fall_hold_ms: 9999");
  EXPECT_EQ(Problems(text).size(), 2u);
}

std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// accel_id 0 (or absent) means no accelerometer frame: valid even though waist_neck's
// master_id is 0 too.
TEST(Imu, TheAccelerometerFrameIsOptional) {
  const std::string from = ", accel_id: 0x103";
  const Config absent = ParseConfig(Replaced(DefaultYaml(), from, ""), "x.yaml");
  EXPECT_EQ(absent.imu.accel_id, 0u);
  EXPECT_TRUE(Validate(absent).empty());
  const Config zero = ParseConfig(Replaced(DefaultYaml(), from, ", accel_id: 0"), "x.yaml");
  EXPECT_EQ(zero.imu.accel_id, 0u);
  EXPECT_EQ(zero.buses[zero.imu.bus].master_id, 0u);
  EXPECT_TRUE(Validate(zero).empty());
}

// Without a battery: section there is no battery state, and nothing of it is checked but the
// thresholds.
TEST(Battery, AbsentMeansNoSource) {
  const std::string line =
      "battery: {source: can, bus: waist_neck, can_id: 0x180, low_percent: 20, clear_percent: 25}";
  const Config c = ParseConfig(Replaced(DefaultYaml(), line, ""), "x.yaml");
  EXPECT_EQ(c.battery.source, BatteryConfig::Source::kNone);
  EXPECT_EQ(c.battery.path, "/sys/class/power_supply/BAT0");
  EXPECT_TRUE(Validate(c).empty());
  const Config none =
      ParseConfig(Replaced(DefaultYaml(), line, "battery: {source: none, can_id: 0}"), "x.yaml");
  EXPECT_EQ(none.battery.source, BatteryConfig::Source::kNone);
  EXPECT_TRUE(Validate(none).empty()) << "can_id is the can source's only";
}

// A power supply that is not there (yet) is the daemon's to report at run time, not a reason to
// refuse the file.
TEST(Battery, SysfsPathIsNotCheckedForExistence) {
  const Config c =
      ParseConfig(Replaced(DefaultYaml(), "source: can, bus: waist_neck, can_id: 0x180",
                           "source: sysfs, path: /nonexistent/power_supply/BAT9, timeout_ms: 5000"),
                  "x.yaml");
  EXPECT_EQ(c.battery.source, BatteryConfig::Source::kSysfs);
  EXPECT_EQ(c.battery.path, "/nonexistent/power_supply/BAT9");
  EXPECT_EQ(c.battery.timeout_ms, 5000u);
  EXPECT_TRUE(Validate(c).empty());
}

// The IMU's ids are taken on the IMU's bus only; a joint's id on its own bus only.
TEST(Battery, IdsCollideOnTheSameBusOnly) {
  const Config c = ParseConfig(
      Replaced(DefaultYaml(), "bus: waist_neck, can_id: 0x180", "bus: left_leg, can_id: 0x102"),
      "x.yaml");
  EXPECT_EQ(c.battery.bus, 0u);
  EXPECT_TRUE(Validate(c).empty());
  const Config d = ParseConfig(
      Replaced(DefaultYaml(), "bus: waist_neck, can_id: 0x180", "bus: waist_neck, can_id: 6"),
      "x.yaml");
  EXPECT_TRUE(Validate(d).empty()) << "left_leg's motor 6 is not on waist_neck";
}

TEST(Warnings, NoneForTheDefaultConfig) {
  EXPECT_TRUE(Warnings(ParseConfig(DefaultYaml(), "robot-edge.yaml")).empty());
}

TEST(Warnings, ClassicRepliesCannotReportTemperatureOrFaults) {
  const Config c = ParseConfig(Replaced(DefaultYaml(), "reply: ak,", "reply: classic,"), "x.yaml");
  ASSERT_TRUE(Validate(c).empty());
  const auto w = Warnings(c);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("L_Hip_Pitch, L_Hip_Roll"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("MOTOR_OVERTEMP and MOTOR_FAULT cannot fire"), std::string::npos);
}

TEST(ApiTls, TcpOffLoopbackIsAcceptedWithTlsOrAnExplicitPlaintextOptOut) {
  const std::string tcp = "tcp: \"0.0.0.0:7000\"\n  ";
  const Config tls = ParseConfig(
      Replaced(
          DefaultYaml(), "tcp: \"\"",
          tcp + "tls: {certificate: tls/edge.pem, private_key: tls/edge.key, client_ca: ca.pem}"),
      "/etc/robot-edge/robot-edge.yaml");
  EXPECT_TRUE(Validate(tls).empty());
  EXPECT_EQ(tls.api.tls.certificate_path, "/etc/robot-edge/tls/edge.pem");
  EXPECT_EQ(tls.api.tls.private_key_path, "/etc/robot-edge/tls/edge.key");
  EXPECT_EQ(tls.api.tls.client_ca_path, "/etc/robot-edge/ca.pem");
  const Config plain =
      ParseConfig(Replaced(Replaced(DefaultYaml(), "tcp: \"\"", "tcp: \"0.0.0.0:7000\""),
                           "allow_plaintext: false", "allow_plaintext: true"),
                  "x.yaml");
  EXPECT_TRUE(Validate(plain).empty());
  const Config loopback =
      ParseConfig(Replaced(DefaultYaml(), "tcp: \"\"", "tcp: \"127.0.0.1:7000\""), "x.yaml");
  EXPECT_TRUE(Validate(loopback).empty()) << "loopback stays allowed in plaintext";
}

TEST(LivePlaintext, OffLoopbackOnlyWithTheOptOutAndAWarning) {
  const Config c = ParseConfig(Replaced(DefaultYaml(), "address: 127.0.0.1:8765 ",
                                        "address: 0.0.0.0:8765\n  allow_plaintext: true\n  #"),
                               "x.yaml");
  const auto problems = Validate(c);
  ASSERT_EQ(problems.size(), 1u);  // the token file is still required
  EXPECT_NE(problems[0].find("live.token_file"), std::string::npos) << problems[0];
  const auto w = Warnings(c);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("live.allow_plaintext"), std::string::npos) << w[0];
}

TEST(LiveTls, OffLoopbackIsAcceptedWithTlsWithoutTheOptOutOrItsWarning) {
  const Config c = ParseConfig(
      Replaced(Replaced(DefaultYaml(), "address: 127.0.0.1:8765 ",
                        "address: 0.0.0.0:8765\n"
                        "  tls: {certificate: tls/live.pem, private_key: tls/live.key}\n  #"),
               "token_file: \"\"  ", "token_file: live.token  "),
      "/etc/robot-edge/robot-edge.yaml");
  EXPECT_TRUE(Validate(c).empty());
  EXPECT_TRUE(c.live.tls.enabled());
  EXPECT_EQ(c.live.tls.certificate_path, "/etc/robot-edge/tls/live.pem");
  EXPECT_EQ(c.live.tls.private_key_path, "/etc/robot-edge/tls/live.key");
  EXPECT_TRUE(Warnings(c).empty());
}

TEST(Warnings, TcpWithoutAnyControllerTokenAdmitsNobody) {
  const Config c =
      ParseConfig(Replaced(DefaultYaml(), "tcp: \"\"", "tcp: \"127.0.0.1:7000\""), "x.yaml");
  ASSERT_TRUE(Validate(c).empty());
  const auto w = Warnings(c);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("no controller has a token_file: every TCP client will be refused"),
            std::string::npos)
      << w[0];
}

TEST(Warnings, LoopbackWithoutATokenIsOpenToEveryLocalUser) {
  const Config c = ParseConfig(
      Replaced(DefaultYaml(), "access: {}", "access: {}\n  allow_loopback_without_token: true"),
      "x.yaml");
  ASSERT_TRUE(Validate(c).empty());
  const auto w = Warnings(c);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("any local user can be any controller over TCP"), std::string::npos) << w[0];
}

TEST(Warnings, AMotorWithoutACanTimeoutHoldsItsLastCommand) {
  const Config c =
      ParseConfig(Replaced(DefaultYaml(), "can_timeout_ms: 100}", "can_timeout_ms: 0}"), "x.yaml");
  ASSERT_TRUE(Validate(c).empty());
  const auto w = Warnings(c);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("ak80_9 declare no CAN-loss timeout (can_timeout_ms)"), std::string::npos)
      << w[0];
}

TEST(Rejects, AKeyGivenTwiceNamesBothLines) {
  const std::string text =
      Replaced(DefaultYaml(), "  stand_ramp_s: 2.0", "  stand_ramp_s: 2.0\n  stand_ramp_s: 0.2");
  const auto p = Problems(text);
  ASSERT_EQ(p.size(), 1u);
  const int first = LineOf(text, text.find("stand_ramp_s: 2.0"));
  EXPECT_EQ(p[0], "robot-edge.yaml:" + std::to_string(first + 1) +
                      ": control.stand_ramp_s: given twice (lines " + std::to_string(first) +
                      " and " + std::to_string(first + 1) + "): remove one");
}

TEST(Rejects, DuplicatesInsideFlowMappingsAndListsToo) {
  const std::string text = Replaced(DefaultYaml(), "{name: L_Knee,           bus: left_leg,",
                                    "{name: L_Knee, name: L_Knie,          bus: left_leg,");
  const auto p = Problems(text);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("joints[3].name: given twice"), std::string::npos) << p[0];
}

// Found by fuzz_config: a complex key (YAML's "? [a]") used to escape as a yaml-cpp exception.
TEST(Rejects, AKeyThatIsAListOrAMappingIsAnErrorNotAnException) {
  for (const char* key : {"? [cloud]\n    : {}", "? {cloud: 1}\n    : {}", "? \n    : {}"}) {
    const std::string text =
        Replaced(DefaultYaml(), "access: {}", std::string("access:\n    ") + key);
    const auto p = Problems(text);
    ASSERT_EQ(p.size(), 1u) << key;
    EXPECT_NE(p[0].find("api.access: a key must be a plain name"), std::string::npos) << p[0];
  }
}

TEST(Access, EveryKeyIsParsedAndTheTokenFileIsRelativeToTheFile) {
  const Config c = ParseConfig(
      Replaced(DefaultYaml(), "access: {}",
               "access:\n    cloud: {users: [robot-cloud], groups: [ops], token_file: t/cloud}\n"
               "    observer: {groups: [robot-edge]}"),
      "/etc/robot-edge/robot-edge.yaml");
  ASSERT_TRUE(Validate(c).empty());
  ASSERT_EQ(c.api.access.size(), 2u);
  EXPECT_EQ(c.api.access[0].name, "cloud");
  EXPECT_EQ(c.api.access[0].users, (std::vector<std::string>{"robot-cloud"}));
  EXPECT_EQ(c.api.access[0].groups, (std::vector<std::string>{"ops"}));
  EXPECT_EQ(c.api.access[0].token_path, "/etc/robot-edge/t/cloud");
  EXPECT_EQ(c.api.access[1].name, "observer");
}

TEST(Policy, AbsentByDefault) {
  const Config c = ParseConfig(DefaultYaml(), "robot-edge.yaml");
  EXPECT_FALSE(c.policy.enabled);
  EXPECT_TRUE(Validate(c).empty());
}

TEST(Policy, EveryKeyIsParsedAndTheModelIsRelativeToTheFile) {
  const std::string text = DefaultYaml() + R"(
policy:
  model: policies/walk.onnx
  rate_hz: 40
  joints: [L_Knee, R_Knee]
  default_pose: [0.5, 0.7]
  action_scale: [0.25, 0.5]
  action_clip: 5
  kp: 80
  kd: [1.5, 2.0]
  observation:
    - {term: base_ang_vel, scale: 0.25}
    - {term: projected_gravity}
    - {term: command, scale: [2.0, 2.0, 0.25]}
    - {term: joint_pos, joints: [L_Hip_Pitch, L_Knee, Neck_Yaw]}
    - {term: joint_vel, scale: 0.05}
    - {term: last_action}
  observation_clip: 100
  history: 3
  history_layout: term_major
)";
  const Config c = ParseConfig(text, "/etc/robot-edge/robot-edge.yaml");
  EXPECT_TRUE(Validate(c).empty());
  const PolicyConfig& p = c.policy;
  EXPECT_TRUE(p.enabled);
  EXPECT_EQ(p.model, "policies/walk.onnx");
  EXPECT_EQ(p.model_path, "/etc/robot-edge/policies/walk.onnx");
  EXPECT_EQ(p.rate_hz, 40.0);
  EXPECT_EQ(p.joints, (std::vector<std::size_t>{3, 9}));
  EXPECT_EQ(p.default_pose_rad, (std::vector<double>{0.5, 0.7}));
  EXPECT_EQ(p.action_scale, (std::vector<double>{0.25, 0.5}));
  EXPECT_EQ(p.action_clip, 5.0);
  EXPECT_EQ(p.kp, (std::vector<double>{80}));
  EXPECT_EQ(p.kd, (std::vector<double>{1.5, 2.0}));
  EXPECT_EQ(p.observation_clip, 100.0);
  EXPECT_EQ(p.history, 3u);
  EXPECT_EQ(p.history_layout, HistoryLayout::kTermMajor);
  ASSERT_EQ(p.observation.size(), 6u);
  EXPECT_EQ(p.observation[0].term, ObservationTerm::kBaseAngVel);
  EXPECT_EQ(p.observation[0].scale, (std::vector<double>{0.25}));
  EXPECT_EQ(p.observation[1].scale, (std::vector<double>{1.0}));  // the default
  EXPECT_EQ(p.observation[2].scale, (std::vector<double>{2.0, 2.0, 0.25}));
  EXPECT_EQ(p.observation[3].joints, (std::vector<std::size_t>{0, 3, 24}));
  EXPECT_EQ(p.observation[4].joints, p.joints);  // default: the policy's joints
  EXPECT_EQ(TermSize(p.observation[3], p), 3u);
  EXPECT_EQ(TermSize(p.observation[5], p), 2u);
  EXPECT_EQ(ParseConfig(text, "robot-edge.yaml").policy.model_path, "policies/walk.onnx");
}

TEST(Where, FallsBackToTheNearestParentLine) {
  const Config c = ParseConfig(DefaultYaml(), "robot-edge.yaml");
  const int joint3 = c.lines.at("joints[3]");
  EXPECT_EQ(c.Where("joints[3].damp_kd"),
            "robot-edge.yaml:" + std::to_string(joint3) + ": joints[3].damp_kd");
  EXPECT_EQ(c.Where("nothing.here"), "robot-edge.yaml: nothing.here");
}

TEST(HostPort, ParsesNamesV4AndBracketedV6) {
  const auto name = ParseHostPort("robot.local:7000");
  ASSERT_TRUE(name);
  EXPECT_EQ(name->host, "robot.local");
  EXPECT_EQ(name->port, 7000);
  const auto v6 = ParseHostPort("[fe80::1]:65535");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "fe80::1");
  EXPECT_EQ(v6->port, 65535);
  EXPECT_EQ(ParseHostPort("0.0.0.0:0", /*allow_port_zero=*/true)->port, 0);
}

TEST(HostPort, RefusesWhatIsNotHostPort) {
  for (const char* bad : {"robot", ":7000", "robot:", "robot:0", "robot:65536", "robot:70x",
                          "robot:-1", "robot: 7000", ""}) {
    EXPECT_FALSE(ParseHostPort(bad)) << bad;
  }
}

// A bus carries its motors' command and reply every tick: at 500 Hz and 1 Mbit/s, 7 motors at
// worst-case stuffing (config/bus_capacity.hpp).
TEST(BusCapacity, SevenMotorsFitABusAt500HzAndEightAreRefused) {
  EXPECT_EQ(MaxMotorsPerBus(1000000, 500), 7u);
  EXPECT_EQ(MaxMotorsPerBus(1000000, 1000), 3u);
  EXPECT_EQ(MaxMotorsPerBus(500000, 500), 3u);
  std::string text = DefaultYaml();
  // Two left-arm motors onto the left leg's bus (6 motors there): 8.
  const std::pair<std::string, std::string> moves[] = {
      {"bus: left_arm,   can_id: 1,", "bus: left_leg,   can_id: 7,"},
      {"bus: left_arm,   can_id: 2,", "bus: left_leg,   can_id: 8,"}};
  for (const auto& [from, to] : moves) {
    const std::size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  }
  const auto problems = Problems(text);
  ASSERT_EQ(problems.size(), 1u) << ::testing::PrintToString(problems);
  EXPECT_NE(problems[0].find("buses[0]: 'left_leg' carries 8 motors: a command and a reply each "
                             "per tick at control.rate_hz 500 need 108 % of 1000000 bit/s"),
            std::string::npos)
      << problems[0];
  EXPECT_NE(problems[0].find("at most 7 fit"), std::string::npos) << problems[0];
  // One of them: 7 motors, 95 %: valid, with a warning.
  const std::size_t back = text.find("bus: left_leg,   can_id: 8,");
  text.replace(back, std::string("bus: left_leg,   can_id: 8,").size(),
               "bus: left_arm,   can_id: 2,");
  EXPECT_TRUE(Problems(text).empty());
  const auto w = Warnings(ParseConfig(text, "robot-edge.yaml"));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("'left_leg' carries 7 motors, 95 % of the bus"), std::string::npos) << w[0];
}

// Issue 41: the state machine's own defaults were unsafe where they mirrored the config's (the
// stop latch off, no joint-limit margin), and only config/ set them right. They are the config's
// now, field by field: a change to one side without the other fails here.
TEST(LibraryOptions, TheStateMachinesDefaultsAreTheConfigurations) {
  const sm::MachineOptions of_config = MachineOptionsOf(Config{});
  const sm::MachineOptions own;
  EXPECT_TRUE(own.latch_external_damp);
  EXPECT_EQ(own.alerts.joint_limit_margin_rad, 0.15);
  EXPECT_EQ(own.alerts, of_config.alerts) << "statemachine/options.hpp's AlertOptions defaults";
  EXPECT_TRUE(own == of_config) << "statemachine/options.hpp's MachineOptions defaults";
}

}  // namespace
}  // namespace robot_edge::config
