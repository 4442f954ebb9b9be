#include "live/robot_document.hpp"

#include "live/json.hpp"

namespace robot_edge::live {
namespace {

void AppendJoint(std::string* out, const config::JointConfig& joint) {
  out->append("{\"name\":");
  AppendJsonString(out, joint.name);
  out->append(",\"min_rad\":");
  AppendJsonNumber(out, joint.min_rad);
  out->append(",\"max_rad\":");
  AppendJsonNumber(out, joint.max_rad);
  out->append(",\"stand_rad\":");
  AppendJsonNumber(out, joint.stand_rad);
  out->push_back('}');
}

}  // namespace

std::string RobotDocument(const config::Config& config) {
  std::string out = "{\"name\":";
  AppendJsonString(&out, config.robot_name);
  out.append(",\"control_rate_hz\":");
  AppendJsonNumber(&out, config.control.rate_hz);
  out.append(",\"telemetry_rate_hz\":");
  AppendJsonNumber(&out, config.telemetry.rate_hz);
  out.append(",\"safety\":{\"overtemp_trip_c\":");
  AppendJsonNumber(&out, config.safety.overtemp_trip_c);
  out.append(",\"overtemp_clear_c\":");
  AppendJsonNumber(&out, config.safety.overtemp_clear_c);
  out.append("},\"joints\":[");
  for (std::size_t i = 0; i < config.joints.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendJoint(&out, config.joints[i]);
  }
  out.append("]}");
  return out;
}

}  // namespace robot_edge::live
