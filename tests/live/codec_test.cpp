// The pure parts of the live view: base64, JSON text, WebSocket frame headers, the Foxglove
// protocol's messages (golden bytes and text) and the parsing of what clients send.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "live/base64.hpp"
#include "live/json.hpp"
#include "live/protocol.hpp"
#include "live/ws_frame.hpp"

namespace robot_edge::live {
namespace {

std::string Hex(const std::string& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    out.push_back(kHex[static_cast<unsigned char>(c) >> 4]);
    out.push_back(kHex[static_cast<unsigned char>(c) & 15]);
  }
  return out;
}

TEST(Base64, Rfc4648Vectors) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64Encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode(std::string("\xff\x00\xfe", 3)), "/wD+");
}

TEST(Base64, DecodesWhatItEncodesAndRefusesTheRest) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (std::size_t n = 0; n < 8; ++n) {
    EXPECT_EQ(Base64Decode(Base64Encode(all.substr(0, n))), all.substr(0, n));
  }
  EXPECT_EQ(Base64Decode(Base64Encode(all)), all);
  EXPECT_FALSE(Base64Decode("Zg="));       // not a multiple of 4
  EXPECT_FALSE(Base64Decode("Z!=="));      // not a digit
  EXPECT_FALSE(Base64Decode("Zg==Zg=="));  // padding before the end
}

TEST(Json, StringsAreEscaped) {
  EXPECT_EQ(JsonString("plain"), "\"plain\"");
  EXPECT_EQ(JsonString("a\"b\\c\nd\te"), "\"a\\\"b\\\\c\\nd\\te\"");
  EXPECT_EQ(JsonString(std::string("\x01", 1)), "\"\\u0001\"");
  EXPECT_EQ(JsonString("°C"), "\"°C\"");  // UTF-8 as it is
}

TEST(Json, NumbersAreShortestAndNeverNaN) {
  std::string out;
  AppendJsonNumber(&out, 1.5);
  out.push_back(' ');
  AppendJsonNumber(&out, -0.3);
  out.push_back(' ');
  AppendJsonNumber(&out, 500);
  out.push_back(' ');
  AppendJsonNumber(&out, 0.1 + 0.2);
  out.push_back(' ');
  AppendJsonNumber(&out, std::nan(""));
  EXPECT_EQ(out, "1.5 -0.3 500 0.30000000000000004 null");
}

TEST(WsFrameHeader, LengthsInOneTwoAndEightBytes) {
  EXPECT_EQ(Hex(WsFrameHeader(kWsBinary, false, 13)), "020d");
  EXPECT_EQ(Hex(WsFrameHeader(kWsContinuation, true, 125)), "807d");
  EXPECT_EQ(Hex(WsFrameHeader(kWsContinuation, true, 126)), "807e007e");
  EXPECT_EQ(Hex(WsFrameHeader(kWsContinuation, true, 300)), "807e012c");
  EXPECT_EQ(Hex(WsFrameHeader(kWsContinuation, true, 65535)), "807effff");
  EXPECT_EQ(Hex(WsFrameHeader(kWsContinuation, true, 65536)), "807f0000000000010000");
  EXPECT_EQ(Hex(WsFrameHeader(kWsText, true, 5)), "8105");
}

TEST(MessageData, HeaderIsOpcodeSubscriptionAndTimeLittleEndian) {
  const auto header = protocol::MessageDataHeader(0x04030201, 0x0807060504030201ull);
  EXPECT_EQ(Hex(std::string(header.begin(), header.end())), "01010203040102030405060708");
  const auto real_time = protocol::MessageDataHeader(7, 1'700'000'000'000'000'000ull);
  EXPECT_EQ(Hex(std::string(real_time.begin(), real_time.end())),
            "01070000000000"
            "2a36fe9c9717");
}

TEST(ServiceCall, ResponseBytes) {
  EXPECT_EQ(Hex(protocol::ServiceCallResponse(1, 2, "json", "{}")),
            "03"
            "01000000"
            "02000000"
            "04000000"
            "6a736f6e"
            "7b7d");
}

TEST(ServiceCall, ParsesARequest) {
  const std::string bytes("\x02\x05\x00\x00\x00\x09\x00\x00\x00\x04\x00\x00\x00json{\"a\":1}", 24);
  const auto request = protocol::ParseServiceCallRequest(bytes);
  ASSERT_TRUE(request);
  EXPECT_EQ(request->service_id, 5u);
  EXPECT_EQ(request->call_id, 9u);
  EXPECT_EQ(request->encoding, "json");
  EXPECT_EQ(request->payload, "{\"a\":1}");
}

TEST(ServiceCall, RefusesMalformedRequests) {
  EXPECT_FALSE(protocol::ParseServiceCallRequest(""));
  EXPECT_FALSE(protocol::ParseServiceCallRequest(std::string("\x02\x01\x00\x00", 4)));
  // Wrong opcode.
  EXPECT_FALSE(protocol::ParseServiceCallRequest(std::string(13, '\x01')));
  // Encoding longer than what follows.
  EXPECT_FALSE(protocol::ParseServiceCallRequest(
      std::string("\x02\x01\x00\x00\x00\x01\x00\x00\x00\x09\x00\x00\x00json", 17)));
}

TEST(ServerJson, ServerInfo) {
  EXPECT_EQ(protocol::ServerInfo("robot-edge", "123"),
            R"({"op":"serverInfo","name":"robot-edge","capabilities":["services"],)"
            R"("supportedEncodings":["json"],"metadata":{},"sessionId":"123"})");
}

TEST(ServerJson, AdvertiseCarriesTheSchemaInBase64) {
  ChannelSpec spec;
  spec.topic = "/joint_state";
  spec.schema_name = "edge.JointState";
  spec.schema = "foo";
  const std::string object = protocol::ChannelObject(3, spec);
  EXPECT_EQ(object,
            R"({"id":3,"topic":"/joint_state","encoding":"protobuf",)"
            R"("schemaName":"edge.JointState","schema":"Zm9v","schemaEncoding":"protobuf"})");
  EXPECT_EQ(protocol::Advertise({object, object}),
            R"({"op":"advertise","channels":[)" + object + "," + object + "]}");
  EXPECT_EQ(protocol::Advertise({}), R"({"op":"advertise","channels":[]})");
  EXPECT_EQ(protocol::Unadvertise({1, 2}), R"({"op":"unadvertise","channelIds":[1,2]})");
}

TEST(ServerJson, ServicesStatusAndFailure) {
  ServiceSpec spec{"/robot_edge/damp", "robot_edge/Damp", "{}", "", true};
  EXPECT_EQ(protocol::ServiceObject(1, spec),
            R"({"id":1,"name":"/robot_edge/damp","type":"robot_edge/Damp",)"
            R"("request":{"encoding":"json","schemaName":"robot_edge/Damp_Request",)"
            R"("schemaEncoding":"jsonschema","schema":"{}"},)"
            R"("response":{"encoding":"json","schemaName":"robot_edge/Damp_Response",)"
            R"("schemaEncoding":"jsonschema","schema":""},)"
            R"("requestSchema":"{}","responseSchema":""})");
  EXPECT_EQ(protocol::Status(protocol::StatusLevel::kWarning, "a \"b\""),
            R"({"op":"status","level":1,"message":"a \"b\""})");
  EXPECT_EQ(protocol::ServiceCallFailure(1, 7, "no"),
            R"({"op":"serviceCallFailure","serviceId":1,"callId":7,"message":"no"})");
}

TEST(ClientText, Subscribe) {
  const auto request = protocol::ParseClientText(
      R"({"op":"subscribe","subscriptions":[{"id":0,"channelId":3},{"id":1,"channelId":5}]})");
  ASSERT_EQ(request.kind, protocol::ClientRequest::Kind::kSubscribe);
  ASSERT_EQ(request.subscriptions.size(), 2u);
  EXPECT_EQ(request.subscriptions[0].id, 0u);
  EXPECT_EQ(request.subscriptions[0].channel_id, 3u);
  EXPECT_EQ(request.subscriptions[1].id, 1u);
  EXPECT_EQ(request.subscriptions[1].channel_id, 5u);
}

TEST(ClientText, Unsubscribe) {
  const auto request =
      protocol::ParseClientText(R"({"op":"unsubscribe","subscriptionIds":[0, 4294967295]})");
  ASSERT_EQ(request.kind, protocol::ClientRequest::Kind::kUnsubscribe);
  EXPECT_EQ(request.subscription_ids, (std::vector<std::uint32_t>{0, 4294967295u}));
}

TEST(ClientText, OtherOpsAreUnsupportedNotInvalid) {
  const auto request = protocol::ParseClientText(R"({"op":"getParameters","parameterNames":[]})");
  EXPECT_EQ(request.kind, protocol::ClientRequest::Kind::kUnsupported);
  EXPECT_EQ(request.op, "getParameters");
}

TEST(ClientText, MalformedMessagesSayWhy) {
  using Kind = protocol::ClientRequest::Kind;
  const char* bad[] = {
      "not json",
      "[1,2]",
      R"({"noop":1})",
      R"({"op":5})",
      R"({"op":"subscribe"})",
      R"({"op":"subscribe","subscriptions":[{"id":-1,"channelId":1}]})",
      R"({"op":"subscribe","subscriptions":[{"id":1.5,"channelId":1}]})",
      R"({"op":"subscribe","subscriptions":[{"id":1}]})",
      R"({"op":"subscribe","subscriptions":[{"id":1,"channelId":4294967296}]})",
      R"({"op":"unsubscribe","subscriptionIds":["a"]})",
  };
  for (const char* text : bad) {
    const auto request = protocol::ParseClientText(text);
    EXPECT_EQ(request.kind, Kind::kInvalid) << text;
    EXPECT_FALSE(request.error.empty()) << text;
  }
}

}  // namespace
}  // namespace robot_edge::live
