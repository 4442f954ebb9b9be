#include "tools/replay/serve.hpp"

#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "live/live_server.hpp"

namespace robot_edge::replay {
namespace {

using Clock = std::chrono::steady_clock;

// Sleeps until `until`, in slices, so that `stop` is seen within 50 ms. False when stopped.
bool SleepUntil(Clock::time_point until, const std::atomic<bool>& stop) {
  while (!stop.load()) {
    const auto now = Clock::now();
    if (now >= until) return true;
    std::this_thread::sleep_for(
        std::min<Clock::duration>(until - now, std::chrono::milliseconds(50)));
  }
  return false;
}

std::string RobotDocumentOf(const Recording& r, const ServeOptions& o) {
  if (!o.robot_document.empty()) return o.robot_document;
  const auto it = r.metadata.find("robot_document");
  if (it != r.metadata.end() && it->second.count("json")) return it->second.at("json");
  throw std::runtime_error(
      "the recording has no robot description (metadata robot_document, written by robot-edged "
      "since the live view): give --config ROBOT.yaml");
}

// One pass over the recording; false when stopped.
bool PlayOnce(const Recording& r, const std::vector<std::uint32_t>& ids, double speed,
              live::LiveServer& server, std::ostream& out, const std::atomic<bool>& stop) {
  const std::uint64_t t0 = r.messages.front().log_time_ns;
  const auto start = Clock::now();
  std::uint64_t next_report_ns = 0;
  for (const RecordedMessage& m : r.messages) {
    const auto offset = std::chrono::nanoseconds(
        static_cast<std::int64_t>(static_cast<double>(m.log_time_ns - t0) / speed));
    if (!SleepUntil(start + offset, stop)) return false;
    server.Publish(ids[m.channel], m.log_time_ns, m.data);
    if (m.log_time_ns - t0 >= next_report_ns) {
      out << "replay: t = " << (m.log_time_ns - t0) / 1'000'000'000 << " s" << std::endl;
      next_report_ns += 10'000'000'000;
    }
  }
  return true;
}

}  // namespace

void Serve(const Recording& r, const ServeOptions& o, std::ostream& out,
           const std::atomic<bool>& stop) {
  if (r.messages.empty()) throw std::runtime_error("the recording holds no message");
  live::LiveServer server(o.live);
  server.SetDocument("/robot.json", "application/json", RobotDocumentOf(r, o));
  std::vector<std::uint32_t> ids;
  for (const RecordedChannel& c : r.channels) {
    ids.push_back(server.AddChannel(
        {c.topic, c.message_encoding, c.schema_name, c.schema_encoding, c.schema}));
  }
  server.Start();
  const std::string host =
      o.live.address.find(':') != std::string::npos ? "[" + o.live.address + "]" : o.live.address;
  const std::string where = host + ":" + std::to_string(server.port());
  out << "replay: serving on http://" << where << "/ (dashboard) and ws://" << where
      << " (Foxglove)" << std::endl;
  const double seconds =
      static_cast<double>(r.messages.back().log_time_ns - r.messages.front().log_time_ns) * 1e-9;
  out << "replay: " << r.messages.size() << " messages over " << seconds << " s on "
      << r.channels.size() << " channels" << (r.complete ? "" : " (the file is cut short)")
      << std::endl;
  if (o.wait_for_viewer) {
    out << "replay: waiting for a viewer" << std::endl;
    while (!stop.load() && server.stats().clients == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    SleepUntil(Clock::now() + std::chrono::seconds(1), stop);  // its subscriptions
  }
  do {
    if (!PlayOnce(r, ids, o.speed, server, out, stop)) break;
    out << "replay: end of the recording" << std::endl;
  } while (o.loop && !stop.load());
  SleepUntil(Clock::now() + std::chrono::milliseconds(500), stop);  // the last frames go out
  server.Stop();
}

}  // namespace robot_edge::replay
