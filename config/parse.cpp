// YAML -> Config. One function per section; ranges are checked later by Validate().
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "config/config.hpp"
#include "config/host_port.hpp"
#include "config/yaml_reader.hpp"

namespace robot_edge::config {
namespace {

using detail::MapReader;
using detail::ParseContext;

std::string Indexed(const char* list, std::size_t i) {
  return std::string(list) + "[" + std::to_string(i) + "]";
}

void ParseRobot(const YAML::Node& node, ParseContext* ctx, Config* c) {
  MapReader r(node, "robot", ctx);
  r.Read("name", &c->robot_name);
  r.Read("provisioned", &c->provisioned);
  r.Finish();
}

void ParseControl(const YAML::Node& node, ParseContext* ctx, ControlConfig* c) {
  MapReader r(node, "control", ctx);
  r.Read("rate_hz", &c->rate_hz);
  r.Read("trajectory_timeout_ms", &c->trajectory_timeout_ms);
  r.Read("stand_ramp_s", &c->stand_ramp_s);
  r.Read("motor_reply_timeout_ms", &c->motor_reply_timeout_ms);
  if (r.Has("max_segments")) {
    r.Read("max_segments", &c->max_segments);
  } else if (c->rate_hz > 0) {  // as many as play before the watchdog (Validate() checks both)
    c->max_segments = std::max<std::uint32_t>(
        1, static_cast<std::uint32_t>(c->trajectory_timeout_ms * c->rate_hz / 1000.0));
  }
  r.Read("shape_trajectory", &c->shape_trajectory);
  r.Finish();
}

void ParseRealtime(const YAML::Node& node, ParseContext* ctx, RealtimeConfig* c) {
  MapReader r(node, "realtime", ctx);
  r.Read("priority", &c->priority);
  r.Read("cpu", &c->cpu);
  r.Read("lock_memory", &c->lock_memory);
  r.Finish();
}

void ParseTelemetry(const YAML::Node& node, ParseContext* ctx, TelemetryConfig* c) {
  MapReader r(node, "telemetry", ctx);
  r.Read("rate_hz", &c->rate_hz);
  r.Read("diagnostics_rate_hz", &c->diagnostics_rate_hz);
  r.Finish();
}

void ParseSafety(const YAML::Node& node, ParseContext* ctx, SafetyConfig* c) {
  MapReader r(node, "safety", ctx);
  r.Read("overtemp_trip_c", &c->overtemp_trip_c);
  r.Read("overtemp_clear_c", &c->overtemp_clear_c);
  r.Read("fall_tilt_deg", &c->fall_tilt_deg);
  r.Read("fall_clear_deg", &c->fall_clear_deg);
  r.Read("fall_hold_ms", &c->fall_hold_ms);
  r.Read("min_loop_rate_fraction", &c->min_loop_rate_fraction);
  r.Read("control_stall_ms", &c->control_stall_ms);
  r.Read("joint_limit_margin_rad", &c->joint_limit_margin_rad);
  r.Read("max_joint_velocity", &c->max_joint_velocity);
  r.Read("latch_external_damp", &c->latch_external_damp);
  r.Finish();
}

void ParseVelocity(const YAML::Node& node, ParseContext* ctx, VelocityLimits* c) {
  MapReader r(node, "velocity", ctx);
  r.Read("vx_max", &c->vx_max);
  r.Read("vy_max", &c->vy_max);
  r.Read("vyaw_max", &c->vyaw_max);
  r.Finish();
}

void ParseMotors(const YAML::Node& node, ParseContext* ctx, std::vector<MotorModel>* motors) {
  if (!node.IsDefined()) return;
  if (!node.IsMap()) {
    ctx->Error(node, "motors", "expected a mapping of motor names to motor models");
    return;
  }
  for (const auto& item : node) {
    MotorModel m;
    m.name = item.first.as<std::string>();
    const std::string path = "motors." + m.name;
    ctx->Record(path, item.first);
    MapReader r(item.second, path, ctx);
    r.Read("p_max", &m.p_max_rad);
    r.Read("v_max", &m.v_max_rad_s);
    r.Read("t_max", &m.t_max_nm);
    r.Read("kp_max", &m.kp_max);
    r.Read("kd_max", &m.kd_max);
    r.Read("torque_constant", &m.torque_constant_nm_per_a);
    r.Read("can_timeout_ms", &m.can_timeout_ms);
    std::string family = "ak";
    r.Read("family", &family);
    if (family == "ak") {
      m.family = MotorFamily::kAk;
    } else if (family == "damiao") {
      m.family = MotorFamily::kDamiao;
    } else if (family == "robstride") {
      m.family = MotorFamily::kRobstride;
    } else {
      ctx->Error(item.second["family"], path + ".family",
                 "'" + family + "' is not a motor family (ak, damiao, robstride)");
    }
    std::string reply = "ak";
    r.Read("reply", &reply);
    if (reply == "ak") {
      m.reply = ReplyFormat::kAk8Byte;
    } else if (reply == "classic") {
      m.reply = ReplyFormat::kClassic6Byte;
    } else {
      ctx->Error(item.second["reply"], path + ".reply",
                 "'" + reply + "' is not a reply format (ak, classic)");
    }
    r.Finish();
    motors->push_back(m);
  }
}

void ParseBuses(const YAML::Node& node, ParseContext* ctx, std::vector<BusConfig>* buses) {
  if (!node.IsDefined()) return;
  if (!node.IsSequence()) {
    ctx->Error(node, "buses", "expected a list of buses");
    return;
  }
  for (std::size_t i = 0; i < node.size(); ++i) {
    BusConfig b;
    const std::string path = Indexed("buses", i);
    ctx->Record(path, node[i]);
    MapReader r(node[i], path, ctx);
    r.Require("name", &b.name);
    r.Require("interface", &b.interface);
    r.Read("bitrate", &b.bitrate);
    r.Read("restart_ms", &b.restart_ms);
    r.Read("master_id", &b.master_id);
    r.Finish();
    buses->push_back(b);
  }
}

// Index of the entry named `name`, or kUnresolved (Validate() reports it).
template <typename T>
std::size_t Resolve(const std::vector<T>& items, const std::string& name) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].name == name) return i;
  }
  return kUnresolved;
}

void ParseJoints(const YAML::Node& node, ParseContext* ctx, Config* c) {
  if (!node.IsDefined()) return;
  if (!node.IsSequence()) {
    ctx->Error(node, "joints", "expected a list of joints in firmware order");
    return;
  }
  for (std::size_t i = 0; i < node.size(); ++i) {
    JointConfig j;
    const std::string path = Indexed("joints", i);
    ctx->Record(path, node[i]);
    MapReader r(node[i], path, ctx);
    r.Require("name", &j.name);
    r.Require("bus", &j.bus_name);
    r.Require("can_id", &j.can_id);
    r.Require("motor", &j.motor_name);
    r.Require("min", &j.min_rad);
    r.Require("max", &j.max_rad);
    r.Require("kp", &j.kp);
    r.Require("kd", &j.kd);
    r.Require("stand", &j.stand_rad);
    r.Read("damp_kd", &j.damp_kd);
    r.Read("max_torque", &j.max_torque_nm);
    r.Read("max_velocity", &j.max_velocity_rad_s);
    r.Read("offset", &j.offset_rad);
    r.Read("direction", &j.direction);
    r.Read("gear_ratio", &j.gear_ratio);
    r.Read("inertia", &j.sim_inertia_kgm2);
    r.Read("friction", &j.sim_friction_nms);
    r.Finish();
    j.bus = Resolve(c->buses, j.bus_name);
    j.motor = Resolve(c->motors, j.motor_name);
    c->joints.push_back(j);
  }
}

void ParseImu(const YAML::Node& node, ParseContext* ctx, Config* c) {
  if (!node.IsDefined()) {
    ctx->Error(node, "imu", "missing required section (the IMU drives fall detection)");
    return;
  }
  MapReader r(node, "imu", ctx);
  r.Require("bus", &c->imu.bus_name);
  r.Read("quat_id", &c->imu.quat_id);
  r.Read("gyro_id", &c->imu.gyro_id);
  r.Read("accel_id", &c->imu.accel_id);
  r.Read("timeout_ms", &c->imu.timeout_ms);
  r.Finish();
  c->imu.bus = Resolve(c->buses, c->imu.bus_name);
}

void ParseBattery(const YAML::Node& node, ParseContext* ctx, Config* c) {
  BatteryConfig& b = c->battery;
  MapReader r(node, "battery", ctx);
  std::string source = "none";
  r.Read("source", &source);
  if (source == "none") {
    b.source = BatteryConfig::Source::kNone;
  } else if (source == "can") {
    b.source = BatteryConfig::Source::kCan;
  } else if (source == "sysfs") {
    b.source = BatteryConfig::Source::kSysfs;
  } else {
    ctx->Error(node["source"], "battery.source", "'" + source + "' is not none, can or sysfs");
  }
  r.Read("bus", &b.bus_name);
  r.Read("can_id", &b.can_id);
  r.Read("path", &b.path);
  r.Read("low_percent", &b.low_percent);
  r.Read("clear_percent", &b.clear_percent);
  r.Read("timeout_ms", &b.timeout_ms);
  r.Finish();
  b.bus = Resolve(c->buses, b.bus_name);
}

// `text` (ParseHostPort) into *host and *port; false, leaving them, when it is not host:port.
bool SplitHostPort(const std::string& text, std::string* host, std::uint16_t* port,
                   bool port_zero = false) {
  const std::optional<HostPort> address = ParseHostPort(text, port_zero);
  if (!address) return false;
  *host = address->host;
  *port = address->port;
  return true;
}

// Relative to the config file's directory.
std::string RelativeToConfig(const std::string& source, const std::string& file) {
  const std::filesystem::path path(file);
  if (path.is_absolute() || file.empty()) return file;
  return (std::filesystem::path(source).parent_path() / path).lexically_normal().string();
}

void ParseAccess(const YAML::Node& node, ParseContext* ctx, ApiConfig* c) {
  if (!node.IsDefined() || node.IsNull()) return;
  if (!node.IsMap()) {
    ctx->Error(node, "api.access",
               "expected a mapping of controllers (or observer) to {users, groups, token_file}");
    return;
  }
  for (const auto& item : node) {
    ClientAccess a;
    a.name = item.first.as<std::string>();
    const std::string path = "api.access." + a.name;
    ctx->Record(path, item.first);
    MapReader r(item.second, path, ctx);
    r.Read("users", &a.users);
    r.Read("groups", &a.groups);
    r.Read("token_file", &a.token_file);
    r.Finish();
    a.token_path = RelativeToConfig(ctx->source, a.token_file);
    c->access.push_back(a);
  }
}

// A key of an earlier release, known but refused: `message` says what to write instead.
void Renamed(MapReader& r, const YAML::Node& node, const char* key, const std::string& path,
             const std::string& message, ParseContext* ctx) {
  if (!r.Has(key)) return;
  r.Child(key);
  ctx->Error(node[key], path, message);
}

// The keys api.tls and live.tls share (certificate, private_key): `t` reads that mapping; the
// caller reads its own keys (api.tls's client_ca), then Finish()es it.
void ReadTls(MapReader& t, ParseContext* ctx, TlsConfig* c) {
  t.Require("certificate", &c->certificate);
  t.Require("private_key", &c->private_key);
  if (!c->certificate.empty()) c->certificate_path = RelativeToConfig(ctx->source, c->certificate);
  if (!c->private_key.empty()) c->private_key_path = RelativeToConfig(ctx->source, c->private_key);
}

void ParseApi(const YAML::Node& node, ParseContext* ctx, ApiConfig* c) {
  MapReader r(node, "api", ctx);
  r.Read("unix_socket", &c->unix_socket);
  r.Read("tcp", &c->tcp);
  if (const YAML::Node tls = r.Child("tls"); tls.IsDefined()) {
    MapReader t(tls, "api.tls", ctx);
    ReadTls(t, ctx, &c->tls);
    t.Read("client_ca", &c->tls.client_ca);
    t.Finish();
    if (!c->tls.client_ca.empty()) {
      c->tls.client_ca_path = RelativeToConfig(ctx->source, c->tls.client_ca);
    }
  }
  r.Read("allow_plaintext", &c->allow_plaintext);
  Renamed(r, node, "token", "api.token",
          "one shared token is no longer accepted: give each controller its own, in a file "
          "(api.access.<name>.token_file)",
          ctx);
  Renamed(r, node, "roles", "api.roles",
          "renamed api.access (the same entries: who may connect as each controller or observer)",
          ctx);
  Renamed(r, node, "maintenance_roles", "api.maintenance_roles",
          "renamed api.maintenance_controllers (the same list)", ctx);
  r.Read("controllers", &c->controllers);
  r.Read("maintenance_controllers", &c->maintenance_controllers);
  r.Read("apply_config_controllers", &c->apply_config_controllers);
  r.Read("fleet_may_change", &c->fleet_may_change);
  ParseAccess(r.Child("access"), ctx, c);
  r.Read("allow_loopback_without_token", &c->allow_loopback_without_token);
  r.Read("max_command_age_ms", &c->max_command_age_ms);
  r.Read("max_clock_offset_ms", &c->max_clock_offset_ms);
  r.Read("controller_idle_timeout_ms", &c->controller_idle_timeout_ms);
  r.Read("stop_on_disconnect", &c->stop_on_disconnect);
  r.Read("walking_silence_ms", &c->walking_silence_ms);
  r.Read("max_clients", &c->max_clients);
  r.Read("event_history", &c->event_history);
  r.Read("client_backlog_kib", &c->client_backlog_kib);
  r.Finish();
  if (!c->tcp.empty() && !SplitHostPort(c->tcp, &c->tcp_host, &c->tcp_port)) {
    ctx->Error(node["tcp"], "api.tcp", "'" + c->tcp + "' is not host:port with a port 1..65535");
  }
}

void ParseExtraMotors(const YAML::Node& node, ParseContext* ctx, Config* config) {
  if (!node.IsDefined()) return;
  if (!node.IsSequence()) {
    ctx->Error(node, "sim.extra_motors", "expected a list of {bus, motor, can_id}");
    return;
  }
  for (std::size_t i = 0; i < node.size(); ++i) {
    SimExtraMotor m;
    const std::string path = Indexed("sim.extra_motors", i);
    MapReader r(node[i], path, ctx);
    r.Require("bus", &m.bus_name);
    r.Require("motor", &m.motor_name);
    r.Require("can_id", &m.can_id);
    r.Finish();
    m.bus = Resolve(config->buses, m.bus_name);
    m.motor = Resolve(config->motors, m.motor_name);
    config->sim.extra_motors.push_back(m);
  }
}

void ParseRecorder(const YAML::Node& node, ParseContext* ctx, RecorderConfig* c) {
  MapReader r(node, "recorder", ctx);
  r.Read("directory", &c->directory);
  r.Read("record_on_start", &c->record_on_start);
  r.Read("channels", &c->channels);
  r.Read("compression", &c->compression);
  r.Read("max_file_mb", &c->max_file_mb);
  r.Read("max_file_minutes", &c->max_file_minutes);
  r.Read("retention_gb", &c->retention_gb);
  r.Read("min_free_mb", &c->min_free_mb);
  r.Read("black_box", &c->black_box);
  r.Read("black_box_seconds", &c->black_box_seconds);
  r.Read("black_box_after_seconds", &c->black_box_after_seconds);
  r.Read("black_box_memory_mb", &c->black_box_memory_mb);
  r.Read("black_box_files", &c->black_box_files);
  r.Finish();
  c->directory_path = RelativeToConfig(ctx->source, c->directory);
}

void ParseLive(const YAML::Node& node, ParseContext* ctx, LiveConfig* c) {
  MapReader r(node, "live", ctx);
  r.Read("address", &c->address);
  r.Read("token_file", &c->token_file);
  r.Read("operator_token_file", &c->operator_token_file);
  r.Read("web_root", &c->web_root);
  if (const YAML::Node tls = r.Child("tls"); tls.IsDefined()) {
    MapReader t(tls, "live.tls", ctx);
    ReadTls(t, ctx, &c->tls);  // no client_ca: viewers present tokens
    t.Finish();
  }
  r.Read("allow_plaintext", &c->allow_plaintext);
  r.Read("max_connections", &c->max_connections);
  r.Read("allowed_origins", &c->allowed_origins);
  r.Finish();
  if (!c->address.empty() && !SplitHostPort(c->address, &c->host, &c->port, /*port_zero=*/true)) {
    ctx->Error(node["address"], "live.address",
               "'" + c->address + "' is not host:port with a port 0..65535");
  }
  if (!c->token_file.empty()) c->token_path = RelativeToConfig(ctx->source, c->token_file);
  if (!c->operator_token_file.empty()) {
    c->operator_token_path = RelativeToConfig(ctx->source, c->operator_token_file);
  }
  if (!c->web_root.empty()) c->web_root = RelativeToConfig(ctx->source, c->web_root);
}

void ParseFitted(const YAML::Node& node, ParseContext* ctx, Config* config) {
  if (!node.IsDefined() || node.IsNull()) return;
  if (!node.IsMap()) {
    ctx->Error(node, "sim.fitted", "expected a mapping of joint names to motor models");
    return;
  }
  for (const auto& item : node) {
    const std::string joint = item.first.as<std::string>();
    ctx->Record("sim.fitted." + joint, item.first);
    if (!item.second.IsScalar()) {
      ctx->Error(item.second, "sim.fitted." + joint, "expected a motor model's name");
      continue;
    }
    SimFittedMotor m{joint, item.second.as<std::string>()};
    m.motor = Resolve(config->motors, m.motor_name);
    config->sim.fitted.push_back(m);
  }
}

void ParseJointNames(const YAML::Node& node, ParseContext* ctx, Config* config) {
  if (!node.IsDefined() || node.IsNull()) return;
  if (!node.IsMap()) {
    ctx->Error(node, "sim.joint_names", "expected a mapping of joint names to model names");
    return;
  }
  for (const auto& item : node) {
    const std::string joint = item.first.as<std::string>();
    ctx->Record("sim.joint_names." + joint, item.first);
    if (!item.second.IsScalar()) {
      ctx->Error(item.second, "sim.joint_names." + joint, "expected the joint's name in the model");
      continue;
    }
    config->sim.joint_names.push_back({joint, item.second.as<std::string>()});
  }
}

void ParseSim(const YAML::Node& node, ParseContext* ctx, Config* config) {
  SimConfig* c = &config->sim;
  MapReader r(node, "sim", ctx);
  r.Read("ambient_c", &c->ambient_c);
  r.Read("thermal_time_constant_s", &c->thermal_time_constant_s);
  r.Read("heating_c_per_nm2_s", &c->heating_c_per_nm2_s);
  if (r.Has("motor_can_timeout_ms")) {
    ctx->Error(r.Child("motor_can_timeout_ms"), "sim.motor_can_timeout_ms",
               "moved: the simulated motors use their model's motors.<name>.can_timeout_ms");
  }
  r.Read("imu_rate_hz", &c->imu_rate_hz);
  r.Read("joint_inertia", &c->joint_inertia);
  r.Read("joint_friction", &c->joint_friction);
  r.Read("command_latency_ms", &c->command_latency_ms);
  r.Read("torque_bandwidth_hz", &c->torque_bandwidth_hz);
  r.Read("physics", &c->physics);
  r.Read("model", &c->model);
  if (!c->model.empty()) c->model = RelativeToConfig(ctx->source, c->model);
  r.Read("gantry_height_m", &c->gantry_height_m);
  ParseExtraMotors(r.Child("extra_motors"), ctx, config);
  r.Read("missing", &c->missing);
  ParseFitted(r.Child("fitted"), ctx, config);
  ParseJointNames(r.Child("joint_names"), ctx, config);
  r.Finish();
}

// A number or a list of numbers (`scale: 0.25`, `scale: [2.0, 2.0, 0.25]`).
void ReadNumbers(MapReader& r, const char* key, ParseContext* ctx, std::vector<double>* out) {
  const YAML::Node node = r.Child(key);
  if (!node.IsDefined()) return;
  const std::string path = r.PathOf(key);
  const auto number = [&](const YAML::Node& n, const std::string& where, double* v) {
    if (!n.IsScalar()) {
      ctx->Error(n, where, "expected a number");
      return false;
    }
    try {
      *v = n.as<double>();
      return true;
    } catch (const YAML::Exception&) {
      ctx->Error(n, where, "'" + n.Scalar() + "' is not a number");
      return false;
    }
  };
  out->clear();
  if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      double v = 0;
      if (number(node[i], Indexed(path.c_str(), i), &v)) out->push_back(v);
    }
  } else {
    double v = 0;
    if (number(node, path, &v)) out->push_back(v);
  }
}

// A list of joint names, each resolved to its index in c->joints (kUnresolved: Validate()
// reports it). Records each element's line.
void ReadJointList(MapReader& r, const char* key, ParseContext* ctx, const Config& c,
                   std::vector<std::string>* names, std::vector<std::size_t>* indices) {
  const YAML::Node node = r.Child(key);
  if (!node.IsDefined()) return;
  const std::string path = r.PathOf(key);
  if (!node.IsSequence()) {
    ctx->Error(node, path, "expected a list of joint names");
    return;
  }
  for (std::size_t i = 0; i < node.size(); ++i) {
    if (!node[i].IsScalar()) {
      ctx->Error(node[i], Indexed(path.c_str(), i), "expected a joint name");
      continue;
    }
    ctx->Record(Indexed(path.c_str(), i), node[i]);
    names->push_back(node[i].Scalar());
    indices->push_back(Resolve(c.joints, names->back()));
  }
}

void ParseTargetLimits(const YAML::Node& node, ParseContext* ctx, Config* c) {
  if (!node.IsDefined()) return;
  if (!node.IsSequence()) {
    ctx->Error(node, "target_limits",
               "expected a list of {joints, max_velocity, max_acceleration, low_pass}");
    return;
  }
  for (std::size_t i = 0; i < node.size(); ++i) {
    TargetLimitConfig t;
    MapReader r(node[i], Indexed("target_limits", i), ctx);
    ReadJointList(r, "joints", ctx, *c, &t.joint_names, &t.joints);
    r.Read("max_velocity", &t.max_velocity);
    r.Read("max_acceleration", &t.max_acceleration);
    r.Read("low_pass", &t.low_pass);
    r.Finish();
    c->target_limits.push_back(std::move(t));
  }
}

constexpr ObservationTerm kTerms[] = {
    ObservationTerm::kBaseAngVel, ObservationTerm::kProjectedGravity, ObservationTerm::kCommand,
    ObservationTerm::kJointPos,   ObservationTerm::kJointVel,         ObservationTerm::kLastAction,
    ObservationTerm::kPhase};

// The phase term's keys: period_s, values, since (refused on any other term).
void ReadPhase(MapReader& r, const YAML::Node& node, const std::string& path, ParseContext* ctx,
               ObservationTermConfig* t) {
  if (t->term != ObservationTerm::kPhase) {
    for (const char* key : {"period_s", "values", "since"}) {
      if (!r.Has(key)) continue;
      r.Child(key);  // known: this error, not "unknown key"
      ctx->Error(node[key], path + "." + key, "only the phase term takes it");
    }
    return;
  }
  r.Require("period_s", &t->period_s);
  std::string values = ToString(t->values);
  r.Read("values", &values);
  bool known = false;
  for (PhaseValues v : {PhaseValues::kSinCos, PhaseValues::kSin, PhaseValues::kCos}) {
    if (values == ToString(v)) t->values = v, known = true;
  }
  if (!known)
    ctx->Error(node["values"], path + ".values", "'" + values + "' is not sin_cos, sin or cos");
  std::string since = ToString(t->since);
  r.Read("since", &since);
  if (since == ToString(PhaseSince::kPolicy)) {
    t->since = PhaseSince::kPolicy;
  } else if (since == ToString(PhaseSince::kStart)) {
    t->since = PhaseSince::kStart;
  } else {
    ctx->Error(node["since"], path + ".since", "'" + since + "' is not policy or start");
  }
}

void ParseRecurrentState(const YAML::Node& node, ParseContext* ctx, Config* c) {
  if (!node.IsDefined() || node.IsNull()) return;
  if (!node.IsMap() || node.size() == 0) {
    ctx->Error(node, "policy.recurrent_state",
               "expected a mapping of the network's state inputs to its outputs (h_in: h_out)");
    return;
  }
  for (const auto& item : node) {
    const std::string in = item.first.as<std::string>();
    ctx->Record("policy.recurrent_state." + in, item.first);
    if (!item.second.IsScalar()) {
      ctx->Error(item.second, "policy.recurrent_state." + in, "expected an output's name");
      continue;
    }
    c->policy.recurrent_state.emplace_back(in, item.second.as<std::string>());
  }
}

// clip: [low, high] (every value) or [[low, high], …] (one pair per value).
void ReadClip(MapReader& r, const std::string& path, ParseContext* ctx, ObservationTermConfig* t) {
  const YAML::Node node = r.Child("clip");
  if (!node.IsDefined()) return;
  const auto pair = [&](const YAML::Node& n, const std::string& where) {
    try {
      if (n.IsSequence() && n.size() == 2 && n[0].IsScalar() && n[1].IsScalar()) {
        t->clip_low.push_back(n[0].as<double>());
        t->clip_high.push_back(n[1].as<double>());
        return;
      }
    } catch (const YAML::Exception&) {
    }
    ctx->Error(n, where, "expected [low, high]");
  };
  const std::string key = path + ".clip";
  if (node.IsSequence() && node.size() > 0 && node[0].IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) pair(node[i], Indexed(key.c_str(), i));
  } else {
    pair(node, key);
  }
}

void ParseObservation(const YAML::Node& node, ParseContext* ctx, Config* c) {
  if (!node.IsDefined()) return;
  if (!node.IsSequence()) {
    ctx->Error(node, "policy.observation", "expected a list of terms ({term: NAME, scale: S})");
    return;
  }
  for (std::size_t i = 0; i < node.size(); ++i) {
    ObservationTermConfig t;
    const std::string path = Indexed("policy.observation", i);
    ctx->Record(path, node[i]);
    MapReader r(node[i], path, ctx);
    std::string name;
    r.Require("term", &name);
    bool known = false;
    for (ObservationTerm term : kTerms) {
      if (name == ToString(term)) {
        t.term = term;
        known = true;
      }
    }
    if (!known && r.Has("term")) {
      std::string names;
      for (ObservationTerm term : kTerms) {
        names += (names.empty() ? "" : ", ") + std::string(ToString(term));
      }
      ctx->Error(node[i]["term"], path + ".term",
                 "'" + name + "' is not an observation term (" + names + ")");
    }
    ReadNumbers(r, "scale", ctx, &t.scale);
    ReadClip(r, path, ctx, &t);
    ReadJointList(r, "joints", ctx, *c, &t.joint_names, &t.joints);
    r.Read("history", &t.history);
    if (known) ReadPhase(r, node[i], path, ctx, &t);
    if (r.Has("joints") && t.joint_names.empty()) {
      ctx->Error(node[i]["joints"], path + ".joints", "empty: leave it out to use policy.joints");
    }
    r.Finish();
    if (t.joint_names.empty()) t.joints = c->policy.joints;
    c->policy.observation.push_back(t);
  }
}

void ReadHistoryLayout(MapReader& r, const YAML::Node& node, ParseContext* ctx,
                       HistoryLayout* layout) {
  std::string name = ToString(*layout);
  r.Read("history_layout", &name);
  if (name == ToString(HistoryLayout::kFrameMajor)) {
    *layout = HistoryLayout::kFrameMajor;
  } else if (name == ToString(HistoryLayout::kTermMajor)) {
    *layout = HistoryLayout::kTermMajor;
  } else {
    ctx->Error(node["history_layout"], "policy.history_layout",
               "'" + name + "' is not a history layout (frame_major, term_major)");
  }
}

void ReadFaultAction(MapReader& r, const YAML::Node& node, ParseContext* ctx,
                     PolicyFaultAction* action) {
  std::string name = ToString(*action);
  r.Read("on_fault", &name);
  if (name == ToString(PolicyFaultAction::kStand)) {
    *action = PolicyFaultAction::kStand;
  } else if (name == ToString(PolicyFaultAction::kDamp)) {
    *action = PolicyFaultAction::kDamp;
  } else {
    ctx->Error(node["on_fault"], "policy.on_fault", "'" + name + "' is not stand or damp");
  }
}

void ParsePolicy(const YAML::Node& node, ParseContext* ctx, Config* c) {
  if (!node.IsDefined() || node.IsNull()) return;
  PolicyConfig& p = c->policy;
  p.enabled = true;
  MapReader r(node, "policy", ctx);
  if (!node.IsMap()) return;  // reported by the reader
  r.Require("model", &p.model);
  r.Read("rate_hz", &p.rate_hz);
  if (!r.Has("joints")) ctx->Error(node, "policy", "missing required key 'joints'");
  ReadJointList(r, "joints", ctx, *c, &p.joint_names, &p.joints);
  ReadNumbers(r, "default_pose", ctx, &p.default_pose_rad);
  if (!r.Has("action_scale")) ctx->Error(node, "policy", "missing required key 'action_scale'");
  ReadNumbers(r, "action_scale", ctx, &p.action_scale);
  ReadNumbers(r, "action_offset", ctx, &p.action_offset);
  r.Read("action_clip", &p.action_clip);
  ReadNumbers(r, "kp", ctx, &p.kp);
  ReadNumbers(r, "kd", ctx, &p.kd);
  if (!r.Has("observation")) ctx->Error(node, "policy", "missing required key 'observation'");
  ParseObservation(r.Child("observation"), ctx, c);
  r.Read("observation_clip", &p.observation_clip);
  r.Read("history", &p.history);
  ReadHistoryLayout(r, node, ctx, &p.history_layout);
  ReadFaultAction(r, node, ctx, &p.on_fault);
  r.Read("stall_timeout_ms", &p.stall_timeout_ms);
  ParseRecurrentState(r.Child("recurrent_state"), ctx, c);
  r.Finish();
  p.model_path = RelativeToConfig(c->source, p.model);
}

void ParseSections(const YAML::Node& root, ParseContext* ctx, Config* c) {
  MapReader top(root, "", ctx);
  top.Read("calibration", &c->calibration);
  c->calibration_path = RelativeToConfig(ctx->source, c->calibration);
  ParseRobot(top.Child("robot"), ctx, c);
  ParseControl(top.Child("control"), ctx, &c->control);
  ParseRealtime(top.Child("realtime"), ctx, &c->realtime);
  ParseTelemetry(top.Child("telemetry"), ctx, &c->telemetry);
  ParseSafety(top.Child("safety"), ctx, &c->safety);
  ParseVelocity(top.Child("velocity"), ctx, &c->velocity);
  ParseMotors(top.Child("motors"), ctx, &c->motors);
  ParseBuses(top.Child("buses"), ctx, &c->buses);
  ParseJoints(top.Child("joints"), ctx, c);
  ParseTargetLimits(top.Child("target_limits"), ctx, c);
  ParseImu(top.Child("imu"), ctx, c);
  ParseBattery(top.Child("battery"), ctx, c);
  ParseApi(top.Child("api"), ctx, &c->api);
  ParseRecorder(top.Child("recorder"), ctx, &c->recorder);
  ParseLive(top.Child("live"), ctx, &c->live);
  ParseSim(top.Child("sim"), ctx, c);
  ParsePolicy(top.Child("policy"), ctx, c);
  top.Finish();
}

}  // namespace

const char* ToString(PolicyFaultAction action) {
  switch (action) {
    case PolicyFaultAction::kStand: return "stand";
    case PolicyFaultAction::kDamp: return "damp";
  }
  return "?";
}

Config ParseConfig(std::string_view yaml_text, std::string_view source_name) {
  Config c;
  c.source = std::string(source_name);
  ParseContext ctx{c.source, &c.lines, {}};
  const YAML::Node root = detail::LoadDocument(yaml_text, c.source);
  if (!root.IsMap()) throw ConfigError({c.source + ": expected a YAML mapping at the top level"});
  detail::CheckKeys(root, &ctx);
  if (!ctx.errors.empty()) throw ConfigError(ctx.errors);
  try {
    ParseSections(root, &ctx, &c);
  } catch (const YAML::Exception& e) {
    // Backstop: the readers check every node's shape first, so this names a parser bug.
    ctx.errors.push_back(c.source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!ctx.errors.empty()) throw ConfigError(ctx.errors);
  c.digest = TextDigest(yaml_text);
  return c;
}

std::string TextDigest(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a 64
  for (const char ch : text) {
    hash ^= static_cast<unsigned char>(ch);
    hash *= 0x100000001b3ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

namespace {
std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError({path + ": cannot open the file"});
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}
}  // namespace

Config ParseConfigFile(const std::string& path) {
  Config c = ParseConfig(ReadFile(path), path);
  if (!c.calibration_path.empty() && std::filesystem::exists(c.calibration_path)) {
    ApplyCalibration(ReadFile(c.calibration_path), c.calibration_path, &c);
  }
  return c;
}

Config LoadConfig(const std::string& path) {
  Config c = ParseConfigFile(path);
  const auto problems = Validate(c);
  if (!problems.empty()) throw ConfigError(problems);
  return c;
}

std::string Config::Where(std::string_view key) const { return WhereIn(source, lines, key); }

std::string WhereIn(const std::string& source, const SourceLines& lines, std::string_view key) {
  std::string k(key);
  while (!k.empty()) {
    if (auto it = lines.find(k); it != lines.end()) {
      return source + ":" + std::to_string(it->second) + ": " + std::string(key);
    }
    const auto cut = k.find_last_of(".[");
    k = cut == std::string::npos ? "" : k.substr(0, cut);
  }
  return source + ": " + std::string(key);
}

namespace {
std::string JoinProblems(const std::vector<std::string>& problems) {
  std::string text;
  for (const auto& p : problems) text += (text.empty() ? "" : "\n") + p;
  return text;
}
}  // namespace

ConfigError::ConfigError(const std::vector<std::string>& problems)
    : std::runtime_error(JoinProblems(problems)), problems_(problems) {}

}  // namespace robot_edge::config
