#include "live/protocol.hpp"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <cmath>

#include "live/base64.hpp"
#include "live/json.hpp"

namespace robot_edge::live::protocol {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

void AppendLe(std::string* out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(value >> (8 * i) & 0xFF));
}

std::uint32_t ReadLe32(std::string_view bytes, std::size_t at) {
  std::uint32_t value = 0;
  for (int i = 0; i < 4; ++i)
    value |= std::uint32_t{static_cast<std::uint8_t>(bytes[at + i])} << (8 * i);
  return value;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out.push_back(',');
    out.append(items[i]);
  }
  return out;
}

// {"encoding":"json","schemaName":...,"schemaEncoding":"jsonschema","schema":...}
std::string ServiceSchemaObject(std::string_view schema_name, std::string_view schema) {
  return "{\"encoding\":" + JsonString(kServiceEncoding) +
         ",\"schemaName\":" + JsonString(schema_name) +
         ",\"schemaEncoding\":\"jsonschema\",\"schema\":" + JsonString(schema) + "}";
}

// An integer 0 .. 2^32-1 held by a JSON value, or nullopt.
std::optional<std::uint32_t> AsUint32(const Value& value) {
  if (value.kind_case() != Value::kNumberValue) return std::nullopt;
  const double n = value.number_value();
  if (n < 0 || n > 4294967295.0 || std::floor(n) != n) return std::nullopt;
  return static_cast<std::uint32_t>(n);
}

const Value* Field(const Struct& object, const std::string& name) {
  const auto it = object.fields().find(name);
  return it == object.fields().end() ? nullptr : &it->second;
}

void ParseSubscribe(const Struct& object, ClientRequest* request) {
  const Value* list = Field(object, "subscriptions");
  if (list == nullptr || list->kind_case() != Value::kListValue) {
    request->error = "subscribe without a subscriptions array";
    return;
  }
  for (const Value& item : list->list_value().values()) {
    const Value* id = item.has_struct_value() ? Field(item.struct_value(), "id") : nullptr;
    const Value* channel =
        item.has_struct_value() ? Field(item.struct_value(), "channelId") : nullptr;
    const auto id_value = id ? AsUint32(*id) : std::nullopt;
    const auto channel_value = channel ? AsUint32(*channel) : std::nullopt;
    if (!id_value || !channel_value) {
      request->error = "subscribe: each subscription needs an integer id and channelId";
      return;
    }
    request->subscriptions.push_back({*id_value, *channel_value});
  }
  request->kind = ClientRequest::Kind::kSubscribe;
}

void ParseUnsubscribe(const Struct& object, ClientRequest* request) {
  const Value* list = Field(object, "subscriptionIds");
  if (list == nullptr || list->kind_case() != Value::kListValue) {
    request->error = "unsubscribe without a subscriptionIds array";
    return;
  }
  for (const Value& item : list->list_value().values()) {
    const auto id = AsUint32(item);
    if (!id) {
      request->error = "unsubscribe: subscriptionIds must be integers";
      return;
    }
    request->subscription_ids.push_back(*id);
  }
  request->kind = ClientRequest::Kind::kUnsubscribe;
}

}  // namespace

std::string ServerInfo(std::string_view name, std::string_view session_id) {
  return "{\"op\":\"serverInfo\",\"name\":" + JsonString(name) +
         ",\"capabilities\":[\"services\"],\"supportedEncodings\":[" +
         JsonString(kServiceEncoding) +
         "],\"metadata\":{},\"sessionId\":" + JsonString(session_id) + "}";
}

std::string ChannelObject(std::uint32_t id, const ChannelSpec& spec) {
  return "{\"id\":" + std::to_string(id) + ",\"topic\":" + JsonString(spec.topic) +
         ",\"encoding\":" + JsonString(spec.encoding) +
         ",\"schemaName\":" + JsonString(spec.schema_name) +
         ",\"schema\":" + JsonString(Base64Encode(spec.schema)) +
         ",\"schemaEncoding\":" + JsonString(spec.schema_encoding) + "}";
}

std::string Advertise(const std::vector<std::string>& channel_objects) {
  return "{\"op\":\"advertise\",\"channels\":[" + Join(channel_objects) + "]}";
}

std::string Unadvertise(const std::vector<std::uint32_t>& channel_ids) {
  std::vector<std::string> ids;
  for (const std::uint32_t id : channel_ids) ids.push_back(std::to_string(id));
  return "{\"op\":\"unadvertise\",\"channelIds\":[" + Join(ids) + "]}";
}

// Both the request/response objects of the current spec and the deprecated requestSchema /
// responseSchema strings, for older clients.
std::string ServiceObject(std::uint32_t id, const ServiceSpec& spec) {
  return "{\"id\":" + std::to_string(id) + ",\"name\":" + JsonString(spec.name) +
         ",\"type\":" + JsonString(spec.type) +
         ",\"request\":" + ServiceSchemaObject(spec.type + "_Request", spec.request_schema) +
         ",\"response\":" + ServiceSchemaObject(spec.type + "_Response", spec.response_schema) +
         ",\"requestSchema\":" + JsonString(spec.request_schema) +
         ",\"responseSchema\":" + JsonString(spec.response_schema) + "}";
}

std::string AdvertiseServices(const std::vector<std::string>& service_objects) {
  return "{\"op\":\"advertiseServices\",\"services\":[" + Join(service_objects) + "]}";
}

std::string Status(StatusLevel level, std::string_view message) {
  return "{\"op\":\"status\",\"level\":" + std::to_string(static_cast<int>(level)) +
         ",\"message\":" + JsonString(message) + "}";
}

std::string ServiceCallFailure(std::uint32_t service_id, std::uint32_t call_id,
                               std::string_view message) {
  return "{\"op\":\"serviceCallFailure\",\"serviceId\":" + std::to_string(service_id) +
         ",\"callId\":" + std::to_string(call_id) + ",\"message\":" + JsonString(message) + "}";
}

std::array<std::uint8_t, kMessageDataHeaderBytes> MessageDataHeader(std::uint32_t subscription_id,
                                                                    std::uint64_t log_time_ns) {
  std::array<std::uint8_t, kMessageDataHeaderBytes> header{};
  header[0] = kMessageData;
  for (int i = 0; i < 4; ++i) header[1 + i] = subscription_id >> (8 * i) & 0xFF;
  for (int i = 0; i < 8; ++i) header[5 + i] = log_time_ns >> (8 * i) & 0xFF;
  return header;
}

std::string ServiceCallResponse(std::uint32_t service_id, std::uint32_t call_id,
                                std::string_view encoding, std::string_view payload) {
  std::string out(1, static_cast<char>(kServiceCallResponse));
  AppendLe(&out, service_id, 4);
  AppendLe(&out, call_id, 4);
  AppendLe(&out, encoding.size(), 4);
  out.append(encoding);
  out.append(payload);
  return out;
}

std::optional<ServiceCallRequest> ParseServiceCallRequest(std::string_view bytes) {
  constexpr std::size_t kFixed = 1 + 4 + 4 + 4;
  if (bytes.size() < kFixed || static_cast<std::uint8_t>(bytes[0]) != kServiceCallRequest) {
    return std::nullopt;
  }
  ServiceCallRequest request;
  request.service_id = ReadLe32(bytes, 1);
  request.call_id = ReadLe32(bytes, 5);
  const std::uint32_t encoding_length = ReadLe32(bytes, 9);
  if (encoding_length > bytes.size() - kFixed) return std::nullopt;
  request.encoding = bytes.substr(kFixed, encoding_length);
  request.payload = bytes.substr(kFixed + encoding_length);
  return request;
}

ClientRequest ParseClientText(std::string_view json) {
  ClientRequest request;
  Struct object;
  if (!google::protobuf::util::JsonStringToMessage(json, &object).ok()) {
    request.error = "not a JSON object";
    return request;
  }
  const Value* op = Field(object, "op");
  if (op == nullptr || op->kind_case() != Value::kStringValue) {
    request.error = "no \"op\" string";
    return request;
  }
  request.op = op->string_value();
  if (request.op == "subscribe") {
    ParseSubscribe(object, &request);
  } else if (request.op == "unsubscribe") {
    ParseUnsubscribe(object, &request);
  } else {
    request.kind = ClientRequest::Kind::kUnsupported;
  }
  return request;
}

}  // namespace robot_edge::live::protocol
