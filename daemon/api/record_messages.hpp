// What the flight recorder writes, built from what the control and API threads hand it (pure:
// clocks passed in). The channels, their schemas, and the records of the hand-off ring.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/api/messages.hpp"
#include "daemon/channels/state_sample.hpp"
#include "edge_api.pb.h"

namespace robot_edge::daemon {

// The recording channels, in this order (the index is the recorder's channel index).
enum class RecordChannel : std::uint8_t {
  kJointState,   // /joint_state  edge.JointState, every control tick
  kTelemetry,    // /telemetry    edge.EdgeTelemetry, at telemetry.rate_hz
  kEvents,       // /events       edge.EdgeEvent (errors, diagnostics, controller changes)
  kCommands,     // /commands     edge.CommandRecord, every command and what became of it
  kDiagnostics,  // /diagnostics  edge.DiagnosticsExtension, beside each diagnostics event
  kCan,          // /can          edge.CanFrames, every frame on the buses (only when listed)
  kCount
};
inline constexpr std::size_t kRecordChannelCount = static_cast<std::size_t>(RecordChannel::kCount);

struct RecordChannelSpec {
  const char* name;   // as recorder.channels names it: "joint_state"
  const char* topic;  // "/joint_state"
  const google::protobuf::Descriptor* descriptor;
};
const RecordChannelSpec& SpecOf(RecordChannel channel);

// Tags of the records the API thread hands the recorder (handoff/byte_ring.hpp).
enum class RecordTag : std::uint32_t {
  kTelemetry = 1,     // a ServerMessage (telemetry + extension), without its length prefix
  kEvent = 2,         // a ServerMessage (event [+ diagnostics_extension]), without its prefix
  kCommand = 3,       // a CommandNote, then the CloudCommand's bytes
  kResult = 4,        // a CommandNote: the control thread's verdict on a queued command
  kClient = 5,        // a client's description: u64 id, u32 peer length, peer, controller
  kJointCommand = 6,  // a CommandNote, then the JointCommand's bytes
};

// The fixed part of a command's record (trivially copyable: it is memcpy'd through the ring).
struct CommandNote {
  std::uint64_t client_id = 0;
  std::uint64_t time_us = 0;  // wall clock: when it arrived (kCommand), was decided (kResult)
  std::uint32_t sequence = 0;
  std::uint8_t decided = 0;  // accepted and reason are final
  std::uint8_t accepted = 0;
  std::uint8_t reason = static_cast<std::uint8_t>(sm::Reason::kCount);  // kCount: none
  std::uint8_t mode = 0;  // sm::Mode after it (kResult)
};

// A motor's link at `now_us`, by FW_LINK_TIMEOUT's rule (statemachine/alerts.hpp): silent when
// it has not replied for `reply_timeout_us` (control.motor_reply_timeout_ms) while commands to
// it went unanswered.
edge::MotorStatus MotorStatusOf(const sm::JointMeasurement& joint, std::int64_t now_us,
                                std::int64_t reply_timeout_us);

// control.motor_reply_timeout_ms in µs.
inline std::int64_t ReplyTimeoutUs(const config::Config& config) {
  return static_cast<std::int64_t>(config.control.motor_reply_timeout_ms) * 1000;
}

// The JointState of one tick (out is cleared first; its capacity is reused): the flight
// recorder's /joint_state and the state stream's frames.
void FillJointState(const StateSample& sample, const Clocks& clocks, std::int64_t reply_timeout_us,
                    edge::JointState* out);

// The CommandRecord of a kCommand, kJointCommand or kResult record. `command` may be empty (a
// result); `joint` says it holds a JointCommand rather than a CloudCommand.
struct ClientInfo {
  std::string peer;
  std::string controller;
};
void FillCommandRecord(const CommandNote& note, std::span<const std::uint8_t> command,
                       const ClientInfo& client, edge::CommandRecord* out, bool joint = false);

// A kClient record's payload, and back. False when it is malformed.
std::string ClientPayload(std::uint64_t id, std::string_view peer, std::string_view controller);
bool ParseClientPayload(std::span<const std::uint8_t> payload, std::uint64_t* id, ClientInfo* out);

// Whether an EdgeError with this code writes the black box (a critical alert, a policy fault).
bool TriggersBlackBox(std::string_view error_code);

}  // namespace robot_edge::daemon
