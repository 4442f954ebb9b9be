// A viewer that subscribes and stops reading must cost the robot nothing: Publish stays fast, the
// viewer is disconnected once its backlog passes the limit, and a healthy viewer keeps receiving.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "live/live_server.hpp"
#include "ws_client.hpp"

namespace robot_edge::live {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST(SlowViewer, IsDisconnectedWhilePublishNeverBlocksAndOthersKeepReceiving) {
  LiveOptions options;
  options.port = 0;
  options.max_client_backlog_bytes = 1 << 20;
  LiveServer server(options);
  ChannelSpec spec;
  spec.topic = "/joint_state";
  spec.schema_name = "edge.JointState";
  const std::uint32_t channel = server.AddChannel(spec);
  server.Start();

  // The slow viewer: a small receive buffer, subscribes, then never reads again.
  test::WsClient slow(server.port(), "/", 4096);
  ASSERT_EQ(slow.status(), 101);
  slow.SendText(R"({"op":"subscribe","subscriptions":[{"id":0,"channelId":1}]})");

  // The healthy viewer reads everything on its own thread.
  test::WsClient healthy(server.port(), "/");
  ASSERT_EQ(healthy.status(), 101);
  healthy.SendText(R"({"op":"subscribe","subscriptions":[{"id":5,"channelId":1}]})");
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> received{0};
  std::thread reader([&] {
    while (!stop) {
      if (healthy.NextBinary(100ms)) ++received;
      if (healthy.ended()) return;
    }
  });

  // 2000 messages/s of 1.2 kB (four times the control rate, so that the test is short).
  const std::string payload(1200, 'q');
  Clock::duration longest{};
  Clock::time_point dropped_at{};
  std::uint64_t received_at_drop = 0;
  const auto start = Clock::now();
  auto next = start;
  for (int i = 0; Clock::now() - start < 10s; ++i) {
    const auto before = Clock::now();
    server.Publish(channel, static_cast<std::uint64_t>(i), payload);
    longest = std::max(longest, Clock::now() - before);
    if (dropped_at == Clock::time_point{} && server.stats().slow_clients_dropped > 0) {
      dropped_at = Clock::now();
      received_at_drop = received;
    }
    if (dropped_at != Clock::time_point{} && Clock::now() - dropped_at > 1s) break;
    next += 500us;
    std::this_thread::sleep_until(next);
  }
  stop = true;
  reader.join();

  const LiveStats stats = server.stats();
  const double longest_ms = std::chrono::duration<double, std::milli>(longest).count();
  const double drop_s = std::chrono::duration<double>(dropped_at - start).count();
  std::printf(
      "slow viewer: dropped after %.2f s; longest Publish %.3f ms; healthy viewer got %llu "
      "messages (%llu after the drop); sent %llu messages, %llu bytes\n",
      drop_s, longest_ms, static_cast<unsigned long long>(received.load()),
      static_cast<unsigned long long>(received - received_at_drop),
      static_cast<unsigned long long>(stats.messages_sent),
      static_cast<unsigned long long>(stats.bytes_sent));
  ::testing::Test::RecordProperty("longest_publish_us", static_cast<int>(longest_ms * 1000));

  ASSERT_NE(dropped_at, Clock::time_point{}) << "the slow viewer was never disconnected";
  EXPECT_EQ(stats.slow_clients_dropped, 1u);
  EXPECT_LT(longest_ms, 50.0);
  EXPECT_GT(received - received_at_drop, 1000u) << "the healthy viewer stopped receiving";
  EXPECT_EQ(stats.messages_dropped, 0u);
  EXPECT_TRUE(slow.WaitClosed(2s)) << "the slow viewer's connection is still open";
  EXPECT_EQ(server.stats().clients, 1u);
}

}  // namespace
}  // namespace robot_edge::live
