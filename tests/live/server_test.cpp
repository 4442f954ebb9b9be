// LiveServer over real sockets (loopback, ephemeral ports), seen by the raw test client: start-up
// refusals, tokens, the protocol's exchanges with the exact bytes of a messageData, services and
// the operator token, HTTP documents and files, and Stop.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "live/live_server.hpp"
#include "live/protocol.hpp"
#include "ws_client.hpp"

namespace robot_edge::live {
namespace {

using namespace std::chrono_literals;
using test::HttpGet;
using test::WsClient;

LiveOptions Loopback() {
  LiveOptions options;
  options.port = 0;
  return options;
}

ChannelSpec Channel(std::string topic) {
  ChannelSpec spec;
  spec.topic = std::move(topic);
  spec.schema_name = "edge.JointState";
  spec.schema = "schema bytes";
  return spec;
}

// Binary serviceCallRequest with a JSON payload.
std::string CallRequest(std::uint32_t service, std::uint32_t call, std::string_view payload,
                        std::string_view encoding = "json") {
  std::string bytes(1, '\x02');
  for (const std::uint32_t v : {service, call, static_cast<std::uint32_t>(encoding.size())}) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>(v >> (8 * i) & 0xFF));
  }
  return bytes + std::string(encoding) + std::string(payload);
}

// Subscribes and waits until the server has taken it (a status would come back otherwise).
void Subscribe(WsClient& client, std::uint32_t id, std::uint32_t channel) {
  client.SendText(R"({"op":"subscribe","subscriptions":[{"id":)" + std::to_string(id) +
                  R"(,"channelId":)" + std::to_string(channel) + "}]}");
}

// Publishes every 2 ms until `client` gets a binary message (subscriptions take effect on the
// live thread, a little after the client sent them).
std::optional<test::WsMessage> PublishUntilReceived(LiveServer& server, std::uint32_t channel,
                                                    WsClient& client, std::string_view payload) {
  for (int i = 0; i < 500; ++i) {
    server.Publish(channel, 1'000 + i, payload);
    if (auto message = client.NextBinary(2ms)) return message;
  }
  return std::nullopt;
}

TEST(LiveServerStart, RefusesNonLoopbackWithoutToken) {
  LiveOptions options = Loopback();
  options.address = "0.0.0.0";
  try {
    LiveServer server(options);
    FAIL() << "started";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("anyone on the network would watch the robot"),
              std::string::npos);
  }
  options.token = "secret";
  EXPECT_NO_THROW(LiveServer{options});
}

TEST(LiveServerStart, RefusesABadAddressAndAPortInUse) {
  LiveOptions options = Loopback();
  options.address = "127.0.0.300";
  EXPECT_THROW(LiveServer{options}, std::invalid_argument);
  LiveServer first(Loopback());
  options = Loopback();
  options.port = first.port();
  try {
    LiveServer second(options);
    FAIL() << "two servers on one port";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(
        std::string(e.what()).find("cannot listen on 127.0.0.1:" + std::to_string(first.port())),
        std::string::npos)
        << e.what();
  }
}

TEST(LiveServerTokens, UpgradeNeedsTheTokenAndTheSubprotocol) {
  LiveOptions options = Loopback();
  options.token = "s3cret";
  LiveServer server(options);
  server.Start();
  EXPECT_EQ(WsClient(server.port(), "/").status(), 401);
  EXPECT_EQ(WsClient(server.port(), "/?token=wrong").status(), 401);
  EXPECT_EQ(WsClient(server.port(), "/?token=s3cret", 0, "").status(), 400);
  WsClient client(server.port(), "/?token=s3cret");
  EXPECT_EQ(client.status(), 101);
  EXPECT_NE(client.handshake().head.find("Sec-WebSocket-Protocol: foxglove.websocket.v1"),
            std::string::npos);
  EXPECT_EQ(server.stats().refused, 2u);
}

TEST(LiveServerProtocol, ServerInfoThenAdvertiseThenServices) {
  LiveServer server(Loopback());
  const std::uint32_t id = server.AddChannel(Channel("/joint_state"));
  server.AddService({"/robot_edge/damp", "robot_edge/Damp", "", "", true}, [](std::string_view) {
    return ServiceReply{true, "{}"};
  });
  server.Start();
  WsClient client(server.port(), "/");
  const auto first = client.Next();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->data.rfind(R"({"op":"serverInfo","name":"robot-edge")", 0), 0u) << first->data;
  const auto advertise = client.Next();
  ASSERT_TRUE(advertise);
  EXPECT_EQ(advertise->data,
            protocol::Advertise({protocol::ChannelObject(id, Channel("/joint_state"))}));
  const auto services = client.NextOp("advertiseServices");
  ASSERT_TRUE(services);
  EXPECT_NE(services->find(R"("name":"/robot_edge/damp")"), std::string::npos);
}

TEST(LiveServerProtocol, MessageDataIsTheHeaderThenThePayloadInTwoFrames) {
  LiveServer server(Loopback());
  const std::uint32_t channel = server.AddChannel(Channel("/joint_state"));
  server.Start();
  WsClient client(server.port(), "/");
  ASSERT_TRUE(client.NextOp("advertise"));
  Subscribe(client, 42, channel);
  const auto message = PublishUntilReceived(server, channel, client, "payload");
  ASSERT_TRUE(message);
  EXPECT_EQ(message->frames, 2);  // this subscriber's header, then the shared payload
  ASSERT_EQ(message->data.size(), 13u + 7u);
  EXPECT_EQ(message->data.substr(0, 5), std::string("\x01\x2a\x00\x00\x00", 5));
  EXPECT_EQ(message->data.substr(13), "payload");
  EXPECT_GE(server.stats().messages_sent, 1u);

  // A larger payload (16-bit length) and the exact log time.
  const std::string big(1000, 'x');
  server.Publish(channel, 0x0102030405060708ull, big);
  auto second = client.NextBinary();
  while (second && second->data.size() != 13 + big.size()) {  // earlier small ones first
    second = client.NextBinary();
  }
  ASSERT_TRUE(second);
  EXPECT_EQ(second->data.substr(5, 8), std::string("\x08\x07\x06\x05\x04\x03\x02\x01", 8));
  EXPECT_EQ(second->data.substr(13), big);
}

TEST(LiveServerProtocol, UnsubscribeStopsTheStreamAndMistakesGetAStatus) {
  LiveServer server(Loopback());
  const std::uint32_t channel = server.AddChannel(Channel("/a"));
  server.Start();
  WsClient client(server.port(), "/");
  ASSERT_TRUE(client.NextOp("advertise"));
  Subscribe(client, 1, channel);
  ASSERT_TRUE(PublishUntilReceived(server, channel, client, "x"));
  client.SendText(R"({"op":"unsubscribe","subscriptionIds":[1]})");
  Subscribe(client, 2, 99);  // no such channel; its status also says the unsubscribe is done
  const auto status = client.NextOp("status");
  ASSERT_TRUE(status);
  EXPECT_NE(status->find("no channel 99"), std::string::npos) << *status;
  server.Publish(channel, 1, "y");
  EXPECT_FALSE(client.NextBinary(200ms));

  client.SendText(R"({"op":"getParameters","parameterNames":[]})");
  const auto unsupported = client.NextOp("status");
  ASSERT_TRUE(unsupported);
  EXPECT_NE(unsupported->find("not supported"), std::string::npos);
  client.SendText("{nope");
  EXPECT_TRUE(client.NextOp("status"));
}

TEST(LiveServerProtocol, ChannelsAddedAndRemovedLaterAreAdvertised) {
  LiveServer server(Loopback());
  server.Start();
  WsClient client(server.port(), "/");
  const auto empty = client.NextOp("advertise");
  ASSERT_TRUE(empty);
  EXPECT_EQ(*empty, R"({"op":"advertise","channels":[]})");
  const std::uint32_t id = server.AddChannel(Channel("/events"));
  const auto added = client.NextOp("advertise");
  ASSERT_TRUE(added);
  EXPECT_NE(added->find(R"("topic":"/events")"), std::string::npos);
  server.RemoveChannel(id);
  const auto removed = client.NextOp("unadvertise");
  ASSERT_TRUE(removed);
  EXPECT_EQ(*removed, R"({"op":"unadvertise","channelIds":[)" + std::to_string(id) + "]}");
}

TEST(LiveServerProtocol, NobodySubscribedMeansNothingSent) {
  LiveServer server(Loopback());
  const std::uint32_t channel = server.AddChannel(Channel("/a"));
  server.Start();
  for (int i = 0; i < 1000; ++i) server.Publish(channel, i, "x");
  server.Publish(0, 0, "x");  // no such channels: ignored
  server.Publish(kMaxChannels + 1, 0, "x");
  EXPECT_EQ(server.stats().messages_sent, 0u);
}

// Times this process's thread named `name` has been switched out so far (it slept or was
// preempted): /proc/self/task/*/status. -1 when no thread has that name.
long SwitchesOf(const std::string& name) {
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string line;
    if (!std::getline(comm, line) || line != name) continue;
    std::ifstream status(task.path() / "status");
    long switches = 0;
    while (std::getline(status, line)) {
      if (line.find("ctxt_switches:") != std::string::npos) {
        switches += std::stol(line.substr(line.find(':') + 1));
      }
    }
    return switches;
  }
  return -1;
}

// Switches of the live thread over 300 ms: with a viewer it wakes every kDrainPeriod (4 ms).
long LiveThreadWakeUps() {
  const long before = SwitchesOf("re-live");
  std::this_thread::sleep_for(300ms);
  return before < 0 ? -1 : SwitchesOf("re-live") - before;
}

TEST(LiveServerIdle, TheLiveThreadSleepsWhileNoViewerIsConnected) {
  LiveServer server(Loopback());
  const std::uint32_t channel = server.AddChannel(Channel("/a"));
  server.Start();
  const long idle = LiveThreadWakeUps();
  EXPECT_GE(idle, 0) << "no thread named re-live";
  EXPECT_LT(idle, 10);
  {
    WsClient viewer(server.port(), "/");
    ASSERT_TRUE(viewer.NextOp("advertise"));
    Subscribe(viewer, 1, channel);
    ASSERT_TRUE(PublishUntilReceived(server, channel, viewer, "x"));
    EXPECT_GE(LiveThreadWakeUps(), 20);  // draining every 4 ms: ~75
  }
  for (int i = 0; i < 200 && server.stats().clients != 0; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(server.stats().clients, 0u);
  const long after = LiveThreadWakeUps();  // the last viewer gone: asleep again
  EXPECT_GE(after, 0);
  EXPECT_LT(after, 10);
}

class LiveServerServices : public ::testing::Test {
 protected:
  void SetUp() override {
    LiveOptions options = Loopback();
    options.operator_token = "op-token";
    server_ = std::make_unique<LiveServer>(options);
    server_->AddService({"/robot_edge/damp", "robot_edge/Damp", "", "", true},
                        [this](std::string_view request) {
                          ++calls_;
                          last_request_ = std::string(request);
                          return ServiceReply{true, R"({"accepted":true})"};
                        });
    server_->AddService({"/robot_edge/ping", "robot_edge/Ping", "", "", false},
                        [](std::string_view) {
                          return ServiceReply{false, "not today"};
                        });
    server_->Start();
  }
  std::unique_ptr<LiveServer> server_;
  std::atomic<int> calls_{0};
  std::string last_request_;
};

TEST_F(LiveServerServices, ViewersAreToldWhyTheyMayNotCallOperatorServices) {
  WsClient viewer(server_->port(), "/");
  ASSERT_TRUE(viewer.NextOp("advertiseServices"));
  viewer.SendBinary(CallRequest(1, 7, "{}"));
  const auto failure = viewer.NextOp("serviceCallFailure");
  ASSERT_TRUE(failure);
  EXPECT_NE(failure->find(R"("serviceId":1,"callId":7)"), std::string::npos);
  EXPECT_NE(failure->find("connect with ?operator_token="), std::string::npos) << *failure;

  WsClient wrong(server_->port(), "/?operator_token=guess");
  ASSERT_TRUE(wrong.NextOp("status"));  // told at once that its operator token is wrong
  wrong.SendBinary(CallRequest(1, 8, "{}"));
  const auto wrong_failure = wrong.NextOp("serviceCallFailure");
  ASSERT_TRUE(wrong_failure);
  EXPECT_NE(wrong_failure->find("is wrong"), std::string::npos) << *wrong_failure;
  EXPECT_EQ(calls_, 0);
}

TEST_F(LiveServerServices, OperatorsCallAndGetTheResponse) {
  WsClient op(server_->port(), "/?operator_token=op-token");
  ASSERT_TRUE(op.NextOp("advertiseServices"));
  op.SendBinary(CallRequest(1, 9, R"({"why":"test"})"));
  const auto response = op.NextBinary();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->data, protocol::ServiceCallResponse(1, 9, "json", R"({"accepted":true})"));
  EXPECT_EQ(calls_, 1);
  EXPECT_EQ(last_request_, R"({"why":"test"})");
}

TEST_F(LiveServerServices, FailuresUnknownServicesAndEncodings) {
  WsClient op(server_->port(), "/?operator_token=op-token");
  ASSERT_TRUE(op.NextOp("advertiseServices"));
  op.SendBinary(CallRequest(2, 1, "{}"));  // not operator-only; its handler says no
  auto failure = op.NextOp("serviceCallFailure");
  ASSERT_TRUE(failure);
  EXPECT_NE(failure->find(R"("message":"not today")"), std::string::npos);
  op.SendBinary(CallRequest(5, 2, "{}"));
  failure = op.NextOp("serviceCallFailure");
  ASSERT_TRUE(failure);
  EXPECT_NE(failure->find("no service 5"), std::string::npos);
  op.SendBinary(CallRequest(1, 3, "x", "cbor"));
  failure = op.NextOp("serviceCallFailure");
  ASSERT_TRUE(failure);
  EXPECT_NE(failure->find("use json"), std::string::npos);
  EXPECT_EQ(calls_, 0);
  EXPECT_EQ(server_->stats().service_calls, 3u);
}

TEST(LiveServerOperator, WithoutAnOperatorTokenNobodyMayCall) {
  LiveServer server(Loopback());
  server.AddService({"/robot_edge/damp", "robot_edge/Damp", "", "", true}, [](std::string_view) {
    return ServiceReply{true, "{}"};
  });
  server.Start();
  WsClient client(server.port(), "/?operator_token=");
  ASSERT_TRUE(client.NextOp("advertiseServices"));
  client.SendBinary(CallRequest(1, 1, "{}"));
  const auto failure = client.NextOp("serviceCallFailure");
  ASSERT_TRUE(failure);
  EXPECT_NE(failure->find("has no operator token"), std::string::npos) << *failure;
}

class LiveServerHttp : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("live_http_" + std::to_string(::getpid()));
    std::filesystem::create_directories(root_);
    std::ofstream(root_ / "index.html") << "<!doctype html><title>live</title>";
    std::ofstream(root_ / "app.js") << "export const a = 1;";
    LiveOptions options = Loopback();
    options.token = "tok";
    options.web_root = root_.string();
    server_ = std::make_unique<LiveServer>(options);
    server_->SetDocument("/robot.json", "application/json", R"({"name":"r"})");
    server_->Start();
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(root_);
  }
  std::filesystem::path root_;
  std::unique_ptr<LiveServer> server_;
};

TEST_F(LiveServerHttp, TokenInTheQuerySetsTheCookieTheModulesLoadWith) {
  const auto page = HttpGet(server_->port(), "/?token=tok");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.body, "<!doctype html><title>live</title>");
  EXPECT_NE(page.head.find("Set-Cookie: robot_edge_live_token=tok; Path=/; HttpOnly"),
            std::string::npos)
      << page.head;
  EXPECT_NE(page.head.find("Content-Security-Policy: default-src 'self'"), std::string::npos);
  EXPECT_NE(page.head.find("Content-Type: text/html"), std::string::npos);

  EXPECT_EQ(HttpGet(server_->port(), "/app.js").status, 401);
  const auto module = HttpGet(server_->port(), "/app.js", "Cookie: robot_edge_live_token=tok\r\n");
  EXPECT_EQ(module.status, 200);
  EXPECT_NE(module.head.find("Content-Type: text/javascript"), std::string::npos);
  EXPECT_EQ(module.body, "export const a = 1;");
}

TEST_F(LiveServerHttp, DocumentsAreServedAndReplaceable) {
  auto document = HttpGet(server_->port(), "/robot.json?token=tok");
  EXPECT_EQ(document.status, 200);
  EXPECT_EQ(document.body, R"({"name":"r"})");
  server_->SetDocument("/robot.json", "application/json", R"({"name":"s"})");
  for (int i = 0; i < 100 && document.body != R"({"name":"s"})"; ++i) {
    document = HttpGet(server_->port(), "/robot.json?token=tok");
  }
  EXPECT_EQ(document.body, R"({"name":"s"})");
  EXPECT_EQ(HttpGet(server_->port(), "/missing?token=tok").status, 404);
  EXPECT_EQ(HttpGet(server_->port(), "/robot.json?token=bad").status, 401);
  EXPECT_NE(HttpGet(server_->port(), "/robot.json?token=bad").body.find("token"),
            std::string::npos);
}

TEST(LiveServerStop, ClosesEveryConnection) {
  auto server = std::make_unique<LiveServer>(Loopback());
  server->Start();
  WsClient a(server->port(), "/");
  WsClient b(server->port(), "/");
  ASSERT_TRUE(a.NextOp("advertise"));
  ASSERT_TRUE(b.NextOp("advertise"));
  EXPECT_EQ(server->stats().clients, 2u);
  const auto start = std::chrono::steady_clock::now();
  server->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_TRUE(a.WaitClosed(2s));
  EXPECT_TRUE(b.WaitClosed(2s));
  EXPECT_EQ(server->stats().clients, 0u);
}

}  // namespace
}  // namespace robot_edge::live
