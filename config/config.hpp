// The robot's configuration: typed structs with defaults, parsed from YAML, validated before
// anything opens. Each field names its YAML key and unit.
//
// Use LoadConfig(): it parses, validates and throws ConfigError listing every problem as
// "file:line: key: message". ParseConfig() and Validate() are the two halves, for tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "can/wiring.hpp"
#include "policy/setup.hpp"
#include "statemachine/options.hpp"

namespace robot_edge::config {

// Types the libraries below declare for themselves, held here as the YAML's sections (no copy at
// start-up); their fields' keys and units are commented where they are declared.
using can::BusConfig;           // yaml: buses[i] (can/wiring.hpp)
using can::kMaxBuses;           // buses at most
using can::kMaxJoints;          // joints at most
using can::kUnresolved;         // a bus or motor name that names nothing (Validate() reports it)
using can::MotorFamily;         // yaml: motors.<name>.family
using can::MotorModel;          // yaml: motors.<name> (can/wiring.hpp)
using can::ReplyFormat;         // yaml: motors.<name>.reply
using can::ToString;            // ToString(MotorFamily)
using policy::HistoryLayout;    // yaml: policy.history_layout (policy/setup.hpp)
using policy::ObservationTerm;  // yaml: policy.observation[i].term
using policy::ObservationTermConfig;  // yaml: policy.observation[i]
using policy::PhaseSince;             // yaml: policy.observation[i].since
using policy::PhaseValues;            // yaml: policy.observation[i].values
using policy::PolicyConfig;           // yaml: policy (policy/setup.hpp)
using policy::TermSize;
using policy::ToString;       // ToString(ObservationTerm), (HistoryLayout), ...
using sm::PolicyFaultAction;  // yaml: policy.on_fault (statemachine/options.hpp)

// Limits of the public API (seed 000): gains and velocities a command may ask for.
inline constexpr double kApiKpMax = 500.0;  // N·m/rad
inline constexpr double kApiKdMax = 5.0;    // N·m·s/rad
inline constexpr double kApiVxMax = 2.0;    // m/s
inline constexpr double kApiVyMax = 1.0;    // m/s
inline constexpr double kApiVyawMax = 2.0;  // rad/s

// One joint and its motor, in firmware order. yaml: joints[i]
// Everything here is in joint space; the motor turns as
//   q_joint = direction · gear_ratio · q_motor + offset
// (can/joint_transform.hpp converts; only CAN frames are in motor space).
struct JointConfig {
  std::string name;                 ///< name: e.g. L_Hip_Pitch
  std::string bus_name;             ///< bus: name of a buses[] entry
  std::size_t bus = kUnresolved;    ///< index into Config::buses (resolved from bus_name)
  std::uint32_t can_id = 0;         ///< can_id: the motor's standard CAN id, 1..0x7FF
  std::string motor_name;           ///< motor: name of a motors entry
  std::size_t motor = kUnresolved;  ///< index into Config::motors (resolved from motor_name)
  double min_rad = 0.0;        ///< min: lower position limit (rad); every target is clamped to it
  double max_rad = 0.0;        ///< max: upper position limit (rad)
  double kp = 0.0;             ///< kp: default position gain (N·m/rad) when a command has none
  double kd = 0.0;             ///< kd: default damping gain (N·m·s/rad) when a command has none
  double stand_rad = 0.0;      ///< stand: target of the stand pose (rad)
  double damp_kd = 1.0;        ///< damp_kd: damping gain in DAMP, where kp = 0 (N·m·s/rad)
  double max_torque_nm = 0.0;  ///< max_torque: bound on the feed-forward torque and, in
                               ///< MOVE/JOINT_STREAM, on the PD torque's reach (N·m at the
                               ///< joint); 0 = the motor's t_max
  double max_velocity_rad_s = 0.0;  ///< max_velocity: measured faster than this in a streamed
                                    ///< MOVE, the robot DAMPs (rad/s); 0 =
                                    ///< safety.max_joint_velocity
  double offset_rad = 0.0;          ///< offset: joint position when the motor reads 0 (rad); the
                                    ///< calibration file's value replaces it
  int direction = 1;              ///< direction: +1 the motor turns as the joint does, -1 reversed
  double gear_ratio = 1.0;        ///< gear_ratio: joint turns per motor turn, for a transmission
                                  ///< beyond the motor's own gearbox (0.5 = a 2:1 reduction)
  bool calibrated = false;        ///< offset came from the calibration file
  double sim_inertia_kgm2 = 0.0;  ///< inertia: simulator only; 0 = sim.joint_inertia
  double sim_friction_nms = 0.0;  ///< friction: simulator only; 0 = sim.joint_friction

  bool operator==(const JointConfig&) const = default;
};

// Guards on the targets a client streams, for a group of joints (the model: Agibot A2's arm
// interface, seed 003). yaml: target_limits (a list). Applied in the control tick to
// MOVE/TRAJECTORY and MOVE/JOINT_STREAM, from the first packet on (a packet from DAMP starts from
// the measured pose): the target moves towards the client's at most at max_velocity, speeding up
// and slowing down at most at max_acceleration, after an optional first-order low-pass y(k) = (1 -
// a)·y(k-1) + a·x(k). A joint in no group has none (the default).
struct TargetLimitConfig {
  std::vector<std::string> joint_names;  ///< joints: the group
  std::vector<std::size_t> joints;       ///< indices into Config::joints (resolved)
  double max_velocity = 0.0;             ///< max_velocity (rad/s); 0 = none
  double max_acceleration = 0.0;         ///< max_acceleration (rad/s²); 0 = none
  double low_pass = 1.0;                 ///< low_pass: a, 0 < a <= 1; 1 = none

  bool operator==(const TargetLimitConfig&) const = default;
};

// The IMU on a CAN bus. yaml: imu
// Frames: quat_id carries w, x, y, z as four little-endian int16 scaled by 1/32767;
// gyro_id carries x, y, z as three little-endian int16 in mrad/s; the optional accel_id carries
// x, y, z as three little-endian int16 in 0.01 m/s² (specific force, body frame).
struct ImuConfig {
  std::string bus_name;            ///< bus: name of a buses[] entry
  std::size_t bus = kUnresolved;   ///< index into Config::buses
  std::uint32_t quat_id = 0x101;   ///< quat_id: CAN id of the quaternion frame
  std::uint32_t gyro_id = 0x102;   ///< gyro_id: CAN id of the angular-velocity frame
  std::uint32_t accel_id = 0;      ///< accel_id: CAN id of the accelerometer frame; 0 = none
  std::uint32_t timeout_ms = 100;  ///< timeout_ms: IMU_TIMEOUT alert after this silence

  bool operator==(const ImuConfig&) const = default;
};

// The battery's state, for the state stream, diagnostics and the BATTERY_LOW alert. yaml: battery
//   source none: no battery state (the default)
//   source can:  the BMS's frame on `bus` with id `can_id` (docs/can.md: the frame's layout)
//   source sysfs: Linux's power-supply class, `path` (e.g. /sys/class/power_supply/BAT0), read
//                once a second off the control thread
struct BatteryConfig {
  enum class Source { kNone, kCan, kSysfs };
  Source source = Source::kNone;                      ///< source: none | can | sysfs
  std::string bus_name;                               ///< bus: name of a buses[] entry (can)
  std::size_t bus = kUnresolved;                      ///< index into Config::buses (can)
  std::uint32_t can_id = 0x180;                       ///< can_id: CAN id of the BMS frame (can)
  std::string path = "/sys/class/power_supply/BAT0";  ///< path: the power supply (sysfs)
  double low_percent = 20.0;        ///< low_percent: BATTERY_LOW at or below this charge
  double clear_percent = 25.0;      ///< clear_percent: clears at or above (> low_percent)
  std::uint32_t timeout_ms = 3000;  ///< timeout_ms: a reading older than this is unknown
};

// yaml: control
struct ControlConfig {
  double rate_hz = 500.0;                     ///< rate_hz: control loop rate
  std::uint32_t trajectory_timeout_ms = 200;  ///< trajectory_timeout_ms: MOVE/TRAJECTORY
                                              ///< auto-DAMPs after this long without a packet
  double stand_ramp_s = 2.0;                  ///< stand_ramp_s: duration of the STAND ramp
  std::uint32_t motor_reply_timeout_ms = 50;  ///< motor_reply_timeout_ms: MOTOR_TIMEOUT alert
  std::uint32_t max_segments = 100;           ///< max_segments: segments per trajectory (one
                                              ///< per control period); longer ones are
                                              ///< dropped. Their playback must fit in
                                              ///< trajectory_timeout_ms (validated), so that
                                              ///< the watchdog never cuts one short. Default:
                                              ///< as many as fit (100 at 500 Hz and 200 ms)
  bool shape_trajectory = false;  ///< shape_trajectory: target_limits also shape MOVE/TRAJECTORY
                                  ///< (a departure from seed 000, whose targets apply as sent);
                                  ///< they always shape MOVE/JOINT_STREAM

  bool operator==(const ControlConfig&) const = default;
};

// Real-time settings for the control thread only. yaml: realtime
struct RealtimeConfig {
  int priority = 0;          ///< priority: SCHED_FIFO priority 1..99; 0 = normal scheduling
  int cpu = -1;              ///< cpu: pin the control thread to this CPU; -1 = no pinning
  bool lock_memory = false;  ///< lock_memory: mlockall(MCL_CURRENT | MCL_FUTURE)

  bool operator==(const RealtimeConfig&) const = default;
};

// yaml: telemetry
struct TelemetryConfig {
  double rate_hz = 10.0;             ///< rate_hz: EdgeTelemetry to every client
  double diagnostics_rate_hz = 1.0;  ///< diagnostics_rate_hz: EdgeDiagnostics events
};

// yaml: safety
struct SafetyConfig {
  double overtemp_trip_c = 80.0;     ///< overtemp_trip_c: MOTOR_OVERTEMP at or above (°C)
  double overtemp_clear_c = 70.0;    ///< overtemp_clear_c: clears below (°C)
  double fall_tilt_deg = 60.0;       ///< fall_tilt_deg: tilt from upright that means a fall (°)
  double fall_clear_deg = 30.0;      ///< fall_clear_deg: FALL_DETECTED clears below this tilt (°)
  std::uint32_t fall_hold_ms = 100;  ///< fall_hold_ms: tilt must last this long
  double joint_limit_margin_rad = 0.15;  ///< joint_limit_margin_rad: JOINT_OUT_OF_RANGE when a
                                         ///< joint reads beyond its limits by more (rad): a wrong
                                         ///< offset or a slipped encoder holds DAMP
  double min_loop_rate_fraction = 0.5;   ///< min_loop_rate_fraction: CONTROL_LOOP_SLOW when the
                                         ///< control loop's rate over a second falls below this
                                         ///< fraction of control.rate_hz; 0 = off
  std::uint32_t control_stall_ms = 50;   ///< control_stall_ms: a control thread whose last tick is
                                         ///< older than this is DAMPed by the supervisor thread
                                         ///< (pre-encoded frames), then CONTROL_STALLED; 0 = off
  double max_joint_velocity = 20.0;  ///< max_joint_velocity: every joint's max_velocity unless it
                                     ///< sets its own (rad/s); 0 = no velocity trip
  bool latch_external_damp = true;   ///< latch_external_damp: a DAMP from anyone but the client in
                                     ///< control (an observer, another client, the live view, a
                                     ///< bridge) holds until that client sends ModeCommand(STAND);
                                     ///< false = seed 000's rule (any later command may leave DAMP)

  bool operator==(const SafetyConfig&) const = default;
};

// Velocity ranges; commands are clamped to them. yaml: velocity. Within the API's ranges.
struct VelocityLimits {
  double vx_max = kApiVxMax;      ///< vx_max (m/s): vx clamped to ±vx_max
  double vy_max = kApiVyMax;      ///< vy_max (m/s)
  double vyaw_max = kApiVyawMax;  ///< vyaw_max (rad/s)

  bool operator==(const VelocityLimits&) const = default;
};

// What a client's Hello may name: a controller of api.controllers, or none, which makes it an
// observer (reads telemetry and events, may send DAMP). kObserver names the latter in api.access
// and in logs.
inline constexpr const char* kObserver = "observer";

// Who may connect as one controller (or as observer). yaml: api.access.<name>
//   Unix socket: uid 0 and robot-edged's own uid may be every controller (they can drive the
//   buses directly anyway); anyone else only one whose `users` name them or whose `groups` hold
//   them (SO_PEERCRED). Without an `observer` entry anyone who can open the socket observes.
//   TCP: the Hello's token must equal the controller's (read from `token_file`; compared in
//   constant time, never logged); a controller without one cannot be taken over TCP.
struct ClientAccess {
  std::string name;                 ///< the key under access: a controller, or observer
  std::vector<std::string> users;   ///< users: user names (Unix socket)
  std::vector<std::string> groups;  ///< groups: group names, primary or supplementary
  std::string token_file;           ///< token_file: file holding the controller's TCP token
                                    ///< (relative to the config file's directory)
  std::string token_path;           ///< token_file, resolved

  bool operator==(const ClientAccess&) const = default;
};

// TLS on a TCP listener (api.tls, live.tls). Paths are relative to the config file's directory.
// Empty certificate = no TLS. The key must not be readable by others (checked at start-up).
struct TlsConfig {
  std::string certificate;  ///< certificate: PEM server certificate (chain), "" = no TLS
  std::string private_key;  ///< private_key: PEM key of the certificate
  std::string client_ca;  ///< client_ca: PEM CA(s); set = clients must show a certificate it signed
  std::string certificate_path, private_key_path, client_ca_path;  ///< the three, resolved
  bool enabled() const { return !certificate.empty(); }

  bool operator==(const TlsConfig&) const = default;
};

// The client API. yaml: api
struct ApiConfig {
  std::string unix_socket = "/run/robot-edge/api.sock";  ///< unix_socket: path (mode 0660)
  std::string tcp;               ///< tcp: "host:port" for the optional TCP listener; "" = none
  std::string tcp_host;          ///< parsed from tcp
  std::uint16_t tcp_port = 0;    ///< parsed from tcp
  TlsConfig tls;                 ///< tls: TLS on the TCP listener (see TlsConfig)
  bool allow_plaintext = false;  ///< allow_plaintext: accept a tcp address off loopback without
                                 ///< tls (tokens travel in clear); else refused
  std::vector<std::string> controllers = {"ble", "cloud"};  ///< controllers: names that may
                                                            ///< command, highest priority first
  std::vector<ClientAccess> access;  ///< access.<name>: who may connect as each (ClientAccess)
  std::vector<std::string> maintenance_controllers;  ///< maintenance_controllers: controllers
                                                     ///< that may run the bring-up tools (scan,
                                                     ///< jog, calibrate, zero), in DAMP only
  std::vector<std::string> fleet_may_change;  ///< fleet_may_change: protected sections a fleet
                                              ///< document may change after all (fleet_guard.hpp)
  std::vector<std::string> apply_config_controllers;  ///< apply_config_controllers: controllers
                                                      ///< that may, besides the maintenance ones,
                                                      ///< ask for a restart to apply the
                                                      ///< configuration file (robot-edge-uplink's
                                                      ///< `fleet`), in DAMP only
  bool allow_loopback_without_token = false;  ///< allow_loopback_without_token: TCP clients on
                                              ///< a loopback address may be any controller without
                                              ///< a token (development only)
  std::uint32_t max_command_age_ms = 100;     ///< max_command_age_ms: a command that arrives later
                                              ///< than this beyond the quickest one seen from its
                                              ///< client is dropped (command_freshness.hpp)
  std::uint32_t max_clock_offset_ms = 1000;   ///< max_clock_offset_ms: a command whose timestamp_us
                                              ///< is older than the wall clock by more than this
                                              ///< + max_command_age_ms, or ahead by more than
                                              ///< this, is dropped (command_freshness.hpp)
  std::uint32_t controller_idle_timeout_ms = 10000;  ///< controller_idle_timeout_ms: control is
                                                     ///< released after this long without a command
  bool stop_on_disconnect = true;  ///< stop_on_disconnect: zero the walking velocity when the
                                   ///< controlling client disconnects
  std::uint32_t walking_silence_ms = 1000;  ///< walking_silence_ms: zero the walking velocity when
                                            ///< the client in control sent nothing for this long
                                            ///< (stricter than seed 000); 0 = velocity persists
  std::uint32_t max_clients = 64;           ///< max_clients: further connections are refused
  std::uint32_t event_history = 1024;       ///< event_history: events kept for resume_after_event
  std::uint32_t client_backlog_kib = 4096;  ///< client_backlog_kib: a client with more unsent
                                            ///< events than this is disconnected (KiB)

  bool operator==(const ApiConfig&) const = default;
};

// A motor on the simulated buses that joints[] does not name (robot-edge-sim answers for it, as
// a stray motor on a real robot would). yaml: sim.extra_motors[i]
struct SimExtraMotor {
  std::string bus_name;  ///< bus: name of a buses[] entry
  std::size_t bus = kUnresolved;
  std::string motor_name;  ///< motor: name of a motors entry (its family and ranges)
  std::size_t motor = kUnresolved;
  std::uint32_t can_id = 0;  ///< can_id
};

// The flight recorder and the black box (recorder/, wired by daemon/flight_recorder). yaml:
// recorder. Recording is observability: a directory it cannot use is a start-up warning and
// recording stays off; control goes on.
struct RecorderConfig {
  std::string directory = "/var/lib/robot-edge/recordings";  ///< directory: MCAP files
                                                             ///< (relative to the config file's
                                                             ///< directory when relative)
  std::string directory_path;                                ///< directory, resolved
  bool record_on_start = false;  ///< record_on_start: record continuously from start-up
                                 ///< (else robot-edgectl record start)
  std::vector<std::string> channels = {"joint_state", "telemetry", "events", "commands"};
  ///< channels: what is recorded (joint_state, telemetry,
  ///< events, commands, diagnostics, can)
  std::string compression = "zstd";        ///< compression: zstd | lz4 | none
  std::uint32_t max_file_mb = 512;         ///< max_file_mb: a new file after this many MiB
  std::uint32_t max_file_minutes = 60;     ///< max_file_minutes: a new file after this long
  double retention_gb = 8.0;               ///< retention_gb: oldest recordings deleted beyond (GiB)
  std::uint32_t min_free_mb = 1024;        ///< min_free_mb: recording stops with less free (MiB)
  bool black_box = true;                   ///< black_box: keep the last seconds in memory, written
                                           ///< on a critical alert or on request
  double black_box_seconds = 30.0;         ///< black_box_seconds: kept before the trigger (s)
  double black_box_after_seconds = 5.0;    ///< black_box_after_seconds: written after it (s)
  std::uint32_t black_box_memory_mb = 64;  ///< black_box_memory_mb: its memory bound (MiB)
  std::uint32_t black_box_files = 50;      ///< black_box_files: oldest deleted beyond

  bool operator==(const RecorderConfig&) const = default;
};

// The live view (live/): a Foxglove WebSocket server and the dashboard. yaml: live. Like the
// recorder, a port it cannot take is a start-up warning, not a reason to stop controlling.
struct LiveConfig {
  std::string address;              ///< address: "host:port" to serve on; "" = off
  std::string host;                 ///< parsed from address
  std::uint16_t port = 0;           ///< parsed from address (0 = any free port)
  std::string token_file;           ///< token_file: viewers' token (required off loopback)
  std::string token_path;           ///< token_file, resolved
  std::string operator_token_file;  ///< operator_token_file: who may press DAMP in the
                                    ///< dashboard; "" = nobody
  std::string operator_token_path;  ///< operator_token_file, resolved
  std::string web_root;             ///< web_root: the dashboard's files; "" = the installed ones
  TlsConfig tls;                    ///< tls: https and wss (see TlsConfig; no client_ca: viewers
                                    ///< present tokens)
  bool allow_plaintext = false;     ///< allow_plaintext: serve off loopback over plain http/ws
                                    ///< without tls (tokens in clear); else refused

  // What viewers may hold (live/options.hpp): max_connections: open sockets at most (viewers,
  // HTTP, handshakes), 4 of them kept for operators, lowered at start so that RLIMIT_NOFILE keeps
  // room for the daemon; allowed_origins: web origins besides the live view's own whose pages may
  // open the WebSocket ("https://app.foxglove.dev").
  std::uint32_t max_connections = 16;
  std::vector<std::string> allowed_origins;

  bool operator==(const LiveConfig&) const = default;
};

// The motor model actually fitted at a joint when the config's joints[].motor names another (a
// wrong family or reply layout in the config, for `robot-edgectl scan` to find). yaml:
// sim.fitted.<joint>: <motor>
struct SimFittedMotor {
  std::string joint;
  std::string motor_name;
  std::size_t motor = kUnresolved;
};

// A joint's name in the simulator's model (MJCF) when it differs from the config's. yaml:
// sim.joint_names.<joint>: <model name>
struct SimJointName {
  std::string joint;       ///< the config's joints[].name
  std::string model_name;  ///< its actuator's or joint's name in the model
};

// The simulated robot (robot-edge-sim only; the daemon ignores it). yaml: sim
struct SimConfig {
  double ambient_c = 30.0;                 ///< ambient_c: motor temperature at rest (°C)
  double thermal_time_constant_s = 120.0;  ///< thermal_time_constant_s: cooling time constant
  double heating_c_per_nm2_s = 0.01;       ///< heating_c_per_nm2_s: °C/s per (N·m)² of torque
  double imu_rate_hz = 200.0;              ///< imu_rate_hz: IMU frames per second
  double joint_inertia = 0.02;             ///< joint_inertia (kg·m²): default per joint
  double joint_friction = 0.2;        ///< joint_friction (N·m·s/rad): viscous, default per joint
  double command_latency_ms = 0.0;    ///< command_latency_ms: a command takes effect this late
  double torque_bandwidth_hz = 0.0;   ///< torque_bandwidth_hz: mujoco torque low-pass; 0 = none
  std::string physics = "kinematic";  ///< physics: kinematic | mujoco (robot-edge-sim --physics)
  std::string model;                  ///< model: MJCF file (relative to this file); "" = the
                                      ///< built-in humanoid (robot-edge-sim --model)
  double gantry_height_m = 0.0;       ///< gantry_height_m: mujoco starts hanging with its base
                                      ///< this high; 0 = standing on the floor, no gantry
  std::vector<SimExtraMotor> extra_motors;  ///< extra_motors: motors joints[] does not name
  std::vector<std::string> missing;       ///< missing: joints whose motor is absent (never answers)
  std::vector<SimFittedMotor> fitted;     ///< fitted: {JOINT: MOTOR}
  std::vector<SimJointName> joint_names;  ///< joint_names: {JOINT: MODEL_NAME}; unlisted joints
                                          ///< are named alike in the model
};

const char* ToString(PolicyFaultAction action);

// Line of each YAML key that was present, by path ("joints[3].kp" -> 41). 1-based lines.
using SourceLines = std::map<std::string, int, std::less<>>;

struct Config {
  std::string source = "<config>";   ///< file the config came from, for messages
  std::string digest;                ///< TextDigest of the YAML text parsed (Welcome)
  std::string calibration;           ///< calibration: file of joint offsets written by
                                     ///< `robot-edgectl calibrate` (relative to this file);
                                     ///< "" = none. A missing file is a warning (not calibrated)
  std::string calibration_path;      ///< calibration, resolved
  std::string calibrated_at;         ///< the calibration file's calibrated_at; "" = not loaded
  std::string robot_name = "robot";  ///< robot.name
  bool provisioned = false;          ///< robot.provisioned: robot setup complete (diagnostics)
  ControlConfig control;
  RealtimeConfig realtime;
  TelemetryConfig telemetry;
  SafetyConfig safety;
  VelocityLimits velocity;
  std::vector<MotorModel> motors;
  std::vector<BusConfig> buses;
  std::vector<JointConfig> joints;
  std::vector<TargetLimitConfig> target_limits;
  ImuConfig imu;
  BatteryConfig battery;
  ApiConfig api;
  RecorderConfig recorder;
  LiveConfig live;
  SimConfig sim;
  PolicyConfig policy;
  SourceLines lines;

  // Control period (µs), from control.rate_hz.
  std::int64_t period_us() const { return static_cast<std::int64_t>(1e6 / control.rate_hz + 0.5); }
  const MotorModel& motor_of(std::size_t joint) const { return motors[joints[joint].motor]; }
  // "file:line: key" for messages; the nearest present parent key gives the line when `key`
  // itself was absent.
  std::string Where(std::string_view key) const;
};

// "robot-edge.yaml:41: joints[3].kp": `key` at the line of it, or of the nearest enclosing key
// given, in `lines`; "robot-edge.yaml: key" when none was given (Config::Where).
std::string WhereIn(const std::string& source, const SourceLines& lines, std::string_view key);

class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(const std::vector<std::string>& problems);
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

// Parses YAML text into a Config. Unknown keys, wrong types and unresolved names are errors;
// throws ConfigError listing all of them. Does not check ranges (that is Validate()).
Config ParseConfig(std::string_view yaml_text, std::string_view source_name);

// Which text a config was parsed from: FNV-1a 64 of it, 16 hex digits. An identity (robot-edged
// shows it in Welcome.config_digest), not a security check.
std::string TextDigest(std::string_view text);

// Every rule a config must satisfy; returns one message per broken rule ("" = none broken).
std::vector<std::string> Validate(const Config& config);

// What is valid but weakens safety or security (logged at start-up, printed by --check-config).
std::vector<std::string> Warnings(const Config& config);

// The joint offsets of a calibration file (robot-edgectl calibrate writes it):
//   calibrated_at: "2026-11-24T19:00:00Z"     # when, UTC
//   pose: stand                                # the calibration pose (docs/bring-up.md)
//   offsets: {L_Hip_Pitch: 0.0123, ...}        # joint name -> offset (rad)
// Applies each offset to the joint of that name (marking it calibrated). Unknown joints, wrong
// types and offsets beyond ±2π are errors; throws ConfigError listing them all.
void ApplyCalibration(std::string_view yaml_text, std::string_view source_name, Config* config);

// What `robot-edgectl calibrate` writes: ApplyCalibration() reads it back to the same offsets.
std::string FormatCalibration(const Config& config, const std::vector<double>& offsets_rad,
                              std::string_view pose, std::string_view calibrated_at);

// Reads and parses `path` without validating it, with its calibration file when it names one
// that exists. Throws ConfigError.
Config ParseConfigFile(const std::string& path);

// Reads, parses and validates `path`. Throws ConfigError on any problem.
Config LoadConfig(const std::string& path);

}  // namespace robot_edge::config
