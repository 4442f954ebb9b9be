// The uplink's MQTT topics: one set per robot, `<prefix>/<robot>/<kind>` (pure).
//
//   telemetry    robot -> fleet  EdgeTelemetry bytes, QoS 0, at options.telemetry_rate_hz
//   events       robot -> fleet  EdgeEvent bytes (error, controller), QoS 1, spooled
//   diagnostics  robot -> fleet  EdgeEvent bytes whose diagnostics is set, QoS 1, spooled
//   commands     fleet -> robot  CloudCommand bytes, QoS 1 (forwarded as the controller `fleet`
//                                unless command_gate.hpp refuses it)
//   config       fleet -> robot  a robot-edge.yaml document (applied in DAMP only)
//   blackbox     fleet -> robot  an upload request (JSON; docs/fleet-uploads.md)
//                (the three fleet -> robot topics: subscribed without retained messages, and one
//                published retained is refused: mqtt.hpp Subscribe)
//   status       robot -> fleet  JSON: online / offline (retained; the last will), spool
//                                evictions, command results, config and upload results
#pragma once

#include <string>
#include <string_view>

namespace robot_edge::uplink {

enum class Topic { kTelemetry, kEvents, kDiagnostics, kCommands, kConfig, kBlackbox, kStatus };

// "telemetry", "events", ...
const char* TopicName(Topic topic);

// `<prefix>/<robot>/<name>`.
std::string TopicPath(std::string_view prefix, std::string_view robot, Topic topic);

// A valid MQTT topic level for the robot id or a prefix level: 1..64 of [A-Za-z0-9_.-] (no '/',
// '+', '#', nothing a wildcard or another robot's tree could match).
bool ValidTopicLevel(std::string_view level);

}  // namespace robot_edge::uplink
