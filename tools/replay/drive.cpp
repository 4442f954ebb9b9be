#include "tools/replay/drive.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>
#include <thread>

#include "edge_api.pb.h"

namespace robot_edge::replay {
namespace {

using Clock = std::chrono::steady_clock;
using client::Millis;

std::uint64_t WallMicros() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

client::Client Connect(const DriveOptions& o, const std::string& controller) {
  client::Client c = o.tcp_host.empty()
                         ? client::Client::ConnectUnix(o.socket, Millis(3000))
                         : client::Client::ConnectTcp(o.tcp_host, o.tcp_port, Millis(3000));
  edge::Hello hello;
  hello.set_controller(controller);
  hello.set_token(o.token);
  hello.set_no_telemetry(true);
  c.Hello(hello, Millis(3000));
  return c;
}

// Reads what the daemon sent (events), so that its backlog rule never closes us.
void Drain(std::map<std::uint64_t, std::unique_ptr<client::Client>>& clients) {
  for (auto& [id, c] : clients) {
    while (c->Read(Millis(0))) {
    }
  }
}

}  // namespace

DriveReport Drive(const Recording& r, const DriveOptions& o, std::ostream& out,
                  const std::atomic<bool>& stop) {
  if (r.ChannelOf("/commands") < 0) {
    throw std::runtime_error("the recording has no /commands channel (recorder.channels)");
  }
  std::vector<edge::CommandRecord> records;
  for (const RecordedMessage* m : r.MessagesOf("/commands")) {
    edge::CommandRecord record;
    if (record.ParseFromString(m->data) && record.has_command()) records.push_back(record);
  }
  DriveReport report;
  if (records.empty()) return report;
  const std::uint64_t first_us = records.front().received_us();
  const auto start = Clock::now();
  std::map<std::uint64_t, std::unique_ptr<client::Client>> clients;
  for (edge::CommandRecord& record : records) {
    const auto due = start + std::chrono::microseconds(record.received_us() - first_us);
    while (!stop.load() && Clock::now() < due) {
      Drain(clients);
      std::this_thread::sleep_for(
          std::min<Clock::duration>(due - Clock::now(), std::chrono::milliseconds(2)));
    }
    if (stop.load()) break;
    auto& c = clients[record.client_id()];
    if (!c) {
      c = std::make_unique<client::Client>(Connect(o, record.controller()));
      out << "replay: client " << record.client_id() << " as '" << record.controller() << "'"
          << std::endl;
    }
    // Stamped as sent now with the delay it arrived with: this program running late (a busy
    // machine) does not make a command stale that was fresh, nor a stale one fresh.
    edge::CloudCommand* command = record.mutable_command();
    if (command->timestamp_us() != 0) {
      const std::int64_t delay_us = static_cast<std::int64_t>(record.received_us()) -
                                    static_cast<std::int64_t>(command->timestamp_us());
      command->set_timestamp_us(
          static_cast<std::uint64_t>(static_cast<std::int64_t>(WallMicros()) - delay_us));
    }
    c->Send(*command);
    ++report.commands;
  }
  report.clients = clients.size();
  report.seconds = static_cast<double>(records.back().received_us() - first_us) * 1e-6;
  Drain(clients);
  return report;
}

}  // namespace robot_edge::replay
