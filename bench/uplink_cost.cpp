// What robot-edge-uplink costs on the robot: robot-edged driving robot-edge-sim on vcan (the test
// rig), a local mosquitto with mutual TLS (tests/uplink/make_test_pki.sh) standing in for the
// fleet's broker, and, in turn, in the same run: no uplink, the uplink at telemetry 1 Hz (the
// default) and at 10 Hz. Each round runs the three; the rounds repeat them (UML is noisy).
// Per window:
//   - the uplink's CPU share of one core: its process's CPU-time clock over the window;
//   - robot-edged's control-loop period p99, as bench_peers reads it: joint 0's command frames
//     on the wire (the test rig's BusMonitor);
//   - robot-edged's and mosquitto's CPU shares, and the telemetry messages the broker delivered
//     to a fleet subscriber (the rate the uplink really ran at).
// Goals: the uplink <= 2 % of one CPU, the p99 changed by < 1 %. Under user-mode-linux the broker
// and the subscriber share the robot's one emulated CPU (on a robot the broker is elsewhere), and
// CPU time is charged in 10 ms ticks: read the min and median over the rounds.
//
// --host runs the same windows on this machine's kernel instead, with robot-edged's parts in this
// process (inproc.hpp: CAN replaced by a loopback transport) laid out as on a robot: the control
// thread alone on CPU 0 (realtime.cpu 0), everything else (robot-edged's API thread, the uplink,
// mosquitto, the live view, the fleet subscriber) on CPU 1. The period is then read where the
// control thread hands each batch to the transport.
//
// Run it inside tests/vcan/run (not with --host); bench/run does both.
// --unpinned (with --host) pins nothing: the control thread shares both CPUs with the rest.
//
// Usage: bench_uplink_cost ROWS_FILE [--quick] [--rounds N] [--seconds S] [--realtime P]
//                          [--host [--unpinned]]
//   --realtime P  robot-edged's control thread at SCHED_FIFO P (realtime.priority), as deployed;
//                 bench/run passes 80. Under user-mode-linux a thread at normal priority can wait
//                 a 10 ms tick behind the others, and that, not the uplink, is then the p99.
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "e2e_rig.hpp"
#include "fleet_rig.hpp"
#include "stats.hpp"
#include "support.hpp"
#include "uplink_cost_rig.hpp"

namespace robot_edge::bench {
namespace {

using namespace std::chrono_literals;

struct Window {
  double uplink_cpu = 0;  // share of one CPU (0 without an uplink)
  double daemon_cpu = 0;
  double broker_cpu = 0;
  double period_p99_us = 0, period_p50_us = 0;
  double telemetry_hz = 0;  // delivered to the fleet subscriber
};

struct Options {
  int rounds = 3;
  double seconds = 10;
  int realtime = 0;       // robot-edged's control thread's SCHED_FIFO priority (0: normal)
  bool host = false;      // in this process on the host kernel, not robot-edged on vcan
  bool unpinned = false;  // with host: no CPU of its own for the control thread, nothing pinned
};

// Whether a thread of this process (and so a child) may take SCHED_FIFO `priority`.
bool FifoAllowed(int priority) {
  bool allowed = false;
  std::thread([&] {
    sched_param param{};
    param.sched_priority = priority;
    allowed = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0;
  }).join();
  return allowed;
}

// The three configurations of a round, in order; 0 = no uplink.
const std::vector<double> kRates = {0, 1, 10};

std::string Name(double rate) {
  return rate == 0 ? "no uplink" : "uplink, telemetry " + Format(rate, 0) + " Hz";
}

// The uplink's config as deployed by default (no commands, no fleet configurations), but for
// `rate` and the test broker.
std::string WriteUplinkConfig(const std::string& dir, const std::string& pki, int port,
                              const std::string& socket, double rate, bool commands = false) {
  const std::string path =
      dir + "/uplink-" + Format(rate, 0) + (commands ? "-commands" : "") + ".yaml";
  std::ofstream(path) << "robot_id: r1\nbroker:\n  host: localhost\n  port: " << port
                      << "\n  ca: " << pki << "/ca.pem\n  cert: " << pki
                      << "/robot.pem\n  key: " << pki << "/robot.key\nspool:\n  dir: " << dir
                      << "/spool\nrobot_edged:\n  socket: " << socket
                      << "\ntelemetry_rate_hz: " << rate << "\n"
                      << (commands ? "commands: true\n" : "");
  return path;
}

// joint 0's command periods between the two times (steady µs) into `w`.
void Periods(Daemon& robot, std::int64_t from_us, std::int64_t to_us, Window* w) {
  std::vector<std::int64_t> t;
  for (const Sent& f : robot.Joint0Since(from_us)) {
    if (f.t_us <= to_us) t.push_back(f.t_us);
  }
  std::vector<double> gaps;
  for (std::size_t i = 1; i < t.size(); ++i) gaps.push_back(static_cast<double>(t[i] - t[i - 1]));
  const Summary s = Summarize(gaps);
  w->period_p99_us = s.p99;
  w->period_p50_us = s.p50;
}

std::size_t TelemetryCount(test::Fleet& fleet) {
  std::size_t n = 0;
  for (const test::Received& m : fleet.Messages()) n += m.topic == "robot-edge/r1/telemetry";
  return n;
}

// One window of `seconds` with the uplink at `rate` (0: none) running.
// robot-edge-uplink on `conf`, connected to the broker.
std::unique_ptr<Child> StartUplink(const std::string& conf) {
  auto uplink =
      std::make_unique<Child>(std::vector<std::string>{ROBOT_EDGE_UPLINK, "--config", conf},
                              conf.substr(0, conf.size() - 5));
  if (!test::Eventually(
          [&] { return uplink->Stderr().find("broker: connected") != std::string::npos; }, 20s)) {
    throw std::runtime_error("the uplink did not connect:\n" + uplink->Stderr());
  }
  return uplink;
}

Window Measure(Daemon& robot, test::MosquittoBroker& broker, test::Fleet& fleet,
               const std::string& dir, const std::string& pki, double rate, double seconds) {
  std::unique_ptr<Child> uplink;
  if (rate > 0) {
    uplink = StartUplink(WriteUplinkConfig(dir, pki, broker.port(), robot.api_socket(), rate));
  }
  std::this_thread::sleep_for(2s);  // settled: connected, its spool sent
  Window w;
  const std::size_t telemetry0 = TelemetryCount(fleet);
  const double up0 = uplink ? CpuSeconds(uplink->pid()) : 0;
  const double daemon0 = robot.CpuSeconds();
  const double broker0 = CpuSeconds(broker.pid());
  robot.Open();
  const std::int64_t t0 = test::NowUs();
  std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int>(seconds * 1000)));
  const std::int64_t t1 = test::NowUs();
  const double span = static_cast<double>(t1 - t0) / 1e6;
  w.uplink_cpu = uplink ? (CpuSeconds(uplink->pid()) - up0) / span : 0;
  w.daemon_cpu = (robot.CpuSeconds() - daemon0) / span;
  w.broker_cpu = (CpuSeconds(broker.pid()) - broker0) / span;
  w.telemetry_hz = static_cast<double>(TelemetryCount(fleet) - telemetry0) / span;
  Periods(robot, t0, t1, &w);
  if (w.uplink_cpu > 0.05) {  // an outlier: what the uplink was doing
    const std::string log = uplink->Stderr();
    std::fprintf(stderr,
                 "  the uplink used %.1f %% of a CPU; its threads: %s\n  its log ends:\n%s\n",
                 100 * w.uplink_cpu, ThreadCpuList(uplink->pid()).c_str(),
                 log.substr(log.size() > 2000 ? log.size() - 2000 : 0).c_str());
  }
  if (uplink && uplink->Stop(SIGTERM, 10s) != 0) {
    std::fprintf(stderr, "the uplink did not stop cleanly:\n%s\n", uplink->Stderr().c_str());
  }
  std::this_thread::sleep_for(1s);  // its last will / offline status handled
  return w;
}

// Fleet -> wire: `count` commands published by the fleet subscriber's client on `commands`
// (QoS 1), STAND and DAMP in turn, each timed from just before its publish to joint 0's first
// command that carries it (kp > 0 for STAND, 0 for DAMP). Through the broker, the uplink (with
// `commands: true`, as the controller `fleet`), robot-edged's API thread and its control tick.
// A command not on the wire within 2 s counts as lost. Ends in DAMP.
struct Latencies {
  std::vector<double> us;
  int lost = 0;
};

Latencies FleetToWire(Daemon& robot, test::MosquittoBroker& broker, test::Fleet& fleet,
                      const std::string& dir, const std::string& pki, int count) {
  const auto uplink = StartUplink(
      WriteUplinkConfig(dir, pki, broker.port(), robot.api_socket(), 1, /*commands=*/true));
  std::this_thread::sleep_for(2s);
  robot.Open();
  Latencies out;
  for (int i = 0; i < count; ++i) {
    const bool stand = i % 2 == 0;
    const edge::CloudCommand command =
        test::Stamped(test::Mode(stand ? edge::MODE_STAND : edge::MODE_DAMP));
    const std::int64_t t0 = test::NowUs();
    fleet.Publish("robot-edge/r1/commands", command.SerializeAsString(), 10);
    std::optional<std::int64_t> on_wire;
    while (!on_wire && test::NowUs() - t0 < 2'000'000) {
      std::this_thread::sleep_for(1ms);
      for (const Sent& f : robot.Joint0Since(t0)) {
        if (f.stiff == stand) {
          on_wire = f.t_us;
          break;
        }
      }
    }
    if (on_wire) {
      out.us.push_back(static_cast<double>(*on_wire - t0));
    } else {
      ++out.lost;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(150 + 37 * (i % 5)));  // any phase
  }
  if (out.lost > 0) {
    std::fprintf(stderr,
                 "  %d of %d fleet commands never reached the wire; the uplink's log:\n%s\n",
                 out.lost, count, uplink->Stderr().c_str());
  }
  const edge::CloudCommand damp = test::Stamped(test::Mode(edge::MODE_DAMP));
  fleet.Publish("robot-edge/r1/commands", damp.SerializeAsString(), 10);
  std::this_thread::sleep_for(500ms);
  return out;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? std::nan("") : v[v.size() / 2];
}
double Min(const std::vector<double>& v) {
  return v.empty() ? std::nan("") : *std::min_element(v.begin(), v.end());
}
double Max(const std::vector<double>& v) {
  return v.empty() ? std::nan("") : *std::max_element(v.begin(), v.end());
}

constexpr char kSection[] = "the fleet uplink's cost on the robot";

std::vector<Row> Rows(const std::map<double, std::vector<Window>>& by_rate, const Options& options,
                      const std::string& section, const std::string& source,
                      const std::string& layout) {
  auto column = [&](double rate, double Window::*field) {
    std::vector<double> v;
    for (const Window& w : by_rate.at(rate)) v.push_back(w.*field);
    return v;
  };
  const std::string runs = layout + "; " + std::to_string(options.rounds) + " rounds of " +
                           Format(options.seconds, 0) + " s, the three in turn in each";
  std::vector<Row> rows;
  const double base_p99 = Median(column(0, &Window::period_p99_us));
  const auto base = column(0, &Window::period_p99_us);
  rows.push_back({section, "no uplink: loop period p99, spread between rounds (the noise floor)",
                  Format(100 * (Max(base) - Min(base)) / base_p99, 1), "", "% of the median", "",
                  source, "(max - min) / median: a change smaller than this is not seen"});
  for (const double rate : kRates) {
    const std::string name = Name(rate);
    const auto p99 = column(rate, &Window::period_p99_us);
    rows.push_back(
        {section, name + ": loop period p99, min / median / max",
         Format(Min(p99), 0) + " / " + Format(Median(p99), 0) + " / " + Format(Max(p99), 0), "",
         "µs", "", source, runs});
    const auto daemon = column(rate, &Window::daemon_cpu);
    rows.push_back({section, name + ": robot-edged's CPU, min / median",
                    Format(100 * Min(daemon), 1) + " / " + Format(100 * Median(daemon), 1), "",
                    "% of one CPU", "", source, "its CPU-time clock over each window"});
    const auto broker = column(rate, &Window::broker_cpu);
    rows.push_back({section, name + ": mosquitto's CPU (the local stand-in broker), median",
                    Format(100 * Median(broker), 1), "", "% of one CPU", "", source,
                    "on a robot the broker is elsewhere"});
    if (rate == 0) continue;
    const auto cpu = column(rate, &Window::uplink_cpu);
    const double median_cpu = 100 * Median(cpu);
    rows.push_back({section, name + ": robot-edge-uplink's CPU, min / median / max",
                    Format(100 * Min(cpu), 2) + " / " + Format(median_cpu, 2) + " / " +
                        Format(100 * Max(cpu), 2),
                    "≤ 2", "% of one CPU", median_cpu <= 2 ? "ok" : "MISS", source,
                    "its CPU-time clock over each window; the verdict on the median"});
    const double change = 100 * (Median(p99) - base_p99) / base_p99;
    rows.push_back({section, name + ": loop period p99 change against no uplink (medians)",
                    Format(change, 2), "< 1", "%", std::fabs(change) < 1 ? "ok" : "MISS", source,
                    "median p99 with it over the median without"});
    rows.push_back({section, name + ": telemetry delivered to the fleet, median",
                    Format(Median(column(rate, &Window::telemetry_hz)), 2), "", "Hz", "", source,
                    "messages a fleet subscriber received over each window"});
  }
  return rows;
}

// Pins the calling thread, and so the threads and processes it starts from now on, to `cpu`.
void PinTo(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    throw std::runtime_error("this bench needs CPUs 0 and 1: CPU " + std::to_string(cpu) +
                             " refused");
  }
}

// The rounds beside `robot`, then the rows.
std::vector<Row> Rounds(Daemon& robot, const std::string& dir, const std::string& pki,
                        const Options& options, const std::string& section,
                        const std::string& source, const std::string& layout) {
  test::MosquittoBroker broker = test::TlsBroker(dir, pki, test::FreePort());
  broker.Start();
  test::Fleet fleet(pki, broker.port());
  std::map<double, std::vector<Window>> by_rate;
  for (int round = 1; round <= options.rounds; ++round) {
    for (const double rate : kRates) {
      const Window w = Measure(robot, broker, fleet, dir, pki, rate, options.seconds);
      std::printf(
          "  round %d, %-26s uplink %5.2f %%, robot-edged %5.1f %%, mosquitto %4.1f %%, period "
          "p50 %5.0f p99 %5.0f us, telemetry %5.2f Hz\n",
          round, Name(rate).c_str(), 100 * w.uplink_cpu, 100 * w.daemon_cpu, 100 * w.broker_cpu,
          w.period_p50_us, w.period_p99_us, w.telemetry_hz);
      std::fflush(stdout);
      by_rate[rate].push_back(w);
    }
  }
  std::vector<Row> rows = Rows(by_rate, options, section, source, layout);
  const int count = options.rounds == 1 ? 10 : 40;
  const Latencies latency = FleetToWire(robot, broker, fleet, dir, pki, count);
  const Summary s = Summarize(latency.us);
  std::printf(
      "  fleet -> wire: %zu commands, p50 %.0f p99 %.0f max %.0f us, %d lost; in order (ms):",
      s.count, s.p50, s.p99, s.max, latency.lost);
  for (const double us : latency.us) std::printf(" %.1f", us / 1000);
  std::printf("\n");
  rows.push_back(
      {section, "fleet command to the CAN wire: latency p50 / p99 / max",
       Format(s.p50 / 1000, 1) + " / " + Format(s.p99 / 1000, 1) + " / " + Format(s.max / 1000, 1),
       "", "ms", "", source,
       std::to_string(count) +
           " STAND / DAMP in turn, from the fleet's publish (QoS 1) through the broker, "
           "the uplink and robot-edged to joint 0's first command carrying it; " +
           layout});
  rows.push_back({section, "fleet commands that never reached the wire (within 2 s)",
                  std::to_string(latency.lost), "0", "", latency.lost == 0 ? "ok" : "MISS", source,
                  "of " + std::to_string(count)});
  return rows;
}

int Run(const std::string& rows_file, const Options& options) {
  const std::string dir = test::MakeTempDir("bench-uplink");
  const std::string pki = dir + "/pki";
  if (std::system((std::string(ROBOT_EDGE_UPLINK_PKI) + " " + pki + " >/dev/null").c_str()) != 0) {
    std::fprintf(stderr, "make_test_pki.sh failed\n");
    return 1;
  }
  Options o = options;
  if (o.realtime > 0 && !FifoAllowed(o.realtime)) {
    std::printf("  SCHED_FIFO is refused here: robot-edged runs at normal priority\n");
    o.realtime = 0;
  }
  const std::string priority =
      o.realtime > 0 ? "SCHED_FIFO " + std::to_string(o.realtime) : std::string("normal priority");
  std::vector<Row> rows;
  if (o.host) {
    config::Config config = DefaultConfig();
    config.realtime.priority = o.realtime;
    if (!o.unpinned) {
      PinTo(1);  // everything but the control thread
      config.realtime.cpu = 0;
    }
    InProcessDaemon inproc(config);
    HostDaemon robot(inproc);
    rows = Rounds(robot, dir, pki, o,
                  std::string(kSection) + ", host kernel" + (o.unpinned ? ", nothing pinned" : ""),
                  "in-process",
                  "robot-edged's control thread " +
                      (o.unpinned ? std::string("unpinned")
                                  : std::string("alone on CPU 0, the rest on CPU 1,")) +
                      " at " + priority + "; joint 0's commands as the control thread sends them");
  } else {
    const char* harness = std::getenv("ROBOT_EDGE_VCAN_HARNESS");
    const std::string source =
        harness != nullptr && std::string(harness) == "uml" ? "vcan/UML" : "vcan/kernel";
    test::RobotOptions robot_options;
    robot_options.config_edits = {
        {"priority: 0 ", "priority: " + std::to_string(o.realtime) + " "}};
    test::Robot rig(robot_options);
    {
      auto c = rig.Connect("");
      if (!test::MotorsReady(c)) throw std::runtime_error("motors not ready");
    }
    VcanDaemon robot(rig);
    rows = Rounds(robot, dir, pki, o, kSection, source,
                  "robot-edged's control thread at " + priority +
                      "; joint 0's command frames on the wire (500 Hz)");
  }
  for (const Row& r : rows) {
    std::printf("  %-78s %22s %s %s\n", r.figure.c_str(), r.value.c_str(), r.unit.c_str(),
                r.verdict.c_str());
  }
  WriteRows(rows_file, rows);
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace robot_edge::bench

int main(int argc, char** argv) {
  robot_edge::bench::Options options;
  bool usage_error = argc < 2;
  for (int i = 2; i < argc && !usage_error; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      options.rounds = 1;
      options.seconds = 4;
    } else if (a == "--host") {
      options.host = true;
    } else if (a == "--unpinned") {
      options.unpinned = true;
    } else if (a == "--rounds" && i + 1 < argc) {
      options.rounds = std::atoi(argv[++i]);
      usage_error = options.rounds < 1 || options.rounds > 50;
    } else if (a == "--realtime" && i + 1 < argc) {
      options.realtime = std::atoi(argv[++i]);
      usage_error = options.realtime < 1 || options.realtime > 99;
    } else if (a == "--seconds" && i + 1 < argc) {
      options.seconds = std::atof(argv[++i]);
      usage_error = !(options.seconds >= 1 && options.seconds <= 600);
    } else {
      usage_error = true;
    }
  }
  // --host reads the loopback transport's ring, which holds about 20 s of frames.
  usage_error =
      usage_error || (options.host && options.seconds > 15) || (options.unpinned && !options.host);
  if (usage_error) {
    std::fprintf(stderr,
                 "usage: bench_uplink_cost ROWS_FILE [--quick] [--rounds N] [--seconds S] "
                 "[--realtime P] [--host [--unpinned]]\n"
                 "  run it inside tests/vcan/run, or with --host on this machine's kernel;\n"
                 "  default 3 rounds of 10 s per configuration\n");
    return 2;
  }
  try {
    return robot_edge::bench::Run(argv[1], options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_uplink_cost: %s\n", e.what());
    return 1;
  }
}
