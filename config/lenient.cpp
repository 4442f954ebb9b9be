#include "config/lenient.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

namespace robot_edge::config {
namespace {

constexpr std::uint32_t kMaxMotorId = 0xFF;  // as Validate(): every family's motor ids

// The scalar at node[key] as T; `fallback` when absent; nullopt when present but not a T.
template <typename T>
std::optional<T> Get(const YAML::Node& node, const char* key, T fallback) {
  const YAML::Node value = node[key];
  if (!value.IsDefined() || value.IsNull()) return fallback;
  if (!value.IsScalar()) return std::nullopt;
  try {
    return value.as<T>();
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
}

std::optional<MotorFamily> FamilyOf(const std::string& name) {
  if (name == "ak") return MotorFamily::kAk;
  if (name == "damiao") return MotorFamily::kDamiao;
  if (name == "robstride") return MotorFamily::kRobstride;
  return std::nullopt;
}

bool Positive(const std::optional<double>& v) { return v && std::isfinite(*v) && *v > 0; }

std::optional<MotorModel> ReadMotor(const std::string& name, const YAML::Node& node) {
  if (!node.IsMap()) return std::nullopt;
  MotorModel m;
  m.name = name;
  const auto family = FamilyOf(Get<std::string>(node, "family", "ak").value_or("?"));
  const auto reply = Get<std::string>(node, "reply", "ak");
  const auto p = Get(node, "p_max", m.p_max_rad), v = Get(node, "v_max", m.v_max_rad_s),
             t = Get(node, "t_max", m.t_max_nm), kp = Get(node, "kp_max", m.kp_max),
             kd = Get(node, "kd_max", m.kd_max);
  if (!family || !reply || (*reply != "ak" && *reply != "classic")) return std::nullopt;
  if (!Positive(p) || !Positive(v) || !Positive(t) || !Positive(kp) || !Positive(kd))
    return std::nullopt;
  m.family = *family;
  m.reply = *reply == "ak" ? ReplyFormat::kAk8Byte : ReplyFormat::kClassic6Byte;
  m.p_max_rad = *p;
  m.v_max_rad_s = *v;
  m.t_max_nm = *t;
  m.kp_max = *kp;
  m.kd_max = *kd;
  return m;
}

std::optional<BusConfig> ReadBus(const YAML::Node& node) {
  if (!node.IsMap()) return std::nullopt;
  const auto name = Get<std::string>(node, "name", "");
  const auto interface = Get<std::string>(node, "interface", "");
  const auto master = Get<std::uint32_t>(node, "master_id", 0);
  if (!name || name->empty() || !interface || interface->empty() || !master) return std::nullopt;
  BusConfig b;
  b.name = *name;
  b.interface = *interface;
  b.master_id = *master;
  return b;
}

template <typename T>
std::size_t Find(const std::vector<T>& items, const std::string& name) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].name == name) return i;
  }
  return kUnresolved;
}

// The joint, or why it cannot be used.
std::optional<JointConfig> ReadJoint(const YAML::Node& node, const Config& c, std::string* why) {
  if (!node.IsMap()) return *why = "not a mapping", std::nullopt;
  JointConfig j;
  j.name = Get<std::string>(node, "name", "").value_or("");
  j.bus_name = Get<std::string>(node, "bus", "").value_or("");
  j.motor_name = Get<std::string>(node, "motor", "").value_or("");
  j.bus = Find(c.buses, j.bus_name);
  j.motor = Find(c.motors, j.motor_name);
  const auto id = Get<std::uint32_t>(node, "can_id", 0);
  const auto damp_kd = Get(node, "damp_kd", j.damp_kd);
  const auto direction = Get(node, "direction", j.direction);
  const auto ratio = Get(node, "gear_ratio", j.gear_ratio);
  const auto offset = Get(node, "offset", j.offset_rad);
  if (j.bus == kUnresolved) return *why = "bus '" + j.bus_name + "' is not usable", std::nullopt;
  if (j.motor == kUnresolved) {
    return *why = "motor '" + j.motor_name + "' is not usable", std::nullopt;
  }
  if (!id || *id == 0 || *id > kMaxMotorId) return *why = "no usable can_id", std::nullopt;
  if (!damp_kd || !std::isfinite(*damp_kd) || *damp_kd < 0 || !direction ||
      (*direction != 1 && *direction != -1) || !Positive(ratio) || !offset ||
      !std::isfinite(*offset)) {
    return *why = "damp_kd, direction, gear_ratio or offset not usable", std::nullopt;
  }
  j.can_id = *id;
  j.damp_kd = *damp_kd;
  j.direction = *direction;
  j.gear_ratio = *ratio;
  j.offset_rad = *offset;
  return j;
}

void ReadMotors(const YAML::Node& node, Config* c, std::vector<std::string>* skipped) {
  if (!node.IsMap()) return;
  for (const auto& item : node) {
    const std::string name = item.first.IsScalar() ? item.first.Scalar() : "";
    if (auto m = ReadMotor(name, item.second); m && !name.empty()) {
      c->motors.push_back(*m);
    } else {
      skipped->push_back("motors." + name + ": not usable");
    }
  }
}

template <typename Read>
void ReadList(const YAML::Node& node, const char* list, Read read) {
  if (!node.IsSequence()) return;
  for (std::size_t i = 0; i < node.size(); ++i) {
    read(node[i], std::string(list) + "[" + std::to_string(i) + "]");
  }
}

}  // namespace

Config ParseMotorsLeniently(std::string_view yaml_text, std::string_view source_name,
                            std::vector<std::string>* skipped) {
  Config c;
  c.source = std::string(source_name);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    throw ConfigError({c.source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg});
  }
  if (!root.IsMap()) throw ConfigError({c.source + ": expected a YAML mapping at the top level"});
  ReadMotors(root["motors"], &c, skipped);
  ReadList(root["buses"], "buses", [&](const YAML::Node& n, const std::string& where) {
    if (auto b = ReadBus(n)) {
      c.buses.push_back(*b);
    } else {
      skipped->push_back(where + ": no usable name, interface or master_id");
    }
  });
  ReadList(root["joints"], "joints", [&](const YAML::Node& n, const std::string& where) {
    std::string why;
    if (auto j = ReadJoint(n, c, &why)) {
      c.joints.push_back(*j);
    } else {
      skipped->push_back(where + ": " + why);
    }
  });
  return c;
}

Config ReadMotorsLeniently(const std::string& path, std::vector<std::string>* skipped) {
  std::ifstream in(path);
  if (!in) throw ConfigError({path + ": cannot open the file"});
  std::stringstream text;
  text << in.rdbuf();
  return ParseMotorsLeniently(text.str(), path, skipped);
}

}  // namespace robot_edge::config
