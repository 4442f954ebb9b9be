// The API thread's hub over real sockets (a socketpair per client), with the control thread's
// side played by the test: what clients get, and what happens to one that does not keep up.
#include "daemon/api/hub.hpp"

#include <gtest/gtest.h>

#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "published_view.hpp"

#include <algorithm>

#include <asio/local/stream_protocol.hpp>

#include "edge_api.pb.h"
#include "proto/framing.hpp"

namespace robot_edge::daemon {
namespace {

using namespace std::chrono_literals;

config::Config SmallBacklogConfig() {
  config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  c.api.client_backlog_kib = 16;
  c.telemetry.rate_hz = 50;  // telemetry tests see many frames quickly
  c.api.max_clients = 4;
  return c;
}

class HubTest : public testing::Test {
 protected:
  HubTest()
      : config_(SmallBacklogConfig()),
        channels_(config_, 8, 4096),
        wake_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
        access_(AccessPolicy::Load(config_, ::getuid())),
        hub_(io_, config_, &channels_, nullptr, ::dup(wake_), "test", &access_) {
    test::PublishView(&channels_);
    hub_.Start();
  }
  ~HubTest() override {
    hub_.Stop("test over");
    io_.run_for(100ms);
    ::close(wake_);
  }

  // A client on one end of a socketpair; the hub gets the other end. Returns the client's fd.
  int Connect(int receive_buffer = 0) {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    if (receive_buffer > 0) {
      ::setsockopt(fds[0], SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof(receive_buffer));
    }
    asio::local::stream_protocol::socket server(io_, asio::local::stream_protocol(), fds[1]);
    hub_.Accept(Session::Socket(std::move(server)), UnixPeer(fds[1]));
    return fds[0];
  }
  void SendHello(int fd, const std::string& controller, bool telemetry = false) {
    edge::ClientMessage m;
    m.mutable_hello()->set_controller(controller);
    m.mutable_hello()->set_no_telemetry(!telemetry);
    std::string bytes;
    proto::AppendDelimited(m, &bytes);
    ASSERT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    io_.run_for(50ms);
  }
  // Everything the hub sent on `fd` so far, decoded; *closed when the hub closed it.
  std::vector<edge::ServerMessage> Drain(int fd, bool* closed) {
    std::vector<edge::ServerMessage> out;
    proto::FrameDecoder d(1 << 20);
    char buffer[65536];
    *closed = false;
    for (;;) {
      const ssize_t n = ::recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT);
      if (n == 0) *closed = true;
      if (n <= 0) break;
      d.Feed(std::string_view(buffer, static_cast<std::size_t>(n)));
    }
    std::span<const std::uint8_t> payload;
    while (d.Next(&payload) == proto::FrameDecoder::Status::kMessage) {
      out.emplace_back().ParseFromArray(payload.data(), static_cast<int>(payload.size()));
    }
    return out;
  }
  // The control thread raising `count` alerts (each becomes an EdgeError for every client).
  void RaiseAlerts(int count) {
    for (int i = 0; i < count; ++i) {
      ControlEvent e;
      e.event.kind = sm::EventKind::kAlertRaised;
      e.event.alert.id = sm::AlertId::kMotorOvertemp;
      e.event.alert.source = static_cast<std::uint32_t>(i % 25);
      ASSERT_TRUE(channels_.events.Push(e));
    }
    const std::uint64_t one = 1;
    ASSERT_EQ(::write(wake_, &one, sizeof(one)), 8);
    io_.run_for(100ms);
  }

  config::Config config_;
  asio::io_context io_;
  ControlChannels channels_;
  int wake_;
  AccessPolicy access_;
  Hub hub_;
};

TEST_F(HubTest, WelcomesAHelloAndSendsEventsInOrder) {
  const int fd = Connect();
  SendHello(fd, "cloud");
  RaiseAlerts(3);
  bool closed = false;
  const auto messages = Drain(fd, &closed);
  EXPECT_FALSE(closed);
  ASSERT_GE(messages.size(), 4u);
  EXPECT_TRUE(messages[0].has_welcome());
  EXPECT_EQ(messages[0].welcome().joint_names_size(), 25);
  std::uint32_t last = 0;
  for (std::size_t i = 1; i < messages.size(); ++i) {
    ASSERT_TRUE(messages[i].has_event());
    EXPECT_GT(messages[i].event().sequence(), last);
    last = messages[i].event().sequence();
  }
  EXPECT_EQ(messages.back().event().error().code(), "MOTOR_OVERTEMP");
  ::close(fd);
}

TEST_F(HubTest, AClientTooSlowForTheEventsIsDisconnectedWithAReasonOthersAreNot) {
  const int slow = Connect(/*receive_buffer=*/1024);  // never reads
  const int fast = Connect();
  SendHello(slow, "");
  SendHello(fast, "");
  bool closed = false;
  std::size_t fast_events = 0;
  for (int burst = 0; burst < 40 && hub_.client_count() == 2; ++burst) {
    RaiseAlerts(100);  // ~25 KB of events per burst
    fast_events += Drain(fast, &closed).size();
  }
  io_.run_for(1500ms);  // the Goodbye cannot be written: closed after the grace period
  EXPECT_EQ(hub_.client_count(), 1u) << "the slow client is still connected";
  fast_events += Drain(fast, &closed).size();
  EXPECT_FALSE(closed) << "the fast client was disconnected too";
  EXPECT_GE(fast_events, 100u);
  Drain(slow, &closed);
  for (int i = 0; i < 100 && !closed; ++i) Drain(slow, &closed);  // read what was sent, then EOF
  EXPECT_TRUE(closed) << "the slow client's connection was not closed";
  ::close(slow);
  ::close(fast);
}

// The commands a client sends, as one write (a burst the hub decodes in one read).
void SendCommands(int fd, const std::vector<edge::CloudCommand>& commands) {
  std::string bytes;
  for (const auto& c : commands) {
    edge::ClientMessage m;
    *m.mutable_command() = c;
    proto::AppendDelimited(m, &bytes);
  }
  ASSERT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
}

// A command as a client sends it: its sequence, stamped with the wall clock now.
edge::CloudCommand ModeCommandOf(edge::Mode mode, std::uint32_t sequence) {
  edge::CloudCommand c;
  c.set_sequence(sequence);
  c.set_timestamp_us(
      static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count()));
  c.mutable_mode()->set_mode(mode);
  return c;
}

TEST_F(HubTest, ADampIsNeverDroppedWhenTheCommandPipeIsFull) {
  const int fd = Connect();
  SendHello(fd, "cloud");
  // The control thread is not running: the pipe's 8 slots fill, the 9th STAND is dropped, and
  // the DAMP after it goes to the urgent mailbox instead.
  std::vector<edge::CloudCommand> burst;
  for (std::uint32_t i = 1; i <= 9; ++i) burst.push_back(ModeCommandOf(edge::MODE_STAND, i));
  burst.push_back(ModeCommandOf(edge::MODE_DAMP, 10));
  SendCommands(fd, burst);
  io_.run_for(100ms);
  EXPECT_EQ(channels_.urgent.load() & kUrgentDamp, kUrgentDamp);
  std::size_t queued = 0;
  while (channels_.commands.Receive() != nullptr) ++queued;
  EXPECT_EQ(queued, 8u);
  ::close(fd);
}

TEST_F(HubTest, StopWalkingOnDisconnectIsNeverDroppedWhenThePipeIsFull) {
  const int fd = Connect();
  SendHello(fd, "cloud");
  std::vector<edge::CloudCommand> burst;
  for (std::uint32_t i = 1; i <= 8; ++i) burst.push_back(ModeCommandOf(edge::MODE_STAND, i));
  SendCommands(fd, burst);  // fills the pipe and makes this client the controller
  io_.run_for(100ms);
  ASSERT_EQ(channels_.urgent.load(), 0u);
  ::close(fd);  // the controller leaves: its walking must stop
  io_.run_for(100ms);
  EXPECT_EQ(channels_.urgent.load() & kUrgentStopWalking, kUrgentStopWalking);
}

void SendHelloOnly(int fd) {
  edge::ClientMessage m;
  m.mutable_hello()->set_no_telemetry(true);
  std::string bytes;
  proto::AppendDelimited(m, &bytes);
  ASSERT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
}

bool Welcomed(const std::vector<edge::ServerMessage>& messages) {
  return !messages.empty() && messages.front().has_welcome();
}

// A phone that sends DAMP and is gone at once: its socket is closed with data unread, and the
// session's pending write fails before its last bytes are read (asio completes the write before
// the read). The DAMP must still be read and applied.
TEST_F(HubTest, ADampSentJustBeforeTheClientLeftIsApplied) {
  const int fd = Connect(/*receive_buffer=*/1024);  // reads nothing: the hub's writes back up
  SendHello(fd, "cloud");
  int readable = -1, before = -2;
  for (int burst = 0; burst < 200 && readable != before; ++burst) {
    before = readable;
    RaiseAlerts(50);  // ~12 KB, under the 16 KiB backlog: what the kernel refuses waits here
    ASSERT_EQ(::ioctl(fd, FIONREAD, &readable), 0);
  }
  ASSERT_EQ(readable, before) << "the socket never filled up";
  ASSERT_EQ(hub_.client_count(), 1u);
  SendCommands(fd, {ModeCommandOf(edge::MODE_DAMP, 1)});
  ::close(fd);
  io_.run_for(200ms);
  bool damp = (channels_.urgent.load() & kUrgentDamp) != 0;
  while (const CommandSlot* slot = channels_.commands.Receive()) {
    damp |= slot->command.kind == sm::CommandKind::kMode &&
            slot->command.mode == sm::ModeRequest::kDamp;
  }
  EXPECT_TRUE(damp) << "the DAMP sent before the client left was lost";
  EXPECT_EQ(hub_.client_count(), 0u);
}

TEST_F(HubTest, ConnectionsWithoutAHelloCannotLockTheOperatorOut) {
  std::vector<int> silent;
  for (int i = 0; i < 4; ++i) silent.push_back(Connect());  // api.max_clients = 4, no Hello
  io_.run_for(50ms);
  const int operator_fd = Connect();
  SendHelloOnly(operator_fd);
  io_.run_for(100ms);
  bool closed = false;
  EXPECT_TRUE(Welcomed(Drain(operator_fd, &closed))) << "the newcomer was refused";
  EXPECT_FALSE(closed);
  const auto goodbye = Drain(silent[0], &closed);
  ASSERT_FALSE(goodbye.empty());
  EXPECT_NE(goodbye.front().goodbye().reason().find("making room"), std::string::npos);
  for (int i = 1; i < 4; ++i) {
    EXPECT_TRUE(Drain(silent[i], &closed).empty()) << i;
    EXPECT_FALSE(closed) << "only the oldest silent connection makes room, not " << i;
  }
  for (int fd : silent) ::close(fd);
  ::close(operator_fd);
}

TEST_F(HubTest, ObserversCannotLockTheOperatorOut) {
  std::vector<int> observers;
  for (int i = 0; i < 4; ++i) {  // api.max_clients = 4
    observers.push_back(Connect());
    SendHello(observers.back(), "");
  }
  io_.run_for(50ms);
  const int operator_fd = Connect();
  SendHelloOnly(operator_fd);
  io_.run_for(100ms);
  bool closed = false;
  EXPECT_TRUE(Welcomed(Drain(operator_fd, &closed))) << "the newcomer was refused";
  EXPECT_FALSE(closed);
  const auto goodbye = Drain(observers[0], &closed);
  ASSERT_FALSE(goodbye.empty());
  EXPECT_NE(goodbye.back().goodbye().reason().find("oldest observer"), std::string::npos);
  for (int i = 1; i < 4; ++i) {
    Drain(observers[i], &closed);
    EXPECT_FALSE(closed) << "only the oldest observer makes room, not " << i;
  }
  for (int fd : observers) ::close(fd);
  ::close(operator_fd);
}

TEST_F(HubTest, WhenEveryClientIsAControllerANewcomerIsRefused) {
  std::vector<int> clients;
  for (int i = 0; i < 4; ++i) {
    clients.push_back(Connect());
    SendHello(clients.back(), i % 2 == 0 ? "cloud" : "ble");
  }
  const int late = Connect();
  SendHelloOnly(late);
  io_.run_for(100ms);
  bool closed = false;
  const auto answer = Drain(late, &closed);
  ASSERT_FALSE(answer.empty());
  EXPECT_NE(answer.front().goodbye().reason().find("too many clients"), std::string::npos);
  for (int fd : clients) {
    EXPECT_TRUE(Welcomed(Drain(fd, &closed)));
    EXPECT_FALSE(closed);
  }
  for (int fd : clients) ::close(fd);
  ::close(late);
}

std::size_t CountTelemetry(const std::vector<edge::ServerMessage>& messages) {
  return static_cast<std::size_t>(std::count_if(messages.begin(), messages.end(),
                                                [](const auto& m) { return m.has_telemetry(); }));
}

TEST_F(HubTest, AClientThatStopsReadingGetsFreshTelemetryNotABacklogOfStaleFrames) {
  // The control thread has ticked once: telemetry flows.
  channels_.snapshots.back().tick_us = 1;
  channels_.snapshots.Publish();
  const int paused = Connect();  // reads nothing for a while
  const int reader = Connect();
  SendHello(paused, "", /*telemetry=*/true);
  SendHello(reader, "", /*telemetry=*/true);
  bool closed = false;
  std::size_t read_frames = 0;
  for (int i = 0; i < 200 && read_frames < 60; ++i) {  // 60 frames, however slow the machine
    io_.run_for(50ms);
    read_frames += CountTelemetry(Drain(reader, &closed));
  }
  ASSERT_GE(read_frames, 60u);
  const std::size_t stale = CountTelemetry(Drain(paused, &closed));
  EXPECT_FALSE(closed);
  EXPECT_GE(stale, 1u);
  EXPECT_LE(stale, 20u) << "telemetry piled up for the paused client";
  // Once it reads again, telemetry flows again.
  std::size_t fresh = 0;
  for (int i = 0; i < 200 && fresh < 5; ++i) {
    io_.run_for(50ms);
    fresh += CountTelemetry(Drain(paused, &closed));
  }
  EXPECT_GE(fresh, 5u);
  ::close(paused);
  ::close(reader);
}

// ---- The state stream ----

std::vector<edge::JointState> JointStates(const std::vector<edge::ServerMessage>& messages) {
  std::vector<edge::JointState> out;
  for (const auto& m : messages) {
    if (m.has_joint_state()) out.push_back(m.joint_state());
  }
  return out;
}

class StateStreamTest : public HubTest {
 protected:
  // Asks for the stream on `fd`; returns the granted rate from the StateStreamResult.
  std::uint32_t Subscribe(int fd, std::uint32_t rate_hz) {
    edge::ClientMessage m;
    m.mutable_state_stream()->set_rate_hz(rate_hz);
    std::string bytes;
    proto::AppendDelimited(m, &bytes);
    EXPECT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    io_.run_for(50ms);
    bool closed = false;
    for (const auto& reply : Drain(fd, &closed)) {
      if (reply.has_state_stream_result()) return reply.state_stream_result().rate_hz();
    }
    ADD_FAILURE() << "no StateStreamResult";
    return 0;
  }
  // The control thread's side: ticks first..first+count-1 queued while a client subscribes,
  // then the API thread woken.
  void Tick(std::uint64_t first, int count) {
    for (int i = 0; i < count; ++i) {
      if (!channels_.stream_states_on.load()) continue;
      StateSample* s = channels_.stream_states.Reserve();
      ASSERT_NE(s, nullptr);
      s->tick = first + static_cast<std::uint64_t>(i);
      s->tick_us = static_cast<std::int64_t>(s->tick) * 2000;
      s->joints[3].position_rad = 0.001f * static_cast<float>(s->tick);
      channels_.stream_states.Commit();
    }
    const std::uint64_t one = 1;
    ASSERT_EQ(::write(wake_, &one, sizeof(one)), 8);
    io_.run_for(20ms);
  }
};

TEST_F(StateStreamTest, EachClientGetsTheTicksOfItsRateWithTheTicksState) {
  const int full = Connect();
  const int fifth = Connect();
  SendHello(full, "");
  SendHello(fifth, "cloud");
  EXPECT_FALSE(channels_.stream_states_on.load()) << "nobody asked: the control thread queues none";
  EXPECT_EQ(Subscribe(full, 2000), 500u) << "at most the control rate";
  EXPECT_EQ(Subscribe(fifth, 100), 100u);
  EXPECT_TRUE(channels_.stream_states_on.load());
  bool closed = false;
  std::vector<edge::JointState> all, some;
  for (std::uint64_t t = 1; t <= 100; t += 10) {  // 100 ticks, 10 per wake, read as they come
    Tick(t, 10);
    for (auto& s : JointStates(Drain(full, &closed))) all.push_back(std::move(s));
    for (auto& s : JointStates(Drain(fifth, &closed))) some.push_back(std::move(s));
  }
  ASSERT_EQ(all.size(), 100u);
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].tick(), i + 1);
    ASSERT_EQ(all[i].q_size(), 25);
    EXPECT_FLOAT_EQ(all[i].q(3), 0.001f * static_cast<float>(i + 1));
    EXPECT_EQ(all[i].motor_status_size(), 25);
  }
  ASSERT_EQ(some.size(), 20u) << "100 Hz of 500 Hz: every 5th tick";
  for (std::size_t i = 0; i < some.size(); ++i) EXPECT_EQ(some[i].tick(), 1 + 5 * i);
  ::close(full);
  ::close(fifth);
}

TEST_F(StateStreamTest, RateZeroOrLeavingStopsTheStreamAndTheControlThreadsQueueing) {
  const int a = Connect();
  const int b = Connect();
  SendHello(a, "");
  SendHello(b, "");
  Subscribe(a, 500);
  Subscribe(b, 500);
  EXPECT_EQ(Subscribe(a, 0), 0u);
  EXPECT_TRUE(channels_.stream_states_on.load()) << "b still streams";
  Tick(1, 5);
  bool closed = false;
  EXPECT_TRUE(JointStates(Drain(a, &closed)).empty());
  EXPECT_EQ(JointStates(Drain(b, &closed)).size(), 5u);
  ::close(b);
  io_.run_for(100ms);
  EXPECT_FALSE(channels_.stream_states_on.load()) << "the last subscriber left";
  ::close(a);
}

TEST_F(StateStreamTest, AClientThatDoesNotReadMissesStatesWithoutHoldingUpAnother) {
  const int paused = Connect(/*receive_buffer=*/4096);
  const int reader = Connect();
  SendHello(paused, "");
  SendHello(reader, "");
  Subscribe(paused, 500);
  Subscribe(reader, 500);
  bool closed = false;
  std::size_t read = 0;
  for (std::uint64_t t = 1; t <= 1000; t += 10) {
    Tick(t, 10);
    read += JointStates(Drain(reader, &closed)).size();
  }
  EXPECT_EQ(read, 1000u) << "the reading client lost states";
  const auto stale = JointStates(Drain(paused, &closed));
  EXPECT_FALSE(closed) << "a lossy stream never disconnects";
  EXPECT_GE(stale.size(), 1u);
  EXPECT_LE(stale.size(), 40u) << "states piled up for the paused client";
  ::close(paused);
  ::close(reader);
}

}  // namespace
}  // namespace robot_edge::daemon
