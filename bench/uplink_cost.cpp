// What robot-edge-uplink costs on the robot: robot-edged driving robot-edge-sim on vcan (the test
// rig), a local mosquitto with mutual TLS (tests/uplink/make_test_pki.sh) standing in for the
// fleet's broker, and, in turn, in the same run: no uplink, the uplink at telemetry 1 Hz (the
// default) and at 10 Hz. Each round runs the three; the rounds repeat them (UML is noisy).
// Per window:
//   - the uplink's CPU share of one core: /proc/<pid>/stat utime + stime over the window;
//   - robot-edged's control-loop period p99, as bench_peers reads it: joint 0's command frames
//     on the wire (the test rig's BusMonitor);
//   - robot-edged's and mosquitto's CPU shares, and the telemetry messages the broker delivered
//     to a fleet subscriber (the rate the uplink really ran at).
// Goals: the uplink <= 2 % of one CPU, the p99 changed by < 1 %. Under user-mode-linux the broker
// and the subscriber share the robot's one emulated CPU (on a robot the broker is elsewhere), and
// CPU time is charged in 10 ms ticks: read the min and median over the rounds.
//
// Run it inside tests/vcan/run; bench/run does.
// Usage: bench_uplink_cost ROWS_FILE [--quick] [--rounds N] [--seconds S] [--realtime P]
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
  int realtime = 0;  // robot-edged's control thread's SCHED_FIFO priority (0: normal)
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
                              const std::string& socket, double rate) {
  const std::string path = dir + "/uplink-" + Format(rate, 0) + ".yaml";
  std::ofstream(path) << "robot_id: r1\nbroker:\n  host: localhost\n  port: " << port
                      << "\n  ca: " << pki << "/ca.pem\n  cert: " << pki
                      << "/robot.pem\n  key: " << pki << "/robot.key\nspool:\n  dir: " << dir
                      << "/spool\nrobot_edged:\n  socket: " << socket
                      << "\ntelemetry_rate_hz: " << rate << "\n";
  return path;
}

// joint 0's command periods between the two times (steady µs) into `w`.
void Period(const test::BusMonitor& monitor, std::int64_t from_us, std::int64_t to_us, Window* w) {
  std::vector<std::int64_t> t;
  for (const auto& f : monitor.Since(from_us)) {
    if (!f.special && f.t_us <= to_us && monitor.JointOf(f) == 0) t.push_back(f.t_us);
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
Window Measure(test::Robot& robot, test::MosquittoBroker& broker, test::Fleet& fleet,
               const std::string& dir, const std::string& pki, double rate, double seconds) {
  std::unique_ptr<Child> uplink;
  if (rate > 0) {
    const std::string conf = WriteUplinkConfig(dir, pki, broker.port(), robot.api_socket(), rate);
    uplink = std::make_unique<Child>(std::vector<std::string>{ROBOT_EDGE_UPLINK, "--config", conf},
                                     dir + "/uplink-" + Format(rate, 0));
    if (!test::Eventually(
            [&] { return uplink->Stderr().find("broker: connected") != std::string::npos; }, 20s)) {
      throw std::runtime_error("the uplink did not connect:\n" + uplink->Stderr());
    }
  }
  std::this_thread::sleep_for(2s);  // settled: connected, its spool sent
  Window w;
  const std::size_t telemetry0 = TelemetryCount(fleet);
  const double up0 = uplink ? CpuSeconds(uplink->pid()) : 0;
  const double daemon0 = CpuSeconds(robot.daemon_pid());
  const double broker0 = CpuSeconds(broker.pid());
  const std::int64_t t0 = test::NowUs();
  std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int>(seconds * 1000)));
  const std::int64_t t1 = test::NowUs();
  const double span = static_cast<double>(t1 - t0) / 1e6;
  w.uplink_cpu = uplink ? (CpuSeconds(uplink->pid()) - up0) / span : 0;
  w.daemon_cpu = (CpuSeconds(robot.daemon_pid()) - daemon0) / span;
  w.broker_cpu = (CpuSeconds(broker.pid()) - broker0) / span;
  w.telemetry_hz = static_cast<double>(TelemetryCount(fleet) - telemetry0) / span;
  Period(robot.monitor(), t0, t1, &w);
  if (w.uplink_cpu > 0.05) {  // an outlier: what the uplink was doing
    const std::string log = uplink->Stderr();
    std::fprintf(stderr, "  the uplink used %.1f %% of a CPU; its log ends:\n%s\n",
                 100 * w.uplink_cpu, log.substr(log.size() > 2000 ? log.size() - 2000 : 0).c_str());
  }
  if (uplink && uplink->Stop(SIGTERM, 10s) != 0) {
    std::fprintf(stderr, "the uplink did not stop cleanly:\n%s\n", uplink->Stderr().c_str());
  }
  std::this_thread::sleep_for(1s);  // its last will / offline status handled
  return w;
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
                      const std::string& source) {
  auto column = [&](double rate, double Window::*field) {
    std::vector<double> v;
    for (const Window& w : by_rate.at(rate)) v.push_back(w.*field);
    return v;
  };
  const std::string runs = std::to_string(options.rounds) + " rounds of " +
                           Format(options.seconds, 0) +
                           " s, the three in turn in each; robot-edged's control thread at " +
                           (options.realtime > 0 ? "SCHED_FIFO " + std::to_string(options.realtime)
                                                 : std::string("normal priority"));
  std::vector<Row> rows;
  const double base_p99 = Median(column(0, &Window::period_p99_us));
  const auto base = column(0, &Window::period_p99_us);
  rows.push_back({kSection, "no uplink: loop period p99, spread between rounds (the noise floor)",
                  Format(100 * (Max(base) - Min(base)) / base_p99, 1), "", "% of the median", "",
                  source, "(max - min) / median: a change smaller than this is not seen"});
  for (const double rate : kRates) {
    const std::string name = Name(rate);
    const auto p99 = column(rate, &Window::period_p99_us);
    rows.push_back(
        {kSection, name + ": loop period p99, min / median / max",
         Format(Min(p99), 0) + " / " + Format(Median(p99), 0) + " / " + Format(Max(p99), 0), "",
         "µs", "", source, "joint 0's command frames on the wire (500 Hz); " + runs});
    const auto daemon = column(rate, &Window::daemon_cpu);
    rows.push_back({kSection, name + ": robot-edged's CPU, min / median",
                    Format(100 * Min(daemon), 1) + " / " + Format(100 * Median(daemon), 1), "",
                    "% of one CPU", "", source, "/proc/<pid>/stat over each window"});
    const auto broker = column(rate, &Window::broker_cpu);
    rows.push_back({kSection, name + ": mosquitto's CPU (the local stand-in broker), median",
                    Format(100 * Median(broker), 1), "", "% of one CPU", "", source,
                    "on a robot the broker is elsewhere"});
    if (rate == 0) continue;
    const auto cpu = column(rate, &Window::uplink_cpu);
    const double median_cpu = 100 * Median(cpu);
    rows.push_back({kSection, name + ": robot-edge-uplink's CPU, min / median / max",
                    Format(100 * Min(cpu), 2) + " / " + Format(median_cpu, 2) + " / " +
                        Format(100 * Max(cpu), 2),
                    "≤ 2", "% of one CPU", median_cpu <= 2 ? "ok" : "MISS", source,
                    "utime + stime over each window; the verdict on the median"});
    const double change = 100 * (Median(p99) - base_p99) / base_p99;
    rows.push_back({kSection, name + ": loop period p99 change against no uplink (medians)",
                    Format(change, 2), "< 1", "%", std::fabs(change) < 1 ? "ok" : "MISS", source,
                    "median p99 with it over the median without"});
    rows.push_back({kSection, name + ": telemetry delivered to the fleet, median",
                    Format(Median(column(rate, &Window::telemetry_hz)), 2), "", "Hz", "", source,
                    "messages a fleet subscriber received over each window"});
  }
  return rows;
}

int Run(const std::string& rows_file, const Options& options) {
  const char* harness = std::getenv("ROBOT_EDGE_VCAN_HARNESS");
  const std::string source =
      harness != nullptr && std::string(harness) == "uml" ? "vcan/UML" : "vcan/kernel";
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
  test::RobotOptions robot_options;
  robot_options.config_edits = {{"priority: 0 ", "priority: " + std::to_string(o.realtime) + " "}};
  test::Robot robot(robot_options);
  {
    auto c = robot.Connect("");
    if (!test::MotorsReady(c)) throw std::runtime_error("motors not ready");
  }
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
  const std::vector<Row> rows = Rows(by_rate, o, source);
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
  if (usage_error) {
    std::fprintf(stderr,
                 "usage: bench_uplink_cost ROWS_FILE [--quick] [--rounds N] [--seconds S] "
                 "[--realtime P]\n"
                 "  run it inside tests/vcan/run; default 3 rounds of 10 s per configuration\n");
    return 2;
  }
  try {
    return robot_edge::bench::Run(argv[1], options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_uplink_cost: %s\n", e.what());
    return 1;
  }
}
