// broker.uplink, a status report made while the broker is down: a fleet configuration is applied
// (robot-edged restarts on it) after the broker stopped, so its config_result is produced
// offline, and robot-edged emits events after it. Once the broker is back, the result arrives
// once, with its "seq", in order with the events: spooled like them, not lost.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>

#include "fleet_rig.hpp"

namespace robot_edge::test {
namespace {

TEST(BrokerUplink, AConfigResultMadeWhileTheBrokerIsDownArrivesInOrderOnce) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  // robot-edged's restart under user-mode-linux took 6.5-8 s in CI, and once more than the
  // default apply_timeout_s (10 s): the apply was rolled back. Give it a minute (and the start
  // budget that allows: apply_timeout_s + 2).
  FleetConfigRig rig("uplink-spooled", "  apply_timeout_s: 60\n  start_limit_burst: 62\n");
  Robot& robot = rig.robot;
  MosquittoBroker& broker = rig.broker;
  Fleet& fleet = rig.fleet;
  Uplink& uplink = rig.uplink;
  uplink.Start();
  auto count = [&](const std::string& topic, const std::string& text) {
    std::set<std::uint64_t> seqs;  // at least once: repeats dropped by seq
    for (const Received& m : fleet.Messages()) {
      if (m.topic == "robot-edge/r1/" + topic && m.payload.find(text) != std::string::npos) {
        seqs.insert(m.seq);
      }
    }
    return seqs.size();
  };
  ASSERT_TRUE(Eventually([&] { return count("telemetry", "") > 0; }, 20s)) << uplink.Log();
  std::this_thread::sleep_for(1500ms);  // the uplink's newest telemetry says DAMP

  const std::string renamed =
      Replaced(ReadFile(rig.config_path), "name: asimov-sim", "name: asimov-fleet");
  fleet.Publish("robot-edge/r1/config", renamed, 60);
  ASSERT_TRUE(Eventually(
      [&] { return uplink.Log().find("robot-edged restarts on it") != std::string::npos; }, 10s))
      << uplink.Log();
  broker.Stop();
  std::printf("broker stopped while robot-edged restarts\n");
  ASSERT_TRUE(Eventually(
      // robot-edged's restart under user-mode-linux beside a busy host: seen past 30 s
      [&] { return uplink.Log().find("fleet config: applied") != std::string::npos; }, 60s))
      << uplink.Log() << robot.DaemonLog();
  {  // events after the result (a controller takes control with DAMP and lets go)
    client::Client c = robot.Connect("cloud");
    ASSERT_TRUE(Command(c, Mode(edge::MODE_DAMP)).accepted());
  }
  std::this_thread::sleep_for(2s);
  EXPECT_EQ(count("status", "config_result"), 0u);
  broker.Start();
  std::printf("broker restarted\n");

  // The fleet's view, each seq's first copy: the result once, every seq rising, and events
  // made after the result behind it.
  std::uint64_t result_seq = 0, last_event_seq = 0;
  std::string order;
  auto arrived = [&] {
    std::set<std::uint64_t> seen;
    std::uint64_t last = 0;
    std::size_t results = 0;
    order.clear();
    for (const Received& m : fleet.Messages()) {
      if (m.seq == 0 || !seen.insert(m.seq).second) continue;
      order += m.topic.substr(m.topic.rfind('/') + 1) + " " + std::to_string(m.seq) + "\n";
      EXPECT_GT(m.seq, last) << order;
      last = m.seq;
      if (m.payload.find("config_result") != std::string::npos) {
        result_seq = m.seq;
        ++results;
        EXPECT_NE(m.payload.find("\"applied\":true"), std::string::npos) << m.payload;
      }
      if (m.topic == "robot-edge/r1/events") last_event_seq = m.seq;
    }
    return results;
  };
  ASSERT_TRUE(Eventually([&] { return arrived() == 1 && last_event_seq > result_seq; }, 30s))
      << order << uplink.Log();
  std::this_thread::sleep_for(2s);  // a repeat with a new seq would arrive meanwhile
  EXPECT_EQ(arrived(), 1u) << order;
  std::printf("config_result seq %llu, the last event seq %llu\n",
              static_cast<unsigned long long>(result_seq),
              static_cast<unsigned long long>(last_event_seq));
  uplink.Stop();
  if (!testing::Test::HasFailure()) std::filesystem::remove_all(rig.dir);  // else kept: the logs
}

}  // namespace
}  // namespace robot_edge::test
