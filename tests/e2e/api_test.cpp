// End to end on vcan: the client API — controllers, resuming events, hostile clients, many
// clients at once, Hello refusals — with the control loop checked to stay on time.
#include <gtest/gtest.h>

#include "harness.hpp"
#include "proto/framing.hpp"

namespace robot_edge::e2e {
namespace {

std::optional<edge::ControllerEvent> NextControllerEvent(client::Client& c, Millis timeout) {
  const auto e = WaitEvent(
      c, [](const auto& msg) { return msg.has_controller(); }, timeout);
  if (!e) return std::nullopt;
  return e->controller();
}

// robot-edge's part of the next diagnostics (edge_api.proto's DiagnosticsExtension).
edge::DiagnosticsExtension NextDiagnostics(client::Client& observer) {
  const auto d = WaitDiagnostics(observer, 3s);
  EXPECT_TRUE(d);
  return d ? d->diagnostics_extension() : edge::DiagnosticsExtension();
}

// The loop's rate over a whole second that starts now (the second diagnostics from now).
float LoopRate(client::Client& observer) {
  NextDiagnostics(observer);
  return NextDiagnostics(observer).loop_rate_hz();
}

// Stands the robot and returns the loop rate measured while standing.
float StandAndMeasure(Robot& robot, client::Client& cloud, client::Client& observer) {
  EXPECT_TRUE(WaitTelemetry(
      cloud, [](const auto& msg) { return msg.fw_age_ms() < 100; }, 10s));
  EXPECT_TRUE(Command(cloud, Mode(edge::MODE_STAND)).accepted());
  (void)robot;
  return LoopRate(observer);
}

// The loop kept serving the motors through whatever happened since StandAndMeasure(): the robot
// is still standing with no alert (a loop held up for longer than the motor reply timeout would
// have timed its motors out and DAMPed), and it still ticks. Its exact rate is not judged here:
// under user-mode-linux on a shared host it swings by a third on its own; bench/ measures it.
void ExpectStillOnTime(client::Client& cloud, client::Client& observer, float baseline_hz) {
  const auto t = WaitTelemetry(
      cloud, [](const auto&) { return true; }, 3s);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->fw_mode(), edge::FW_MODE_STAND);
  EXPECT_EQ(t->active_alerts_size(), 0);
  const float rate = LoopRate(observer);
  testing::Test::RecordProperty("loop_rate_before_hz", std::to_string(baseline_hz));
  testing::Test::RecordProperty("loop_rate_after_hz", std::to_string(rate));
  EXPECT_GT(rate, 100.0f) << "the loop is stalling (it ran at " << baseline_hz << " Hz before)";
}

TEST(Controllers, AcquireOverrideAndDisconnect) {
  Robot robot;
  auto observer = robot.Connect("");
  auto cloud = robot.Connect("cloud");
  ASSERT_TRUE(Command(cloud, Mode(edge::MODE_DAMP)).accepted());
  auto e = NextControllerEvent(observer, 3s);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->previous(), "");
  EXPECT_EQ(e->current(), "cloud");
  EXPECT_EQ(e->reason(), "acquired");

  {
    auto ble = robot.Connect("ble");  // higher priority
    ASSERT_TRUE(Command(ble, Mode(edge::MODE_DAMP)).accepted());
    e = NextControllerEvent(observer, 3s);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->previous(), "cloud");
    EXPECT_EQ(e->current(), "ble");
    EXPECT_EQ(e->reason(), "override");
    EXPECT_EQ(Command(cloud, Mode(edge::MODE_STAND)).reason(), "not_controller");
    const auto diag = WaitEvent(
        observer, [](const auto& msg) { return msg.has_diagnostics(); }, 3s);
    ASSERT_TRUE(diag);
    EXPECT_EQ(diag->diagnostics().controller(), "ble");
    EXPECT_TRUE(diag->diagnostics().ble_connected());
    EXPECT_TRUE(diag->diagnostics().cloud_connected());
  }  // the ble client disconnects
  e = NextControllerEvent(observer, 3s);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->previous(), "ble");
  EXPECT_EQ(e->current(), "");
  EXPECT_EQ(e->reason(), "disconnect");
}

TEST(Controllers, ReleasedAfterTheIdleTimeout) {
  Robot robot({{{"controller_idle_timeout_ms: 10000", "controller_idle_timeout_ms: 500"}}, {}});
  auto observer = robot.Connect("");
  auto cloud = robot.Connect("cloud");
  ASSERT_TRUE(Command(cloud, Mode(edge::MODE_DAMP)).accepted());
  ASSERT_TRUE(NextControllerEvent(observer, 3s));
  const auto e = NextControllerEvent(observer, 3s);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->reason(), "timeout");
  EXPECT_EQ(e->previous(), "cloud");
}

TEST(Events, AReconnectingClientResumesWhatItMissedInOrder) {
  Robot robot;
  std::uint32_t last_seen = 0;
  {
    auto first = robot.Connect("");
    const auto e = WaitEvent(
        first, [](const auto&) { return true; }, 3s);  // a diagnostics
    ASSERT_TRUE(e);
    last_seen = e->sequence();
  }
  // While nobody listens: controller events and diagnostics happen.
  {
    auto cloud = robot.Connect("cloud");
    ASSERT_TRUE(Command(cloud, Mode(edge::MODE_DAMP)).accepted());
  }
  std::this_thread::sleep_for(1500ms);
  edge::Welcome welcome;
  auto back = robot.Connect("", last_seen, &welcome);
  const std::uint32_t newest = welcome.last_event_sequence();
  ASSERT_GT(newest, last_seen + 2);
  std::vector<edge::EdgeEvent> resumed;
  while (resumed.empty() || resumed.back().sequence() < newest) {
    const auto e = back.WaitEvent(3s);
    ASSERT_TRUE(e) << "missing events after "
                   << (resumed.empty() ? last_seen : resumed.back().sequence());
    resumed.push_back(*e);
  }
  for (std::size_t i = 0; i < resumed.size(); ++i) {
    EXPECT_EQ(resumed[i].sequence(), last_seen + 1 + i) << "every missed event, in order";
  }
  bool acquired = false, disconnected = false;
  for (const auto& e : resumed) {
    acquired |= e.has_controller() && e.controller().reason() == "acquired";
    disconnected |= e.has_controller() && e.controller().reason() == "disconnect";
  }
  EXPECT_TRUE(acquired);
  EXPECT_TRUE(disconnected);
}

TEST(HostileClients, GarbageAndOversizeFramesCloseOnlyThatConnection) {
  Robot robot;
  auto observer = robot.Connect("");
  auto cloud = robot.Connect("cloud");
  const float baseline = StandAndMeasure(robot, cloud, observer);

  auto garbage = client::Client::ConnectUnix(robot.api_socket(), 3s);
  garbage.SendRaw(std::string("\x05hello", 6));  // a frame that is not a ClientMessage
  try {
    while (garbage.Read(3s)) {
    }
    ADD_FAILURE() << "the connection stayed open";
  } catch (const client::ClientError& e) {
    EXPECT_NE(e.goodbye_reason().find("undecodable"), std::string::npos) << e.what();
  }

  auto oversize = robot.Connect("cloud");
  std::string prefix;
  proto::AppendVarint(proto::kMaxMessageBytes + 1, &prefix);
  oversize.SendRaw(prefix);
  try {
    while (oversize.Read(3s)) {
    }
    ADD_FAILURE() << "the connection stayed open";
  } catch (const client::ClientError& e) {
    EXPECT_NE(e.goodbye_reason().find("64 KiB"), std::string::npos) << e.what();
  }

  auto endless = client::Client::ConnectUnix(robot.api_socket(), 3s);
  endless.SendRaw(std::string(8, '\xFF'));  // a length prefix that never ends
  EXPECT_THROW(
      {
        while (endless.Read(3s)) {
        }
      },
      client::ClientError);

  auto no_hello = client::Client::ConnectUnix(robot.api_socket(), 3s);
  no_hello.Send(Mode(edge::MODE_STAND));
  try {
    while (no_hello.Read(3s)) {
    }
    ADD_FAILURE() << "a command before Hello was accepted";
  } catch (const client::ClientError& e) {
    EXPECT_NE(e.goodbye_reason().find("Hello"), std::string::npos) << e.what();
  }

  // Everyone else is unaffected.
  EXPECT_TRUE(robot.DaemonRunning());
  ExpectStillOnTime(cloud, observer, baseline);
  EXPECT_TRUE(Command(cloud, Mode(edge::MODE_DAMP)).accepted());
}

TEST(HostileClients, FiftyClientsAtOnceLeaveTheLoopOnTime) {
  Robot robot;
  auto observer = robot.Connect("");
  auto cloud = robot.Connect("cloud");
  const float baseline = StandAndMeasure(robot, cloud, observer);
  std::vector<client::Client> clients;
  for (int i = 0; i < 50; ++i) {
    clients.push_back(client::Client::ConnectUnix(robot.api_socket(), 5s));
  }
  edge::Hello hello;
  for (auto& c : clients) {
    edge::ClientMessage m;
    *m.mutable_hello() = hello;
    c.Send(m);
  }
  int telemetry = 0;
  for (auto& c : clients) telemetry += c.WaitTelemetry(5s).has_value();
  EXPECT_EQ(telemetry, 50) << "every client gets telemetry";
  ExpectStillOnTime(cloud, observer, baseline);
  // Diagnostics come once a second and the observer may read one computed before the last
  // Hellos (a busy host, seen in CI): the count must reach 52 within a few of them.
  std::uint32_t connected = 0;
  for (int i = 0; i < 5 && connected != 52u; ++i) {
    connected = NextDiagnostics(observer).connected_clients();
  }
  EXPECT_EQ(connected, 52u);
  EXPECT_TRUE(robot.DaemonRunning());
}

TEST(Hello, UnknownControllerIsRefusedWithAReason) {
  Robot robot;
  auto c = client::Client::ConnectUnix(robot.api_socket(), 3s);
  edge::Hello hello;
  hello.set_controller("phone");
  try {
    c.Hello(hello, 3s);
    FAIL() << "an unknown controller was welcomed";
  } catch (const client::ClientError& e) {
    EXPECT_EQ(e.kind(), client::ErrorKind::kRefused);
    EXPECT_NE(e.goodbye_reason().find("unknown controller 'phone'"), std::string::npos);
  }
}

// The Goodbye a TCP Hello as `role` with `token` gets ("" when welcomed).
std::string TcpRefusal(const std::string& role, const std::string& token) {
  edge::Hello hello;
  hello.set_controller(role);
  hello.set_token(token);
  auto c = client::Client::ConnectTcp("127.0.0.1", 7433, 3s);
  try {
    c.Hello(hello, 3s);
    return "";
  } catch (const client::ClientError& e) {
    return e.goodbye_reason();
  }
}

TEST(Hello, OverTcpEachControllerNeedsItsOwnToken) {
  RobotOptions options;
  options.config_edits = {{"tcp: \"\"", "tcp: \"127.0.0.1:7433\""},
                          {"access: {}", "access: {cloud: {token_file: cloud.token}}"}};
  options.files = {{"cloud.token", "s3cret-s3cret-s3cret\n"}};
  Robot robot(options);
  EXPECT_EQ(TcpRefusal("cloud", "wrong"), "invalid token for 'cloud'");
  EXPECT_EQ(TcpRefusal("cloud", ""), "'cloud' needs its token over TCP");
  EXPECT_EQ(TcpRefusal("ble", "s3cret-s3cret-s3cret"),
            "'ble' cannot connect over TCP (api.access.ble.token_file is not set)");
  EXPECT_EQ(TcpRefusal("", ""),
            "'observer' cannot connect over TCP (api.access.observer.token_file is not "
            "set)");
  EXPECT_EQ(robot.DaemonLog().find("s3cret-s3cret-s3cret"), std::string::npos)
      << "a token is never logged";
  edge::Hello hello;
  hello.set_controller("cloud");
  hello.set_token("s3cret-s3cret-s3cret");
  auto good = client::Client::ConnectTcp("127.0.0.1", 7433, 3s);
  const edge::Welcome w = good.Hello(hello, 3s);
  EXPECT_EQ(w.joint_names_size(), 25);
  EXPECT_EQ(w.joint_names(0), "L_Hip_Pitch");
  EXPECT_EQ(w.joint_names(24), "Neck_Yaw");
  EXPECT_FLOAT_EQ(w.control_rate_hz(), 500.0f);
  EXPECT_EQ(w.mode(), edge::FW_MODE_DAMP);
  EXPECT_TRUE(good.WaitTelemetry(2s));
}

TEST(Telemetry, ArrivesAtTenHertzWithEveryField) {
  Robot robot;
  auto c = robot.Connect("");
  ASSERT_TRUE(WaitTelemetry(
      c, [](const auto& msg) { return msg.fw_age_ms() < 100; }, 10s));
  std::vector<edge::EdgeTelemetry> frames;
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < 2s) {
    if (auto t = c.WaitTelemetry(500ms)) frames.push_back(*t);
  }
  EXPECT_GE(frames.size(), 16u);
  EXPECT_LE(frames.size(), 24u);
  for (std::size_t i = 1; i < frames.size(); ++i) {
    EXPECT_GT(frames[i].sequence(), frames[i - 1].sequence());
    EXPECT_GE(frames[i].timestamp_us(), frames[i - 1].timestamp_us());
  }
  const auto& t = frames.back();
  EXPECT_EQ(t.joint_pos_size(), 25);
  EXPECT_EQ(t.joint_vel_size(), 25);
  EXPECT_EQ(t.joint_current_size(), 25);
  EXPECT_EQ(t.joint_temp_size(), 25);
  EXPECT_NEAR(t.joint_temp(0), 30.0f, 1.0f) << "the simulator's ambient";
  EXPECT_EQ(t.imu_quat_size(), 4);
  EXPECT_NEAR(t.imu_quat(0), 1.0f, 1e-3);
  EXPECT_EQ(t.imu_gyro_size(), 3);
  EXPECT_EQ(t.imu_gravity_size(), 3);
  EXPECT_NEAR(t.imu_gravity(2), -1.0f, 1e-3);
  EXPECT_LT(t.fw_age_ms(), 100u);
  EXPECT_GT(t.fw_timestamp_us(), 0u);
  EXPECT_LE(t.fw_timestamp_us(), t.timestamp_us());
}

}  // namespace
}  // namespace robot_edge::e2e
