// The Foxglove WebSocket protocol (subprotocol foxglove.websocket.v1, foxglove/ws-protocol
// docs/spec.md) as bytes: the server's JSON and binary messages, and parsers of what clients
// send. Pure, no I/O; the server (live_server.cpp) moves these bytes.
//
// Supported: serverInfo (capability "services", service encoding "json"), status, advertise,
// unadvertise, messageData, advertiseServices, serviceCallResponse, serviceCallFailure; from
// clients subscribe, unsubscribe and serviceCallRequest. Anything else is answered with a status
// warning.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "live/options.hpp"

namespace robot_edge::live::protocol {

inline constexpr std::string_view kSubprotocol = "foxglove.websocket.v1";
// Binary opcodes (first byte): server -> client.
inline constexpr std::uint8_t kMessageData = 0x01;
inline constexpr std::uint8_t kServiceCallResponse = 0x03;
// Client -> server.
inline constexpr std::uint8_t kServiceCallRequest = 0x02;
// messageData: opcode, uint32 subscription id, uint64 timestamp (ns), all little-endian.
inline constexpr std::size_t kMessageDataHeaderBytes = 1 + 4 + 8;
// The one encoding of service requests and responses.
inline constexpr std::string_view kServiceEncoding = "json";

enum class StatusLevel { kInfo = 0, kWarning = 1, kError = 2 };

// ---- Server -> client, JSON text.
std::string ServerInfo(std::string_view name, std::string_view session_id);
// One entry of an advertise message (the schema base64-encoded); built once per channel.
std::string ChannelObject(std::uint32_t id, const ChannelSpec& spec);
// {"op":"advertise","channels":[...]} from ChannelObject()s.
std::string Advertise(const std::vector<std::string>& channel_objects);
std::string Unadvertise(const std::vector<std::uint32_t>& channel_ids);
// One entry of an advertiseServices message.
std::string ServiceObject(std::uint32_t id, const ServiceSpec& spec);
std::string AdvertiseServices(const std::vector<std::string>& service_objects);
std::string Status(StatusLevel level, std::string_view message);
std::string ServiceCallFailure(std::uint32_t service_id, std::uint32_t call_id,
                               std::string_view message);

// ---- Server -> client, binary.
// The 13 bytes before a message's payload: 0x01, subscription id, log time (ns).
std::array<std::uint8_t, kMessageDataHeaderBytes> MessageDataHeader(std::uint32_t subscription_id,
                                                                    std::uint64_t log_time_ns);
// 0x03, service id, call id, encoding length, encoding, payload.
std::string ServiceCallResponse(std::uint32_t service_id, std::uint32_t call_id,
                                std::string_view encoding, std::string_view payload);

// ---- Client -> server.
struct ServiceCallRequest {
  std::uint32_t service_id = 0;
  std::uint32_t call_id = 0;
  std::string_view encoding;  // views into the parsed bytes
  std::string_view payload;
};
// nullopt when `bytes` is not a whole serviceCallRequest (opcode 0x02).
std::optional<ServiceCallRequest> ParseServiceCallRequest(std::string_view bytes);

struct Subscription {
  std::uint32_t id = 0;  // chosen by the client
  std::uint32_t channel_id = 0;
};

// A client's JSON text message.
struct ClientRequest {
  enum class Kind { kSubscribe, kUnsubscribe, kUnsupported, kInvalid };
  Kind kind = Kind::kInvalid;
  std::string op;                               // as sent
  std::vector<Subscription> subscriptions;      // kSubscribe
  std::vector<std::uint32_t> subscription_ids;  // kUnsubscribe
  std::string error;                            // kInvalid: what is wrong with it
};
ClientRequest ParseClientText(std::string_view json);

}  // namespace robot_edge::live::protocol
