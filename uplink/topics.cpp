#include "uplink/topics.hpp"

namespace robot_edge::uplink {

const char* TopicName(Topic topic) {
  switch (topic) {
    case Topic::kTelemetry: return "telemetry";
    case Topic::kEvents: return "events";
    case Topic::kDiagnostics: return "diagnostics";
    case Topic::kCommands: return "commands";
    case Topic::kConfig: return "config";
    case Topic::kBlackbox: return "blackbox";
    case Topic::kStatus: return "status";
  }
  return "?";
}

std::string TopicPath(std::string_view prefix, std::string_view robot, Topic topic) {
  std::string path(prefix);
  path += '/';
  path += robot;
  path += '/';
  path += TopicName(topic);
  return path;
}

bool ValidTopicLevel(std::string_view level) {
  if (level.empty() || level.size() > 64) return false;
  for (const char c : level) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

}  // namespace robot_edge::uplink
