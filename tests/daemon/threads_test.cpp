// The daemon's threads together, as daemon.cpp wires them: the control loop on a thread of its
// own (its real Run(): futex sleeps, urgent wake-ups), the hub on this thread (a client over a
// socketpair streaming commands, DAMP among them), and the supervisor reading both heartbeats.
// Under ThreadSanitizer (scripts/sanitize tsan) every hand-off between them is checked; here, that
// they work: commands are applied, results and telemetry come back, DAMP wakes the loop.
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <asio/local/stream_protocol.hpp>
#include <thread>

#include "can/fake_transport.hpp"
#include "daemon/api/access.hpp"
#include "daemon/api/hub.hpp"
#include "daemon/control/control_loop.hpp"
#include "daemon/supervisor.hpp"
#include "edge_api.pb.h"
#include "proto/framing.hpp"

namespace robot_edge::daemon {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> Interfaces(const config::Config& c) {
  std::vector<std::string> names;
  for (const auto& b : c.buses) names.push_back(b.interface);
  return names;
}

std::string Framed(const edge::ClientMessage& m) {
  std::string bytes;
  proto::AppendDelimited(m, &bytes);
  return bytes;
}

TEST(DaemonThreads, CommandsTelemetryAndAnUrgentDampAcrossTheThreads) {
  const config::Config config = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  can::FakeTransport transport(Interfaces(config));  // only the control thread touches it
  ControlChannels channels(config, 32, 4096);
  const int wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  channels.wake_fd = wake;
  ControlLoop loop(config, transport, nullptr, &channels);
  asio::io_context io;
  const AccessPolicy access = AccessPolicy::Load(config, ::getuid());
  Hub hub(io, config, &channels, nullptr, ::dup(wake), "test", &access);
  SystemdNotifier notifier;
  std::atomic<std::int64_t> heartbeat{SteadyMicros()};
  Supervisor supervisor(loop, &channels, &notifier, &heartbeat);

  std::thread control([&] { loop.Run(); });
  hub.Start();
  supervisor.Start();

  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  hub.Accept(Session::Socket(
                 asio::local::stream_protocol::socket(io, asio::local::stream_protocol(), fds[1])),
             UnixPeer(fds[1]));
  edge::ClientMessage hello;
  hello.mutable_hello()->set_controller("cloud");
  hello.mutable_hello()->set_want_command_results(true);
  std::string out = Framed(hello);
  const auto wall = [] {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
  };
  std::string bytes;  // what the client receives, read as it comes (telemetry is lossy)
  char buffer[65536];
  const auto receive = [&] {
    for (ssize_t n; (n = ::recv(fds[0], buffer, sizeof(buffer), MSG_DONTWAIT)) > 0;) {
      bytes.append(buffer, static_cast<std::size_t>(n));
    }
  };
  // The client streams while every thread runs: STAND and DAMP in turn (the motors never reply
  // here, so STAND is refused; DAMP is accepted and wakes the control thread).
  for (std::uint32_t s = 1; s <= 60; ++s) {
    edge::ClientMessage m;
    m.mutable_command()->set_sequence(s);
    m.mutable_command()->set_timestamp_us(wall());
    m.mutable_command()->mutable_mode()->set_mode(s % 2 ? edge::MODE_DAMP : edge::MODE_STAND);
    ASSERT_EQ(::write(fds[0], out.data(), out.size()), static_cast<ssize_t>(out.size()));
    out = Framed(m);
    for (int i = 0; i < 5; ++i) {
      heartbeat.store(SteadyMicros());
      io.run_for(2ms);
      receive();
    }
  }
  for (int i = 0; i < 30; ++i) {
    io.run_for(10ms);
    receive();
  }

  supervisor.Stop();
  loop.RequestStop();
  control.join();
  hub.Stop("test over");
  io.run_for(100ms);

  receive();
  proto::FrameDecoder decoder(1 << 20);
  decoder.Feed(bytes);
  std::span<const std::uint8_t> payload;
  int results = 0, accepted_damps = 0, telemetry = 0;
  while (decoder.Next(&payload) == proto::FrameDecoder::Status::kMessage) {
    edge::ServerMessage m;
    ASSERT_TRUE(m.ParseFromArray(payload.data(), static_cast<int>(payload.size())));
    telemetry += m.has_telemetry();
    if (m.has_command_result()) {
      ++results;
      accepted_damps += m.command_result().accepted() && m.command_result().sequence() % 2 == 1;
    }
  }
  EXPECT_GE(results, 58) << "a result for (nearly) every command sent";
  EXPECT_GE(accepted_damps, 29) << "every DAMP accepted";
  EXPECT_GE(telemetry, 3) << "telemetry from the control thread's snapshots";
  ::close(fds[0]);
  ::close(wake);
}

}  // namespace
}  // namespace robot_edge::daemon
