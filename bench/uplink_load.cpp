// bench_uplink_load: N simulated robot-edge-uplinks against one local mosquitto
// (docs/fleet-scale.md, "Scale"). Each sends what the uplink sends: telemetry QoS 0 at 1 Hz (640 B,
// a 25-joint EdgeTelemetry's size), diagnostics QoS 1 at 1 Hz (320 B) and events QoS 1 every 5 s
// (120 B), each QoS 1 record with the user property "seq". One fleet client subscribes to every
// robot's events and checks each robot's seq (lost, repeated) and the latency (publish ->
// delivery).
//
//   bench_uplink_load [--seconds S] N...   (default: 20 s; N = 100 250 500 1000)
//
// One thread drives every client (libmosquitto's loop_read / loop_write / loop_misc over
// poll()); the broker is started here on a free loopback port, plain TCP (TLS costs are the
// handshake's, once per connection). Prints, per N: events sent / lost / repeated, p50 / p99
// latency, the broker's CPU (% of one CPU) and this generator's.
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "mosquitto_broker.hpp"

namespace {

using robot_edge::test::FreePort;
using robot_edge::test::MosquittoBroker;

using Clock = std::chrono::steady_clock;

std::int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

double CpuSeconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), {});
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string skip;
  for (int i = 0; i < 11; ++i) fields >> skip;
  double utime = 0, stime = 0;
  fields >> utime >> stime;
  return (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

struct Robot {
  mosquitto* mosq = nullptr;
  std::string prefix;
  std::uint64_t seq = 0;
  std::uint64_t events_sent = 0;
  std::int64_t next_telemetry = 0, next_diag = 0, next_event = 0;
};

struct Fleet {
  std::map<std::string, std::vector<std::uint64_t>> seqs;  // per robot, events' seq as received
  std::vector<std::int64_t> latency_ns;
};

void OnFleetMessage(mosquitto*, void* self, const mosquitto_message* m,
                    const mosquitto_property* props) {
  auto* fleet = static_cast<Fleet*>(self);
  std::int64_t sent = 0;
  if (m->payloadlen >= 8) std::memcpy(&sent, m->payload, 8);
  fleet->latency_ns.push_back(NowNs() - sent);
  char *name = nullptr, *value = nullptr;
  if (mosquitto_property_read_string_pair(props, MQTT_PROP_USER_PROPERTY, &name, &value, false)) {
    const std::string topic = m->topic;
    fleet->seqs[topic.substr(0, topic.rfind('/'))].push_back(std::stoull(value));
    std::free(name);
    std::free(value);
  }
}

mosquitto* NewClient(const std::string& id, void* user, int port) {
  mosquitto* m = mosquitto_new(id.c_str(), true, user);
  mosquitto_int_option(m, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
  if (mosquitto_connect(m, "127.0.0.1", port, 60) != MOSQ_ERR_SUCCESS) {
    std::fprintf(stderr, "connect %s failed\n", id.c_str());
    std::exit(1);
  }
  return m;
}

void Publish(Robot& r, const char* kind, std::size_t size, int qos) {
  std::string payload(size, 'x');
  const std::int64_t now = NowNs();
  std::memcpy(payload.data(), &now, 8);
  mosquitto_property* props = nullptr;
  if (qos > 0) {
    mosquitto_property_add_string_pair(&props, MQTT_PROP_USER_PROPERTY, "seq",
                                       std::to_string(++r.seq).c_str());
  }
  mosquitto_publish_v5(r.mosq, nullptr, (r.prefix + "/" + kind).c_str(),
                       static_cast<int>(payload.size()), payload.data(), qos, false, props);
  mosquitto_property_free_all(&props);
}

// Every client's I/O once: up to `wait_ms` in poll().
void Service(std::vector<mosquitto*>& clients, int wait_ms, bool misc) {
  std::vector<pollfd> fds(clients.size());
  for (std::size_t i = 0; i < clients.size(); ++i) {
    fds[i] = {mosquitto_socket(clients[i]),
              static_cast<short>(POLLIN | (mosquitto_want_write(clients[i]) ? POLLOUT : 0)), 0};
  }
  ::poll(fds.data(), fds.size(), wait_ms);
  for (std::size_t i = 0; i < clients.size(); ++i) {
    if (fds[i].revents & POLLIN) mosquitto_loop_read(clients[i], 1);
    if (mosquitto_want_write(clients[i])) mosquitto_loop_write(clients[i], 1);
    if (misc) mosquitto_loop_misc(clients[i]);
  }
}

void Run(int n, int seconds, const std::string& dir) {
  const int port = FreePort();
  MosquittoBroker local_broker(dir, port,
                               "allow_anonymous true\nmax_connections -1\n"
                               "max_queued_messages 10000\n");
  local_broker.Start();
  const pid_t broker = local_broker.pid();
  Fleet fleet;
  mosquitto* sub = NewClient("fleet", &fleet, port);
  mosquitto_message_v5_callback_set(sub, &OnFleetMessage);
  mosquitto_subscribe_v5(sub, nullptr, "fleet/+/events", 1, 0, nullptr);
  std::vector<Robot> robots(static_cast<std::size_t>(n));
  std::vector<mosquitto*> clients{sub};
  const std::int64_t start = NowNs();
  for (int i = 0; i < n; ++i) {
    Robot& r = robots[static_cast<std::size_t>(i)];
    r.prefix = "fleet/robot-" + std::to_string(i);
    r.mosq = NewClient("robot-" + std::to_string(i), nullptr, port);
    // Spread over the period, as robots that started at different times.
    const std::int64_t phase = 1'000'000'000LL * i / n;
    r.next_telemetry = r.next_diag = start + phase;
    r.next_event = start + 5 * phase;
    clients.push_back(r.mosq);
    if (i % 50 == 0) Service(clients, 0, false);
  }
  for (int i = 0; i < 50; ++i) Service(clients, 10, true);  // CONNACKs, SUBACK
  const double broker_cpu0 = CpuSeconds(broker), self_cpu0 = CpuSeconds(::getpid());
  const std::int64_t run_start = NowNs(), end = run_start + seconds * 1'000'000'000LL;
  std::int64_t next_misc = 0;
  for (std::int64_t now = NowNs(); now < end; now = NowNs()) {
    for (Robot& r : robots) {
      if (now >= r.next_telemetry)
        Publish(r, "telemetry", 640, 0), r.next_telemetry += 1'000'000'000;
      if (now >= r.next_diag) Publish(r, "diagnostics", 320, 1), r.next_diag += 1'000'000'000;
      if (now >= r.next_event) {
        Publish(r, "events", 120, 1);
        ++r.events_sent;
        r.next_event += 5'000'000'000LL;
      }
    }
    Service(clients, 5, now >= next_misc);
    if (now >= next_misc) next_misc = now + 1'000'000'000;
  }
  const double elapsed = static_cast<double>(NowNs() - run_start) / 1e9;
  const double broker_cpu = (CpuSeconds(broker) - broker_cpu0) / elapsed * 100;
  const double self_cpu = (CpuSeconds(::getpid()) - self_cpu0) / elapsed * 100;
  for (int i = 0; i < 300; ++i) Service(clients, 10, i % 50 == 0);  // drain, 3 s
  std::uint64_t sent = 0, lost = 0, repeated = 0;
  for (const Robot& r : robots) sent += r.events_sent;
  for (const Robot& r : robots) {
    auto seqs = fleet.seqs[r.prefix];
    std::sort(seqs.begin(), seqs.end());
    const auto unique_end = std::unique(seqs.begin(), seqs.end());
    repeated += static_cast<std::uint64_t>(seqs.end() - unique_end);
    const auto unique = static_cast<std::uint64_t>(unique_end - seqs.begin());
    lost += r.events_sent > unique ? r.events_sent - unique : 0;
  }
  auto& lat = fleet.latency_ns;
  std::sort(lat.begin(), lat.end());
  auto pct = [&](double p) {
    return lat.empty()
               ? 0.0
               : static_cast<double>(lat[static_cast<std::size_t>(p * (lat.size() - 1))]) / 1e6;
  };
  std::printf(
      "N=%d: %llu events sent, %llu lost, %llu repeated; latency p50 %.2f ms, p99 %.2f ms; "
      "broker %.1f %% CPU, generator %.1f %% CPU (%.0f s)\n",
      n, static_cast<unsigned long long>(sent), static_cast<unsigned long long>(lost),
      static_cast<unsigned long long>(repeated), pct(0.5), pct(0.99), broker_cpu, self_cpu,
      elapsed);
  for (mosquitto* m : clients) {
    mosquitto_disconnect(m);
    mosquitto_destroy(m);
  }
  local_broker.Stop();
}

}  // namespace

int main(int argc, char** argv) {
  int seconds = 20;
  std::vector<int> counts;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      seconds = std::atoi(argv[++i]);
    } else {
      counts.push_back(std::atoi(argv[i]));
    }
  }
  if (counts.empty()) counts = {100, 250, 500, 1000};
  char dir[] = "/tmp/uplink-load-XXXXXX";
  if (::mkdtemp(dir) == nullptr) return 1;
  mosquitto_lib_init();
  for (const int n : counts) Run(n, seconds, dir);
  mosquitto_lib_cleanup();
  return 0;
}
