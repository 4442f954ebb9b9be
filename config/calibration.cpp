// The calibration file: joint offsets measured by `robot-edgectl calibrate`, kept apart from the
// hand-written config so that calibrating never rewrites it (config.hpp, ApplyCalibration()).
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "config/config.hpp"
#include "config/yaml_reader.hpp"

namespace robot_edge::config {
namespace {

constexpr double kMaxOffsetRad = 2.0 * M_PI;

void ApplyOffsets(const YAML::Node& node, detail::ParseContext* ctx, Config* c) {
  if (!node.IsDefined()) {
    ctx->Error(node, "offsets", "missing: a mapping of joint names to offsets (rad)");
    return;
  }
  if (!node.IsMap()) {
    ctx->Error(node, "offsets", "expected a mapping of joint names to offsets (rad)");
    return;
  }
  for (const auto& item : node) {
    const std::string name = item.first.Scalar();
    const std::string path = "offsets." + name;
    auto joint = std::find_if(c->joints.begin(), c->joints.end(),
                              [&](const JointConfig& j) { return j.name == name; });
    if (joint == c->joints.end()) {
      ctx->Error(item.first, path, "no joint of that name in " + c->source);
      continue;
    }
    double offset = 0;
    try {
      offset = item.second.as<double>();
    } catch (const YAML::Exception&) {
      ctx->Error(item.second, path, "expected an offset in rad");
      continue;
    }
    if (!std::isfinite(offset) || std::abs(offset) > kMaxOffsetRad) {
      ctx->Error(item.second, path, "offset beyond ±2π rad");
      continue;
    }
    joint->offset_rad = offset;
    joint->calibrated = true;
  }
}

}  // namespace

void ApplyCalibration(std::string_view yaml_text, std::string_view source_name, Config* c) {
  SourceLines lines;
  detail::ParseContext ctx{std::string(source_name), &lines, {}};
  const YAML::Node root = detail::LoadDocument(yaml_text, ctx.source);
  if (!root.IsMap()) throw ConfigError({ctx.source + ": expected a YAML mapping at the top level"});
  detail::CheckKeys(root, &ctx);
  if (!ctx.errors.empty()) throw ConfigError(ctx.errors);
  detail::MapReader r(root, "", &ctx);
  std::string calibrated_at, pose;
  r.Read("calibrated_at", &calibrated_at);
  r.Read("pose", &pose);
  ApplyOffsets(r.Child("offsets"), &ctx, c);
  r.Finish();
  if (!ctx.errors.empty()) throw ConfigError(ctx.errors);
  c->calibrated_at = calibrated_at.empty() ? "(no date)" : calibrated_at;
}

std::string FormatCalibration(const Config& c, const std::vector<double>& offsets_rad,
                              std::string_view pose, std::string_view calibrated_at) {
  std::string text =
      "# robot-edge calibration: joint offsets (rad), q_joint = direction · gear_ratio · "
      "q_motor + offset.\n# Written by `robot-edgectl calibrate`; " +
      c.source + " names this file under `calibration:`.\n";
  text += "calibrated_at: \"" + std::string(calibrated_at) + "\"\n";
  text += "pose: " + std::string(pose) + "\n";
  text += "offsets:\n";
  char line[160];
  for (std::size_t j = 0; j < c.joints.size() && j < offsets_rad.size(); ++j) {
    std::snprintf(line, sizeof(line), "  %s: %.6f\n", c.joints[j].name.c_str(), offsets_rad[j]);
    text += line;
  }
  return text;
}

}  // namespace robot_edge::config
