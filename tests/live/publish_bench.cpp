// live_publish_bench: what LiveServer::Publish costs the producer thread, with 0, 1 and 5 viewers
// subscribed (each a reader on its own thread, on loopback), and the bytes per second a viewer
// receives at the control rate. Run by hand (not a CTest test: figures depend on the machine):
//
//   build-live/tests/live/live_publish_bench [seconds per case, default 3]
//
// Paced: one JointState of the real size every 2 ms (500 Hz), each call timed. Burst: 5000 calls
// back to back (what a stalled producer catching up would do).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "edge_api.pb.h"
#include "live/live_server.hpp"
#include "ws_client.hpp"

namespace {

using namespace robot_edge;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// A JointState of 25 joints with every field set: the size /joint_state carries.
std::string JointStatePayload() {
  edge::JointState s;
  s.set_timestamp_us(1'764'000'000'000'000);
  s.set_robot_time_us(123'456'789);
  s.set_tick(61'728'394);
  s.set_control_mode(edge::CONTROL_MODE_STAND);
  for (int i = 0; i < 25; ++i) {
    for (auto* field : {s.mutable_q(), s.mutable_dq(), s.mutable_tau(), s.mutable_temperature_c(),
                        s.mutable_q_des(), s.mutable_dq_des(), s.mutable_kp(), s.mutable_kd(),
                        s.mutable_tau_ff()}) {
      field->Add(0.1f * static_cast<float>(i) + 0.0123f);
    }
    s.add_motor_fault(0);
  }
  for (int i = 0; i < 4; ++i) s.add_imu_quat(0.5f);
  for (int i = 0; i < 3; ++i) s.add_imu_gyro(0.01f);
  s.mutable_timing()->set_period_us(2000.5f);
  s.mutable_timing()->set_work_us(150.25f);
  s.mutable_timing()->set_wake_latency_us(20.125f);
  s.set_last_command_sequence(7);
  return s.SerializeAsString();
}

struct Viewer {
  std::unique_ptr<live::test::WsClient> client;
  std::atomic<std::uint64_t> messages{0}, bytes{0};
  std::thread reader;
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

void RunCase(int viewers, double seconds, const std::string& payload) {
  live::LiveOptions options;
  options.port = 0;
  live::LiveServer server(options);
  live::ChannelSpec spec;
  spec.topic = "/joint_state";
  spec.schema_name = "edge.JointState";
  const std::uint32_t channel = server.AddChannel(spec);
  server.Start();

  std::atomic<bool> stop{false};
  std::vector<std::unique_ptr<Viewer>> list;
  for (int i = 0; i < viewers; ++i) {
    auto v = std::make_unique<Viewer>();
    v->client = std::make_unique<live::test::WsClient>(server.port(), "/");
    v->client->SendText(R"({"op":"subscribe","subscriptions":[{"id":1,"channelId":1}]})");
    Viewer* raw = v.get();
    v->reader = std::thread([raw, &stop] {
      while (!stop) {
        if (auto m = raw->client->NextBinary(50ms)) {
          ++raw->messages;
          raw->bytes += m->data.size();
        }
      }
    });
    list.push_back(std::move(v));
  }
  // Wait until every viewer receives.
  for (int i = 0; i < 1000 && viewers > 0; ++i) {
    server.Publish(channel, 0, payload);
    std::this_thread::sleep_for(2ms);
    if (std::all_of(list.begin(), list.end(), [](auto& v) { return v->messages > 0; })) break;
  }
  for (auto& v : list) v->messages = v->bytes = 0;

  // Paced at 500 Hz.
  std::vector<double> ns;
  const auto start = Clock::now();
  auto next = start;
  while (Clock::now() - start < std::chrono::duration<double>(seconds)) {
    const auto before = Clock::now();
    server.Publish(channel, 1, payload);
    ns.push_back(std::chrono::duration<double, std::nano>(Clock::now() - before).count());
    next += 2ms;
    std::this_thread::sleep_until(next);
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  std::this_thread::sleep_for(200ms);
  const double per_viewer_bytes = list.empty() ? 0 : static_cast<double>(list[0]->bytes) / elapsed;
  const double per_viewer_msgs =
      list.empty() ? 0 : static_cast<double>(list[0]->messages) / elapsed;

  // Burst.
  const auto burst_start = Clock::now();
  constexpr int kBurst = 5000;
  for (int i = 0; i < kBurst; ++i) server.Publish(channel, 2, payload);
  const double burst_ns =
      std::chrono::duration<double, std::nano>(Clock::now() - burst_start).count() / kBurst;
  std::this_thread::sleep_for(500ms);

  std::printf(
      "%d viewer(s): paced 500 Hz: median %.0f ns, p99 %.0f ns, max %.0f ns per Publish; "
      "burst %.0f ns/call; per viewer %.0f msgs/s, %.1f kB/s; dropped %llu\n",
      viewers, Percentile(ns, 0.5), Percentile(ns, 0.99), Percentile(ns, 1.0), burst_ns,
      per_viewer_msgs, per_viewer_bytes / 1000.0,
      static_cast<unsigned long long>(server.stats().messages_dropped));
  stop = true;
  for (auto& v : list) v->reader.join();
  server.Stop();
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::stod(argv[1]) : 3.0;
  const std::string payload = JointStatePayload();
  std::printf("JointState payload: %zu bytes; on the wire per viewer: %zu bytes per message\n",
              payload.size(), payload.size() + 13 + 2 + 4);
  for (const int viewers : {0, 1, 5}) RunCase(viewers, seconds, payload);
  return 0;
}
