// The Client against a fake daemon on a socketpair or a temporary Unix socket: the Hello
// exchange, the Goodbye reason in every error, timeouts, framing errors, connect errors.
#include "client/client.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "client/commands.hpp"
#include "fake_daemon.hpp"

namespace robot_edge::client {
namespace {

using namespace std::chrono_literals;
using robot_edge::testing::ConnectedPair;
using robot_edge::testing::FakeDaemon;
using robot_edge::testing::FakePeer;
namespace fake = robot_edge::testing;

std::string Framed(const std::string& payload) {
  std::string out;
  proto::AppendVarint(payload.size(), &out);
  return out + payload;
}

TEST(ClientHello, SendsTheHelloAndReturnsTheWelcome) {
  auto [client, peer] = ConnectedPair();
  peer.Send(fake::Welcome(500.0f, "ble"));  // buffered: Hello() finds it after sending
  edge::Hello hello;
  hello.set_controller("cloud");
  hello.set_token("secret");
  hello.set_resume_after_event(7);
  hello.set_want_command_results(true);
  const edge::Welcome welcome = client.Hello(hello, 1s);
  EXPECT_EQ(welcome.joint_names_size(), 25);
  EXPECT_EQ(welcome.joint_names(3), "L_Knee");
  EXPECT_EQ(welcome.controller(), "ble");
  EXPECT_FLOAT_EQ(welcome.control_rate_hz(), 500.0f);

  const auto sent = peer.Read(1s);
  ASSERT_TRUE(sent && sent->has_hello());
  EXPECT_EQ(sent->hello().controller(), "cloud");
  EXPECT_EQ(sent->hello().token(), "secret");
  EXPECT_EQ(sent->hello().resume_after_event(), 7u);
  EXPECT_TRUE(sent->hello().want_command_results());
}

TEST(ClientHello, RefusalCarriesTheGoodbyeReason) {
  auto [client, peer] = ConnectedPair();
  peer.Send(fake::Goodbye("bad token"));
  peer.Close();
  try {
    client.Hello(edge::Hello(), 1s);
    FAIL() << "Hello() must throw when the daemon says Goodbye";
  } catch (const ClientError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kRefused);
    EXPECT_EQ(e.goodbye_reason(), "bad token");
    EXPECT_NE(std::string(e.what()).find("refused the connection: bad token"), std::string::npos)
        << e.what();
  }
}

TEST(ClientHello, TimesOutWithoutAWelcome) {
  auto [client, peer] = ConnectedPair();
  const auto start = std::chrono::steady_clock::now();
  try {
    client.Hello(edge::Hello(), 150ms);
    FAIL() << "Hello() must throw without a Welcome";
  } catch (const ClientError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kTimeout);
    EXPECT_NE(std::string(e.what()).find("no Welcome"), std::string::npos) << e.what();
  }
  EXPECT_GE(std::chrono::steady_clock::now() - start, 150ms);
}

TEST(ClientHello, AnythingButAWelcomeFirstIsAProtocolError) {
  auto [client, peer] = ConnectedPair();
  peer.Send(fake::Telemetry(1, edge::CONTROL_MODE_DAMP, fake::TestPose()));
  try {
    client.Hello(edge::Hello(), 1s);
    FAIL();
  } catch (const ClientError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kProtocol);
    EXPECT_NE(std::string(e.what()).find("telemetry before its Welcome"), std::string::npos);
  }
}

TEST(ClientRead, ReturnsNulloptAfterTheTimeout) {
  auto [client, peer] = ConnectedPair();
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(client.Read(100ms).has_value());
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, 100ms);
  EXPECT_LT(elapsed, 1s);
  EXPECT_FALSE(client.Read(0ms).has_value());  // 0: only what already arrived
}

TEST(ClientRead, ReassemblesAMessageSplitAcrossWritesAndKeepsOrder) {
  auto [client, peer] = ConnectedPair();
  std::string first, second;
  proto::AppendDelimited(fake::Telemetry(1, edge::CONTROL_MODE_STAND, fake::TestPose()), &first);
  proto::AppendDelimited(fake::Result(9, true), &second);
  peer.SendRaw(first.substr(0, 7));
  EXPECT_FALSE(client.Read(20ms).has_value());  // half a message is not a message
  // nor a reason to skip poll(): the uplink and the live view then spun until the rest arrived
  EXPECT_FALSE(client.HasBufferedMessage());
  peer.SendRaw(first.substr(7) + second);
  const auto a = client.Read(1s);
  ASSERT_TRUE(a && a->has_telemetry());
  EXPECT_EQ(a->telemetry().sequence(), 1u);
  EXPECT_TRUE(client.HasBufferedMessage());  // the second arrived in the same read
  const auto b = client.Read(0ms);
  ASSERT_TRUE(b && b->has_command_result());
  EXPECT_EQ(b->command_result().sequence(), 9u);
}

TEST(ClientRead, CloseWithoutGoodbyeIsKClosed) {
  auto [client, peer] = ConnectedPair();
  peer.Close();
  try {
    client.Read(1s);
    FAIL();
  } catch (const ClientError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kClosed);
    EXPECT_EQ(e.goodbye_reason(), "");
    EXPECT_NE(std::string(e.what()).find("closed the connection"), std::string::npos);
  }
}

TEST(ClientRead, GoodbyeReasonSurfacesAndTheErrorIsSticky) {
  auto [client, peer] = ConnectedPair();
  peer.Send(fake::Telemetry(1, edge::CONTROL_MODE_STAND, fake::TestPose()));
  peer.Send(fake::Goodbye("too slow"));
  peer.Close();
  EXPECT_TRUE(client.Read(1s).has_value());  // messages before the Goodbye still arrive
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      client.Read(1s);
      FAIL() << "attempt " << attempt;
    } catch (const ClientError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kRefused);
      EXPECT_EQ(e.goodbye_reason(), "too slow");
      EXPECT_NE(std::string(e.what()).find("too slow"), std::string::npos);
    }
  }
}

TEST(ClientRead, OversizeFrameIsAClearProtocolError) {
  auto [client, peer] = ConnectedPair();
  std::string prefix;
  proto::AppendVarint(70000, &prefix);
  peer.SendRaw(prefix + "xyz");
  try {
    client.Read(1s);
    FAIL();
  } catch (const ClientError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kProtocol);
    const std::string what = e.what();
    EXPECT_NE(what.find("70000 bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("64 KiB"), std::string::npos) << what;
  }
}

TEST(ClientRead, UndecodableFrameIsAProtocolError) {
  auto [client, peer] = ConnectedPair();
  peer.SendRaw(Framed("\xff\xff\xff\xff"));
  try {
    client.Read(1s);
    FAIL();
  } catch (const ClientError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kProtocol);
    EXPECT_NE(std::string(e.what()).find("undecodable"), std::string::npos) << e.what();
  }
}

TEST(ClientSend, FramesTheCommandAsAClientMessage) {
  auto [client, peer] = ConnectedPair();
  auto command = MakeVelocity(0.5f, 0.0f, -0.25f);
  Sequencer sequencer(40);
  sequencer.Stamp(&command, 123456);
  client.Send(command);
  const auto sent = peer.Read(1s);
  ASSERT_TRUE(sent && sent->has_command());
  EXPECT_EQ(sent->command().sequence(), 40u);
  EXPECT_EQ(sent->command().timestamp_us(), 123456u);
  EXPECT_FLOAT_EQ(sent->command().velocity().vyaw(), -0.25f);
}

TEST(ClientSend, SendRawPassesBytesUnchanged) {
  auto [client, peer] = ConnectedPair();
  const std::string garbage("\x80\x80\x80\x80\x80\x01garbage", 13);  // a 6-byte "varint"
  client.SendRaw(garbage);
  EXPECT_EQ(peer.ReadRaw(garbage.size(), 1s), garbage);
}

TEST(ClientSend, AfterAGoodbyeAndCloseReportsTheReason) {
  auto [client, peer] = ConnectedPair();
  peer.Send(fake::Goodbye("shutting down"));
  peer.Close();
  try {
    // The first send may still succeed (the kernel takes it); one of a few must fail.
    for (int i = 0; i < 10; ++i) client.Send(MakeMode(edge::MODE_DAMP));
    FAIL() << "sending to a closed connection must throw";
  } catch (const ClientError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kRefused) << e.what();
    EXPECT_EQ(e.goodbye_reason(), "shutting down");
  }
}

TEST(ClientWait, CommandResultSkipsOtherMessagesAndOtherSequences) {
  auto [client, peer] = ConnectedPair();
  peer.Send(fake::Telemetry(1, edge::CONTROL_MODE_STAND, fake::TestPose()));
  peer.Send(fake::Result(4, true));
  peer.Send(fake::Diagnostics(3));
  peer.Send(fake::Result(5, false, "velocity_in_damp"));
  const auto result = client.WaitCommandResult(5, 1s);
  ASSERT_TRUE(result.has_value());
  EXPECT_FALSE(result->accepted());
  EXPECT_EQ(result->reason(), "velocity_in_damp");
  EXPECT_FALSE(client.WaitCommandResult(6, 50ms).has_value());
}

TEST(ClientWait, TelemetryAndEventSkipOtherKinds) {
  auto [client, peer] = ConnectedPair();
  peer.Send(fake::Result(1, true));
  peer.Send(fake::Diagnostics(8));
  peer.Send(fake::Telemetry(2, edge::CONTROL_MODE_DAMP, fake::TestPose()));
  const auto telemetry = client.WaitTelemetry(1s);
  ASSERT_TRUE(telemetry.has_value());
  EXPECT_EQ(telemetry->sequence(), 2u);
  EXPECT_FALSE(client.WaitEvent(50ms).has_value());  // the event came before: discarded
}

TEST(ClientConnect, MissingSocketSaysWhatToCheck) {
  try {
    Client::ConnectUnix("/nonexistent/robot-edge/api.sock", 1s);
    FAIL();
  } catch (const ClientError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kConnect);
    EXPECT_EQ(std::string(e.what()),
              "cannot connect to /nonexistent/robot-edge/api.sock: No such file or directory — "
              "is robot-edged running?");
  }
}

TEST(ClientConnect, PathTooLongForAUnixSocket) {
  try {
    Client::ConnectUnix("/tmp/" + std::string(200, 'x'), 1s);
    FAIL();
  } catch (const ClientError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kConnect);
    EXPECT_NE(std::string(e.what()).find("1..107 characters"), std::string::npos) << e.what();
  }
}

TEST(ClientConnect, UnixSocketHelloRoundTrip) {
  FakeDaemon daemon([](FakePeer& peer) {
    const auto hello = peer.Read(2s);
    ASSERT_TRUE(hello && hello->has_hello());
    EXPECT_EQ(hello->hello().controller(), "ble");
    peer.Send(fake::Welcome());
  });
  Client client = Client::ConnectUnix(daemon.path(), 1s);
  EXPECT_EQ(client.peer(), daemon.path());
  edge::Hello hello;
  hello.set_controller("ble");
  EXPECT_EQ(client.Hello(hello, 2s).robot_name(), "asimov-sim");
}

TEST(ClientConnect, TcpRoundTripAndRefusedPort) {
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(::listen(listener, 1), 0);
  socklen_t size = sizeof(address);
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &size);
  const std::uint16_t port = ntohs(address.sin_port);
  {
    Client client = Client::ConnectTcp("127.0.0.1", port, 1s);
    EXPECT_EQ(client.peer(), "127.0.0.1:" + std::to_string(port));
    FakePeer peer(::accept(listener, nullptr, nullptr));
    peer.Send(fake::Result(3, true));
    const auto message = client.Read(1s);
    ASSERT_TRUE(message && message->has_command_result());
  }
  ::close(listener);  // nobody listens on the port any more
  try {
    Client::ConnectTcp("127.0.0.1", port, 1s);
    FAIL();
  } catch (const ClientError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kConnect);
    EXPECT_NE(std::string(e.what()).find("Connection refused"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace robot_edge::client
