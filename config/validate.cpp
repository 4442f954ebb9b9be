// Every rule a config must satisfy before the daemon opens anything. One message per broken rule:
// "file:line: key: what is wrong".
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "config/bus_capacity.hpp"
#include "config/config.hpp"
#include "config/fleet_guard.hpp"
#include "config/gains.hpp"

namespace robot_edge::config {
namespace {

constexpr double kMinControlRateHz = 50, kMaxControlRateHz = 2000;

constexpr std::uint32_t kMaxStandardId = 0x7FF;
constexpr std::uint32_t kMaxMotorId = 0xFF;
constexpr std::size_t kInterfaceNameMax = 15;  // IFNAMSIZ - 1

// 1000000 -> "1000000", 2.5 -> "2.5".
std::string Num(double v) {
  std::ostringstream s;
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) {
    s << static_cast<long long>(v);
  } else {
    s << v;
  }
  return s.str();
}

template <typename T>
std::string KnownNames(const std::vector<T>& items) {
  std::string known;
  for (const auto& item : items) known += (known.empty() ? "" : ", ") + item.name;
  return known;
}

class Checker {
 public:
  explicit Checker(const Config& c) : c_(c) {}

  void Fail(const std::string& key, const std::string& message) {
    problems_.push_back(c_.Where(key) + ": " + message);
  }
  // lo <= v <= hi (and v finite).
  void Range(const std::string& key, double v, double lo, double hi) {
    if (!std::isfinite(v) || v < lo || v > hi) {
      Fail(key, Num(v) + " is outside " + Num(lo) + ".." + Num(hi));
    }
  }
  void Positive(const std::string& key, double v) {
    if (!std::isfinite(v) || v <= 0) Fail(key, Num(v) + " must be greater than 0");
  }
  std::vector<std::string> Take() { return std::move(problems_); }

 private:
  const Config& c_;
  std::vector<std::string> problems_;
};

void CheckControl(const Config& c, Checker* k) {
  k->Range("control.rate_hz", c.control.rate_hz, kMinControlRateHz, kMaxControlRateHz);
  k->Range("control.trajectory_timeout_ms", c.control.trajectory_timeout_ms, 20, 2000);
  k->Range("control.stand_ramp_s", c.control.stand_ramp_s, 0.1, 10);
  k->Range("control.max_segments", c.control.max_segments, 1, 4096);
  const double period_ms = 1000.0 / c.control.rate_hz;
  if (c.control.motor_reply_timeout_ms < 2 * period_ms || c.control.motor_reply_timeout_ms > 1000) {
    k->Fail("control.motor_reply_timeout_ms", std::to_string(c.control.motor_reply_timeout_ms) +
                                                  " must be at least two control periods (" +
                                                  Num(2 * period_ms) + " ms) and at most 1000");
  }
  if (c.control.trajectory_timeout_ms < 2 * period_ms) {
    k->Fail("control.trajectory_timeout_ms", "must be at least two control periods");
  }
  // Segments play one per control period: a trajectory longer than the watchdog's timeout would
  // be cut short by it, its last segments silently never played.
  const double playable = std::floor(c.control.trajectory_timeout_ms / period_ms);
  if (c.control.max_segments > playable) {
    k->Fail("control.max_segments", std::to_string(c.control.max_segments) + " segments play for " +
                                        Num(c.control.max_segments * period_ms) +
                                        " ms, longer than " + "control.trajectory_timeout_ms (" +
                                        std::to_string(c.control.trajectory_timeout_ms) +
                                        "): at most " + Num(playable));
  }
}

void CheckRates(const Config& c, Checker* k) {
  k->Range("realtime.priority", c.realtime.priority, 0, 99);
  k->Range("realtime.cpu", c.realtime.cpu, -1, 1023);
  k->Range("telemetry.rate_hz", c.telemetry.rate_hz, 0.1, 100);
  if (c.telemetry.rate_hz > c.control.rate_hz) {
    k->Fail("telemetry.rate_hz", "must not exceed control.rate_hz");
  }
  k->Range("telemetry.diagnostics_rate_hz", c.telemetry.diagnostics_rate_hz, 0.01, 10);
}

void CheckSafety(const Config& c, Checker* k) {
  const auto& s = c.safety;
  k->Range("safety.overtemp_trip_c", s.overtemp_trip_c, 40, 150);
  k->Range("safety.overtemp_clear_c", s.overtemp_clear_c, 20, 150);
  if (s.overtemp_clear_c >= s.overtemp_trip_c) {
    k->Fail("safety.overtemp_clear_c", Num(s.overtemp_clear_c) +
                                           " must be below overtemp_trip_c (" +
                                           Num(s.overtemp_trip_c) + ")");
  }
  k->Range("safety.min_loop_rate_fraction", s.min_loop_rate_fraction, 0, 0.95);
  if (s.control_stall_ms != 0 && c.control.rate_hz > 0) {  // two periods: jitter is no stall
    k->Range("safety.control_stall_ms", s.control_stall_ms, 2000.0 / c.control.rate_hz, 2000);
  }
  k->Range("safety.joint_limit_margin_rad", s.joint_limit_margin_rad, 0.01, 1.0);
  k->Range("safety.fall_tilt_deg", s.fall_tilt_deg, 10, 90);
  k->Range("safety.fall_clear_deg", s.fall_clear_deg, 1, 90);
  if (s.fall_clear_deg >= s.fall_tilt_deg) {
    k->Fail("safety.fall_clear_deg",
            Num(s.fall_clear_deg) + " must be below fall_tilt_deg (" + Num(s.fall_tilt_deg) + ")");
  }
  k->Range("safety.fall_hold_ms", s.fall_hold_ms, 0, 2000);
  k->Range("safety.max_joint_velocity", s.max_joint_velocity, 0, 100);
  k->Range("velocity.vx_max", c.velocity.vx_max, 0, kApiVxMax);
  k->Range("velocity.vy_max", c.velocity.vy_max, 0, kApiVyMax);
  k->Range("velocity.vyaw_max", c.velocity.vyaw_max, 0, kApiVyawMax);
}

void CheckMotors(const Config& c, Checker* k) {
  if (c.motors.empty()) k->Fail("motors", "at least one motor model is required");
  for (const auto& m : c.motors) {
    const std::string p = "motors." + m.name;
    k->Positive(p + ".p_max", m.p_max_rad);
    k->Positive(p + ".v_max", m.v_max_rad_s);
    k->Positive(p + ".t_max", m.t_max_nm);
    k->Positive(p + ".kp_max", m.kp_max);
    k->Positive(p + ".kd_max", m.kd_max);
    k->Positive(p + ".torque_constant", m.torque_constant_nm_per_a);
    k->Range(p + ".can_timeout_ms", m.can_timeout_ms, 0, 60000);
    if (m.family != MotorFamily::kAk && m.reply != ReplyFormat::kAk8Byte) {
      k->Fail(p + ".reply", std::string("applies to family ak only; ") + ToString(m.family) +
                                " motors have one reply layout");
    }
  }
}

void CheckBuses(const Config& c, Checker* k) {
  if (c.buses.empty()) k->Fail("buses", "at least one bus is required");
  if (c.buses.size() > kMaxBuses) k->Fail("buses", "more than " + std::to_string(kMaxBuses));
  std::set<std::string> names, interfaces;
  for (std::size_t i = 0; i < c.buses.size(); ++i) {
    const auto& b = c.buses[i];
    const std::string p = "buses[" + std::to_string(i) + "]";
    if (!names.insert(b.name).second) k->Fail(p + ".name", "'" + b.name + "' is used twice");
    if (!interfaces.insert(b.interface).second) {
      k->Fail(p + ".interface", "'" + b.interface + "' is used by two buses");
    }
    if (b.interface.empty() || b.interface.size() > kInterfaceNameMax) {
      k->Fail(p + ".interface", "'" + b.interface + "' is not a network interface name (1.." +
                                    std::to_string(kInterfaceNameMax) + " characters)");
    }
    if (b.bitrate != 0) k->Range(p + ".bitrate", b.bitrate, 10000, 1000000);
    k->Range(p + ".restart_ms", b.restart_ms, 0, 60000);
    k->Range(p + ".master_id", b.master_id, 0, kMaxStandardId);
  }
}

// Gains and positions are in joint space; the motor's fields carry them in motor space
// (q_joint = direction · gear_ratio · q_motor + offset; gains scale by gear_ratio²).
void CheckJointLimits(const Config& c, std::size_t i, Checker* k) {
  const auto& j = c.joints[i];
  const std::string p = "joints[" + std::to_string(i) + "]";
  const MotorModel& m = c.motors[j.motor];
  if (j.direction != 1 && j.direction != -1) {
    k->Fail(p + ".direction", std::to_string(j.direction) + " is not +1 or -1");
  }
  k->Range(p + ".gear_ratio", j.gear_ratio, 0.01, 100);
  k->Range(p + ".offset", j.offset_rad, -2 * M_PI, 2 * M_PI);
  if (!(j.min_rad < j.max_rad)) {
    k->Fail(p + ".min", Num(j.min_rad) + " must be below max (" + Num(j.max_rad) + ")");
  }
  if (!(j.gear_ratio > 0)) return;  // reported above; the motor-space checks need a ratio
  const double r = j.gear_ratio;
  // The motor's position field must reach both limits.
  const double reach = m.p_max_rad * r;
  k->Range(p + ".min", j.min_rad, j.offset_rad - reach, j.offset_rad + reach);
  k->Range(p + ".max", j.max_rad, j.offset_rad - reach, j.offset_rad + reach);
  const double kp_cap = JointKpCap(m, r);
  const double kd_cap = JointKdCap(m, r);
  k->Range(p + ".kp", j.kp, 0, kp_cap);
  k->Range(p + ".kd", j.kd, 0, kd_cap);
  k->Range(p + ".damp_kd", j.damp_kd, 0, kd_cap);
  k->Range(p + ".max_torque", j.max_torque_nm, 0, m.t_max_nm / r);
  k->Range(p + ".max_velocity", j.max_velocity_rad_s, 0, m.v_max_rad_s * r);
  k->Range(p + ".stand", j.stand_rad, j.min_rad, j.max_rad);
  k->Range(p + ".inertia", j.sim_inertia_kgm2, 0, 100);
  k->Range(p + ".friction", j.sim_friction_nms, 0, 100);
}

// What each family's frames can address (motor_protocol.hpp).
void CheckFamilyIds(const Config& c, std::size_t i,
                    std::set<std::pair<std::size_t, std::uint32_t>>* damiao_nibbles, Checker* k) {
  const auto& j = c.joints[i];
  const std::string p = "joints[" + std::to_string(i) + "]";
  switch (c.motors[j.motor].family) {
    case MotorFamily::kAk: break;
    case MotorFamily::kDamiao:
      // A damiao reply names its motor by the low nibble of byte 0 only.
      if (!damiao_nibbles->insert({j.bus, j.can_id & 0x0F}).second) {
        k->Fail(p + ".can_id",
                std::to_string(j.can_id) + ": another damiao motor on bus '" + j.bus_name +
                    "' has the same low 4 bits (its replies name the motor by them)");
      }
      break;
    case MotorFamily::kRobstride:
      if (j.bus < c.buses.size() && c.buses[j.bus].master_id > 0xFF) {
        k->Fail(p + ".motor", "robstride motors need bus '" + j.bus_name +
                                  "' to have a master_id of 0..255 (their host id is one byte)");
      }
      break;
  }
}

// Each bus must carry its motors' exchange every control tick: a command and a reply of
// kWorstCaseFrameBits per motor (BusMotorLoad). At 500 Hz and 1 Mbit/s that is 7 motors.
void CheckBusCapacity(const Config& c, Checker* k) {
  if (!(c.control.rate_hz >= kMinControlRateHz && c.control.rate_hz <= kMaxControlRateHz)) return;
  for (std::size_t b = 0; b < c.buses.size(); ++b) {
    const double load = BusMotorLoad(c, b);
    if (load <= 1.0) continue;
    const std::uint32_t bitrate = c.buses[b].bitrate != 0 ? c.buses[b].bitrate : 1000000;
    k->Fail("buses[" + std::to_string(b) + "]",
            "'" + c.buses[b].name + "' carries " + std::to_string(MotorsOnBus(c, b)) +
                " motors: a command and a reply each per tick at control.rate_hz " +
                Num(c.control.rate_hz) + " need " + Num(std::round(load * 100)) + " % of " +
                std::to_string(bitrate) + " bit/s (frames of " +
                std::to_string(static_cast<int>(kWorstCaseFrameBits)) +
                " bits, worst-case stuffing); at most " +
                std::to_string(MaxMotorsPerBus(bitrate, c.control.rate_hz)) +
                " fit: move motors to another bus or lower control.rate_hz");
  }
}

void CheckJoints(const Config& c, Checker* k) {
  if (c.joints.empty()) k->Fail("joints", "at least one joint is required");
  if (c.joints.size() > kMaxJoints) k->Fail("joints", "more than " + std::to_string(kMaxJoints));
  std::set<std::string> names;
  std::set<std::pair<std::size_t, std::uint32_t>> ids;             // (bus, can id)
  std::set<std::pair<std::size_t, std::uint32_t>> damiao_nibbles;  // (bus, can id & 0xF)
  for (std::size_t i = 0; i < c.joints.size(); ++i) {
    const auto& j = c.joints[i];
    const std::string p = "joints[" + std::to_string(i) + "]";
    if (!names.insert(j.name).second) k->Fail(p + ".name", "'" + j.name + "' is used twice");
    if (j.can_id < 1 || j.can_id > kMaxMotorId) {
      k->Fail(p + ".can_id", std::to_string(j.can_id) +
                                 " is outside 1..255 (an MIT motor's reply carries its id in one "
                                 "byte)");
    }
    if (!ids.insert({j.bus, j.can_id}).second) {
      k->Fail(p + ".can_id",
              std::to_string(j.can_id) + " is used twice on bus '" + j.bus_name + "'");
    }
    if (j.bus < c.buses.size() && j.can_id == c.buses[j.bus].master_id) {
      k->Fail(p + ".can_id", "equals the master_id of bus '" + j.bus_name + "'");
    }
    if (j.bus >= c.buses.size()) {
      k->Fail(p + ".bus", "unknown bus '" + j.bus_name + "' (known: " + KnownNames(c.buses) + ")");
    }
    if (j.motor >= c.motors.size()) {
      k->Fail(p + ".motor",
              "unknown motor '" + j.motor_name + "' (known: " + KnownNames(c.motors) + ")");
    } else {
      CheckJointLimits(c, i, k);
      CheckFamilyIds(c, i, &damiao_nibbles, k);
    }
  }
}

// `id` is one of the IMU's frame ids (accel_id only when set).
bool IsImuId(const ImuConfig& imu, std::uint32_t id) {
  return id == imu.quat_id || id == imu.gyro_id || (imu.accel_id != 0 && id == imu.accel_id);
}

void CheckImu(const Config& c, Checker* k) {
  const auto& imu = c.imu;
  if (imu.bus >= c.buses.size()) {
    k->Fail("imu.bus", "unknown bus '" + imu.bus_name + "' (known: " + KnownNames(c.buses) + ")");
  }
  k->Range("imu.quat_id", imu.quat_id, 1, kMaxStandardId);
  k->Range("imu.gyro_id", imu.gyro_id, 1, kMaxStandardId);
  k->Range("imu.accel_id", imu.accel_id, 0, kMaxStandardId);  // 0 = no accelerometer frame
  if (imu.quat_id == imu.gyro_id) k->Fail("imu.gyro_id", "equals imu.quat_id");
  if (imu.accel_id != 0 && imu.accel_id == imu.quat_id) {
    k->Fail("imu.accel_id", "equals imu.quat_id");
  }
  if (imu.accel_id != 0 && imu.accel_id == imu.gyro_id) {
    k->Fail("imu.accel_id", "equals imu.gyro_id");
  }
  k->Range("imu.timeout_ms", imu.timeout_ms, 5, 5000);
  if (imu.bus < c.buses.size() && IsImuId(imu, c.buses[imu.bus].master_id)) {
    k->Fail("imu", "an IMU id equals the master_id of bus '" + imu.bus_name + "'");
  }
  for (const auto& j : c.joints) {
    if (j.bus == imu.bus && IsImuId(imu, j.can_id)) {
      k->Fail("imu", "an IMU id collides with joint " + j.name + " on bus '" + imu.bus_name + "'");
    }
  }
}

// The BMS frame's id must be nobody else's on its bus: a joint's, the master id, the IMU's.
void CheckBmsId(const Config& c, Checker* k) {
  const BatteryConfig& b = c.battery;
  k->Range("battery.can_id", b.can_id, 1, kMaxStandardId);
  if (b.bus >= c.buses.size()) return;
  const std::string on_bus = " on bus '" + b.bus_name + "'";
  if (b.can_id == c.buses[b.bus].master_id) {
    k->Fail("battery.can_id", "equals the master_id of bus '" + b.bus_name + "'");
  }
  for (const auto& j : c.joints) {
    if (j.bus == b.bus && j.can_id == b.can_id) {
      k->Fail("battery.can_id", "collides with joint " + j.name + on_bus);
    }
  }
  if (b.bus == c.imu.bus && IsImuId(c.imu, b.can_id)) {
    k->Fail("battery.can_id", "equals an IMU id (imu.quat_id, gyro_id or accel_id)" + on_bus);
  }
}

void CheckBattery(const Config& c, Checker* k) {
  const BatteryConfig& b = c.battery;
  if (b.source == BatteryConfig::Source::kCan) {
    if (b.bus_name.empty()) {
      k->Fail("battery.bus", "required with source can (known: " + KnownNames(c.buses) + ")");
    } else if (b.bus >= c.buses.size()) {
      k->Fail("battery.bus",
              "unknown bus '" + b.bus_name + "' (known: " + KnownNames(c.buses) + ")");
    }
    CheckBmsId(c, k);
  }
  // Whether the file exists is the daemon's to report at run time (a battery may come later).
  if (b.source == BatteryConfig::Source::kSysfs && (b.path.empty() || b.path.front() != '/')) {
    k->Fail("battery.path",
            "'" + b.path + "' is not an absolute path (e.g. /sys/class/power_supply/BAT0)");
  }
  k->Range("battery.low_percent", b.low_percent, 0, 100);
  k->Range("battery.clear_percent", b.clear_percent, 0, 100);
  if (!(b.low_percent < b.clear_percent)) {
    k->Fail("battery.clear_percent",
            Num(b.clear_percent) + " must be above low_percent (" + Num(b.low_percent) + ")");
  }
  k->Range("battery.timeout_ms", b.timeout_ms, 100, 60000);
}

bool IsLoopbackHost(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// Tokens never travel in clear off this machine unless the config says so in words.
void CheckApiTls(const ApiConfig& api, Checker* k) {
  if (api.tls.enabled() && api.tcp.empty()) {
    k->Fail("api.tls", "set, but api.tcp is not: there is no TCP listener to protect");
  }
  if (!api.tcp.empty() && !api.tls.enabled() && !api.allow_plaintext &&
      !IsLoopbackHost(api.tcp_host)) {
    k->Fail("api.tcp",
            "'" + api.tcp +
                "' is not a loopback address and api.tls is not set: tokens and commands would "
                "travel in clear. Configure api.tls (docs/api.md), or set api.allow_plaintext: "
                "true on a network you trust");
  }
}

void CheckApi(const Config& c, Checker* k) {
  const auto& api = c.api;
  CheckApiTls(api, k);
  if (api.unix_socket.empty() && api.tcp.empty()) {
    k->Fail("api", "neither unix_socket nor tcp is set: clients could not connect");
  }
  if (api.unix_socket.size() > 107) k->Fail("api.unix_socket", "longer than 107 characters");
  if (api.controllers.empty()) {
    k->Fail("api.controllers", "empty: no client could ever command the robot");
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < api.controllers.size(); ++i) {
    const std::string p = "api.controllers[" + std::to_string(i) + "]";
    if (api.controllers[i].empty()) k->Fail(p, "empty controller name");
    if (!names.insert(api.controllers[i]).second) {
      k->Fail(p, "'" + api.controllers[i] + "' is listed twice");
    }
  }
  for (const std::string& name : api.maintenance_controllers) {
    if (!names.count(name)) {
      k->Fail("api.maintenance_controllers",
              "'" + name +
                  "' is not a name of api.controllers (a bring-up tool moves joints: it "
                  "must hold control like any controller)");
    }
  }
  for (const std::string& name : api.apply_config_controllers) {
    if (!names.count(name)) {
      k->Fail("api.apply_config_controllers", "'" + name + "' is not a name of api.controllers");
    }
  }
  for (const std::string& name : api.fleet_may_change) {
    if (std::find(kFleetProtected.begin(), kFleetProtected.end(), name) == kFleetProtected.end()) {
      std::string known;
      for (std::string_view s : kFleetProtected)
        known += (known.empty() ? "" : ", ") + std::string(s);
      k->Fail("api.fleet_may_change", "'" + name + "' is not a protected section (" + known + ")");
    }
  }
  for (const ClientAccess& a : api.access) {
    const std::string p = "api.access." + a.name;
    if (a.name != kObserver && !names.count(a.name)) {
      k->Fail(p, "'" + a.name + "' is neither observer nor a name of api.controllers");
    }
    for (const auto& u : a.users) {
      if (u.empty()) k->Fail(p + ".users", "empty user name");
    }
    for (const auto& g : a.groups) {
      if (g.empty()) k->Fail(p + ".groups", "empty group name");
    }
    if (a.users.empty() && a.groups.empty() && a.token_file.empty()) {
      k->Fail(p, "grants nobody: give users, groups or a token_file");
    }
  }
  k->Range("api.max_command_age_ms", api.max_command_age_ms, 10, 10000);
  k->Range("api.max_clock_offset_ms", api.max_clock_offset_ms, 10, 600000);
  k->Range("api.controller_idle_timeout_ms", api.controller_idle_timeout_ms, 100, 3600000);
  if (api.walking_silence_ms != 0) {
    k->Range("api.walking_silence_ms", api.walking_silence_ms, 100, 60000);
  }
  k->Range("api.max_clients", api.max_clients, 1, 1024);
  k->Range("api.event_history", api.event_history, 16, 65536);
  k->Range("api.client_backlog_kib", api.client_backlog_kib, 16, 1048576);
}

void CheckRecorder(const Config& c, Checker* k) {
  const RecorderConfig& r = c.recorder;
  if (r.directory.empty()) k->Fail("recorder.directory", "must not be empty");
  if (r.compression != "zstd" && r.compression != "lz4" && r.compression != "none") {
    k->Fail("recorder.compression", "'" + r.compression + "' is not zstd, lz4 or none");
  }
  static const std::set<std::string> kChannels = {"joint_state", "telemetry",   "events",
                                                  "commands",    "diagnostics", "can"};
  std::set<std::string> seen;
  for (std::size_t i = 0; i < r.channels.size(); ++i) {
    const std::string p = "recorder.channels[" + std::to_string(i) + "]";
    if (!kChannels.count(r.channels[i])) {
      k->Fail(
          p, "'" + r.channels[i] +
                 "' is not a channel (joint_state, telemetry, events, commands, diagnostics, can)");
    }
    if (!seen.insert(r.channels[i]).second) k->Fail(p, "'" + r.channels[i] + "' is listed twice");
  }
  k->Range("recorder.max_file_mb", r.max_file_mb, 1, 65536);
  k->Range("recorder.max_file_minutes", r.max_file_minutes, 1, 1440);
  k->Range("recorder.retention_gb", r.retention_gb, 0.01, 100000);
  k->Range("recorder.min_free_mb", r.min_free_mb, 0, 1048576);
  k->Range("recorder.black_box_seconds", r.black_box_seconds, 1, 600);
  k->Range("recorder.black_box_after_seconds", r.black_box_after_seconds, 0, 60);
  k->Range("recorder.black_box_memory_mb", r.black_box_memory_mb, 4, 4096);
  k->Range("recorder.black_box_files", r.black_box_files, 1, 10000);
}

void CheckLive(const Config& c, Checker* k) {
  const LiveConfig& l = c.live;
  k->Range("live.max_connections", l.max_connections, 5, 1024);  // > the 4 operator slots
  for (std::size_t i = 0; i < l.allowed_origins.size(); ++i) {
    const std::string& o = l.allowed_origins[i];
    const std::size_t host = o.find("://");
    const std::string scheme = o.substr(0, host);
    if ((scheme != "http" && scheme != "https") || host + 3 >= o.size() ||
        o.find('/', host + 3) != std::string::npos) {
      k->Fail("live.allowed_origins[" + std::to_string(i) + "]",
              "'" + o + "' is not an origin: http(s)://host[:port], no path");
    }
  }
  if (l.address.empty()) return;
  if (!IsLoopbackHost(l.host) && l.token_file.empty()) {
    k->Fail("live.token_file",
            "required when live.address (" + l.address +
                ") is not a loopback address: anyone on the network would watch the robot");
  }
  if (!IsLoopbackHost(l.host) && !l.tls.enabled() && !l.allow_plaintext) {
    k->Fail("live.address",
            "'" + l.address +
                "' is not a loopback address and live.tls is not set: its tokens would travel in "
                "clear. Configure live.tls (docs/recording-and-live-view.md), reach it through an "
                "SSH tunnel, or set live.allow_plaintext: true on a network you trust");
  }
}

void CheckSim(const Config& c, Checker* k) {
  const auto& s = c.sim;
  k->Range("sim.ambient_c", s.ambient_c, -40, 60);
  k->Positive("sim.thermal_time_constant_s", s.thermal_time_constant_s);
  k->Range("sim.heating_c_per_nm2_s", s.heating_c_per_nm2_s, 0, 10);
  k->Range("sim.imu_rate_hz", s.imu_rate_hz, 1, 2000);
  k->Positive("sim.joint_inertia", s.joint_inertia);
  k->Range("sim.joint_friction", s.joint_friction, 0, 100);
  k->Range("sim.command_latency_ms", s.command_latency_ms, 0, 100);
  k->Range("sim.torque_bandwidth_hz", s.torque_bandwidth_hz, 0, 10000);
  k->Range("sim.gantry_height_m", s.gantry_height_m, 0, 10);
  if (s.physics != "kinematic" && s.physics != "mujoco") {
    k->Fail("sim.physics", "'" + s.physics + "' is not kinematic or mujoco");
  }
  for (std::size_t i = 0; i < s.extra_motors.size(); ++i) {
    const SimExtraMotor& m = s.extra_motors[i];
    const std::string p = "sim.extra_motors[" + std::to_string(i) + "]";
    if (m.bus >= c.buses.size()) k->Fail(p + ".bus", "unknown bus '" + m.bus_name + "'");
    if (m.motor >= c.motors.size()) k->Fail(p + ".motor", "unknown motor '" + m.motor_name + "'");
    if (m.can_id < 1 || m.can_id > 0xFF) k->Fail(p + ".can_id", "outside 1..255");
    for (const JointConfig& j : c.joints) {
      if (j.bus == m.bus && j.can_id == m.can_id) {
        k->Fail(p + ".can_id", "is joint " + j.name + "'s: an extra motor needs an id of its own");
      }
    }
  }
  const auto has_joint = [&](const std::string& name) {
    return std::any_of(c.joints.begin(), c.joints.end(),
                       [&](const JointConfig& j) { return j.name == name; });
  };
  for (const std::string& name : s.missing) {
    if (!has_joint(name)) k->Fail("sim.missing", "no joint '" + name + "'");
  }
  for (const SimFittedMotor& f : s.fitted) {
    if (!has_joint(f.joint)) k->Fail("sim.fitted." + f.joint, "no joint '" + f.joint + "'");
    if (f.motor >= c.motors.size()) {
      k->Fail("sim.fitted." + f.joint, "unknown motor '" + f.motor_name + "'");
    }
  }
  // Every config joint reaches one model name: the mapped one, else its own.
  std::map<std::string, std::string> taken;  // model name -> the joint that has it
  for (const JointConfig& j : c.joints) {
    std::string model_name = j.name;
    bool mapped = false;
    for (const SimJointName& n : s.joint_names) {
      if (n.joint == j.name) {
        model_name = n.model_name;
        mapped = true;
      }
    }
    const auto [it, fresh] = taken.emplace(model_name, j.name);
    if (!fresh) {
      k->Fail("sim.joint_names." + (mapped ? j.name : it->second),
              "joints " + it->second + " and " + j.name + " both name the model's '" + model_name +
                  "'");
    }
  }
  for (const SimJointName& n : s.joint_names) {
    const std::string key = "sim.joint_names." + n.joint;
    if (!has_joint(n.joint)) k->Fail(key, "no joint '" + n.joint + "'");
    if (n.model_name.empty()) k->Fail(key, "is empty");
  }
}

// `values` holds one value for every item or one per item (`count`); empty is allowed when
// `optional`.
bool CheckCount(const std::string& key, std::size_t size, std::size_t count, bool optional,
                const std::string& per, Checker* k) {
  if (size == 1 || size == count || (optional && size == 0)) return true;
  k->Fail(key, "has " + std::to_string(size) + " values: give one, or one per " + per + " (" +
                   std::to_string(count) + ")");
  return false;
}

// A list of joint names: every name known, none twice.
void CheckJointNames(const Config& c, const std::string& key, const std::vector<std::string>& names,
                     const std::vector<std::size_t>& joints, Checker* k) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string p = key + "[" + std::to_string(i) + "]";
    if (joints[i] >= c.joints.size()) {
      k->Fail(p, "unknown joint '" + names[i] + "'");
    } else if (!seen.insert(names[i]).second) {
      k->Fail(p, "'" + names[i] + "' is listed twice");
    }
  }
}

bool AllResolved(const Config& c, const std::vector<std::size_t>& joints) {
  for (std::size_t j : joints) {
    if (j >= c.joints.size()) return false;
  }
  return true;
}

// Gains: one value for every policy joint or one per joint, within each joint's range.
void CheckTargetLimits(const Config& c, Checker* k) {
  std::set<std::size_t> limited;
  for (std::size_t i = 0; i < c.target_limits.size(); ++i) {
    const TargetLimitConfig& t = c.target_limits[i];
    const std::string p = "target_limits[" + std::to_string(i) + "]";
    if (t.joint_names.empty()) k->Fail(p + ".joints", "must name at least one joint");
    CheckJointNames(c, p + ".joints", t.joint_names, t.joints, k);
    for (std::size_t n = 0; n < t.joints.size(); ++n) {
      if (limited.count(t.joints[n]) != 0) {
        k->Fail(p + ".joints[" + std::to_string(n) + "]",
                "'" + t.joint_names[n] + "' is already in an earlier group");
      }
    }
    for (std::size_t j : t.joints) {
      if (j < c.joints.size()) limited.insert(j);
    }
    k->Range(p + ".max_velocity", t.max_velocity, 0, 1000);
    k->Range(p + ".max_acceleration", t.max_acceleration, 0, 100000);
    if (!(t.low_pass > 0 && t.low_pass <= 1)) {
      k->Fail(p + ".low_pass", "must be > 0 and <= 1 (1 = no filter)");
    }
  }
}

void CheckPolicyGains(const Config& c, const std::string& key, const std::vector<double>& gains,
                      double api_max, bool is_kp, Checker* k) {
  const PolicyConfig& p = c.policy;
  if (!CheckCount(key, gains.size(), p.joints.size(), true, "policy joint", k)) return;
  for (std::size_t i = 0; i < gains.size(); ++i) {
    // One value applies to every policy joint: the tightest motor range bounds it.
    double max = api_max;
    for (std::size_t n = 0; n < p.joints.size(); ++n) {
      const JointConfig& j = c.joints[p.joints[n]];
      if ((gains.size() == 1 || n == i) && j.motor < c.motors.size()) {
        max = std::min(max, is_kp ? c.motors[j.motor].kp_max : c.motors[j.motor].kd_max);
      }
    }
    k->Range(gains.size() == 1 ? key : key + "[" + std::to_string(i) + "]", gains[i], 0, max);
  }
}

// A term's own history (Isaac Lab's per-term history_length) stacks term by term only.
void CheckTermHistories(const PolicyConfig& p, Checker* k) {
  for (std::size_t i = 0; i < p.observation.size(); ++i) {
    const std::uint32_t h = p.observation[i].history;
    if (h == 0) continue;
    const std::string key = "policy.observation[" + std::to_string(i) + "].history";
    k->Range(key, h, 1, 64);
    if (h != p.history && p.history_layout != HistoryLayout::kTermMajor) {
      k->Fail(key, std::to_string(h) + " differs from policy.history (" +
                       std::to_string(p.history) +
                       "): a term's own history needs history_layout: term_major");
    }
  }
}

void CheckObservation(const Config& c, Checker* k) {
  const PolicyConfig& p = c.policy;
  if (p.observation.empty()) k->Fail("policy.observation", "at least one term is required");
  for (std::size_t i = 0; i < p.observation.size(); ++i) {
    const ObservationTermConfig& t = p.observation[i];
    const std::string key = "policy.observation[" + std::to_string(i) + "]";
    const bool joint_term =
        t.term == ObservationTerm::kJointPos || t.term == ObservationTerm::kJointVel;
    if (!joint_term && !t.joint_names.empty()) {
      k->Fail(key + ".joints", "only joint_pos and joint_vel take joints");
    }
    CheckJointNames(c, key + ".joints", t.joint_names, t.joints, k);
    if (t.term == ObservationTerm::kPhase) k->Range(key + ".period_s", t.period_s, 0.01, 1000);
    if (!t.clip_low.empty() && CheckCount(key + ".clip", t.clip_low.size(), TermSize(t, p), false,
                                          std::string("value of ") + ToString(t.term), k)) {
      for (std::size_t n = 0; n < t.clip_low.size(); ++n) {
        if (!std::isfinite(t.clip_low[n]) || !std::isfinite(t.clip_high[n]) ||
            t.clip_low[n] > t.clip_high[n]) {
          k->Fail(key + ".clip", "[" + Num(t.clip_low[n]) + ", " + Num(t.clip_high[n]) +
                                     "] is not a range of finite numbers, low first");
        }
      }
    }
    if (CheckCount(key + ".scale", t.scale.size(), TermSize(t, p), false,
                   std::string("value of ") + ToString(t.term), k)) {
      for (std::size_t n = 0; n < t.scale.size(); ++n) {
        if (!std::isfinite(t.scale[n])) {
          k->Fail(key + ".scale", Num(t.scale[n]) + " is not a finite number");
        }
      }
    }
  }
  k->Range("policy.history", p.history, 1, 64);
  CheckTermHistories(p, k);
}

void CheckPolicyFaults(const Config& c, Checker* k) {
  const PolicyConfig& p = c.policy;
  if (p.stall_timeout_ms == 0 || !(p.rate_hz > 0)) return;
  const double period_ms = 1000.0 / p.rate_hz;
  if (p.stall_timeout_ms < period_ms || p.stall_timeout_ms > 2000) {
    k->Fail("policy.stall_timeout_ms", std::to_string(p.stall_timeout_ms) +
                                           " must be at least one policy period (" +
                                           Num(period_ms) +
                                           " ms) and at most 2000; 0 = two "
                                           "periods");
  }
}

// A pose of the policy's joints (rad): empty, or one per policy joint within its limits.
void CheckPoses(const Config& c, const std::string& key, const std::vector<double>& pose,
                Checker* k) {
  const std::vector<std::size_t>& joints = c.policy.joints;
  if (!pose.empty() && pose.size() != joints.size()) {
    k->Fail(key, "has " + std::to_string(pose.size()) + " values: give one per policy joint (" +
                     std::to_string(joints.size()) + ")");
  } else if (AllResolved(c, joints)) {
    for (std::size_t i = 0; i < pose.size(); ++i) {
      const JointConfig& j = c.joints[joints[i]];
      k->Range(key + "[" + std::to_string(i) + "]", pose[i], j.min_rad, j.max_rad);
    }
  }
}

void CheckPolicy(const Config& c, Checker* k) {
  const PolicyConfig& p = c.policy;
  if (!p.enabled) return;
  if (p.model.empty()) k->Fail("policy.model", "must name an ONNX file");
  k->Range("policy.rate_hz", p.rate_hz, 1, c.control.rate_hz);
  if (p.joints.empty()) k->Fail("policy.joints", "at least one joint is required");
  CheckJointNames(c, "policy.joints", p.joint_names, p.joints, k);
  const std::size_t n = p.joints.size();
  CheckPoses(c, "policy.default_pose", p.default_pose_rad, k);
  CheckPoses(c, "policy.action_offset", p.action_offset, k);
  if (CheckCount("policy.action_scale", p.action_scale.size(), n, false, "policy joint", k)) {
    for (std::size_t i = 0; i < p.action_scale.size(); ++i) {
      k->Range(p.action_scale.size() == 1 ? "policy.action_scale"
                                          : "policy.action_scale[" + std::to_string(i) + "]",
               p.action_scale[i], -10, 10);
    }
  }
  k->Range("policy.action_clip", p.action_clip, 0, 1000);
  k->Range("policy.observation_clip", p.observation_clip, 0, 10000);
  if (AllResolved(c, p.joints) && !p.joints.empty()) {
    CheckPolicyGains(c, "policy.kp", p.kp, kApiKpMax, true, k);
    CheckPolicyGains(c, "policy.kd", p.kd, kApiKdMax, false, k);
  }
  CheckObservation(c, k);
  CheckPolicyFaults(c, k);
}

}  // namespace

std::vector<std::string> Warnings(const Config& c) {
  std::vector<std::string> out;
  for (std::size_t b = 0; b < c.buses.size(); ++b) {
    const double load = BusMotorLoad(c, b);
    if (load > kBusLoadWarning && load <= 1.0) {
      out.push_back("buses[" + std::to_string(b) + "]: '" + c.buses[b].name + "' carries " +
                    std::to_string(MotorsOnBus(c, b)) + " motors, " + Num(std::round(load * 100)) +
                    " % of the bus at worst-case stuffing before any IMU or battery frame: "
                    "little room for retransmissions (docs/can.md, bus capacity)");
    }
  }
  if (!c.calibration.empty() && c.calibrated_at.empty()) {
    out.push_back("calibration: " + c.calibration_path +
                  " does not exist: the joint offsets are the config's (not calibrated; "
                  "`robot-edgectl calibrate` writes the file, docs/bring-up.md)");
  }
  std::string classic;
  for (std::size_t j = 0; j < c.joints.size(); ++j) {
    if (c.motor_of(j).reply == ReplyFormat::kClassic6Byte) {
      classic += (classic.empty() ? "" : ", ") + c.joints[j].name;
    }
  }
  if (!classic.empty()) {
    out.push_back("motors: " + classic +
                  " reply in the classic 6-byte layout, without temperature or error code: "
                  "MOTOR_OVERTEMP and MOTOR_FAULT cannot fire for them");
  }
  std::string no_timeout;
  for (const MotorModel& m : c.motors) {
    if (m.can_timeout_ms == 0) no_timeout += (no_timeout.empty() ? "" : ", ") + m.name;
  }
  if (!no_timeout.empty()) {
    out.push_back("motors: " + no_timeout +
                  " declare no CAN-loss timeout (can_timeout_ms): if robot-edged and its "
                  "ExecStopPost both fail to send DAMP, these motors hold their last command. Set "
                  "the timeout in the motor's firmware and declare it (docs/safety.md, \"Motor CAN "
                  "timeouts\")");
  }
  if (!c.api.tcp.empty()) {
    const bool any_token = std::any_of(c.api.access.begin(), c.api.access.end(),
                                       [](const ClientAccess& a) { return !a.token_file.empty(); });
    if (!any_token && !c.api.allow_loopback_without_token) {
      out.push_back("api.tcp: '" + c.api.tcp +
                    "' but no controller has a token_file: every TCP client will be refused");
    }
  }
  if (!c.live.address.empty() && c.live.allow_plaintext && !c.live.tls.enabled()) {
    out.push_back("live.allow_plaintext: the live view's tokens travel in clear (http/ws, no TLS)");
  }
  if (c.api.allow_loopback_without_token) {
    out.push_back(
        "api.allow_loopback_without_token: any local user can be any controller over TCP "
        "on a loopback address (the Unix socket's permissions do not apply)");
  }
  return out;
}

std::vector<std::string> Validate(const Config& c) {
  Checker k(c);
  CheckControl(c, &k);
  CheckRates(c, &k);
  CheckSafety(c, &k);
  CheckMotors(c, &k);
  CheckBuses(c, &k);
  CheckJoints(c, &k);
  CheckBusCapacity(c, &k);
  CheckTargetLimits(c, &k);
  CheckImu(c, &k);
  CheckBattery(c, &k);
  CheckApi(c, &k);
  CheckRecorder(c, &k);
  CheckLive(c, &k);
  CheckSim(c, &k);
  CheckPolicy(c, &k);
  return k.Take();
}

}  // namespace robot_edge::config
