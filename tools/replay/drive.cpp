#include "tools/replay/drive.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>
#include <thread>
#include <utility>

#include "edge_api.pb.h"

namespace robot_edge::replay {
namespace {

using Clock = std::chrono::steady_clock;
using client::Millis;

// Time to wait, after the last command, for the answers to what was sent.
constexpr auto kResultGrace = std::chrono::seconds(2);

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
  hello.set_want_command_results(true);
  c.Hello(hello, Millis(3000));
  return c;
}

// A recorded client's connection and the commands it sent whose answer has not come yet.
struct Driven {
  std::unique_ptr<client::Client> client;
  std::size_t unanswered = 0;
};

using Outcomes = std::map<std::pair<std::uint64_t, std::uint32_t>, bool>;  // (client, seq)

// What the daemon answered each recorded command: a CommandRecord is decided when it arrives or
// in a later result-only record of the same client and sequence.
Outcomes RecordedOutcomes(const Recording& r) {
  Outcomes outcomes;
  for (const RecordedMessage* m : r.MessagesOf("/commands")) {
    edge::CommandRecord record;
    if (record.ParseFromString(m->data) && record.decided()) {
      outcomes[{record.client_id(), record.sequence()}] = record.accepted();
    }
  }
  return outcomes;
}

// Reads what the daemon sent (events, results) so that its backlog rule never closes us, and
// counts the answers.
void Drain(std::map<std::uint64_t, Driven>& clients, const Outcomes& recorded,
           DriveReport* report) {
  for (auto& [id, d] : clients) {
    while (auto m = d.client->Read(Millis(0))) {
      if (!m->has_command_result()) continue;
      const edge::CommandResult& result = m->command_result();
      if (d.unanswered > 0) --d.unanswered;
      report->accepted += result.accepted();
      const auto it = recorded.find({id, result.sequence()});
      if (it != recorded.end() && it->second != result.accepted()) ++report->answered_otherwise;
    }
  }
}

bool AllAnswered(const std::map<std::uint64_t, Driven>& clients) {
  return std::all_of(clients.begin(), clients.end(),
                     [](const auto& entry) { return entry.second.unanswered == 0; });
}

}  // namespace

// Asks robot-edged, as an observer, whether it drives a simulator; refuses a real robot unless
// told otherwise.
void RefuseARealRobot(const DriveOptions& o) {
  if (o.real_robot) return;
  client::Client c = o.tcp_host.empty()
                         ? client::Client::ConnectUnix(o.socket, Millis(3000))
                         : client::Client::ConnectTcp(o.tcp_host, o.tcp_port, Millis(3000));
  edge::Hello hello;
  hello.set_no_telemetry(true);
  const edge::Welcome welcome = c.Hello(hello, Millis(3000));
  if (!welcome.simulated()) {
    throw std::runtime_error(
        "robot-edged (" + welcome.robot_name() +
        ") drives real CAN buses, not a simulator's vcan: replayed commands, stamped as sent "
        "now, would move the robot. Nothing was sent; give --real-robot to drive it anyway");
  }
}

DriveReport Drive(const Recording& r, const DriveOptions& o, std::ostream& out,
                  const std::atomic<bool>& stop) {
  if (r.ChannelOf("/commands") < 0) {
    throw std::runtime_error("the recording has no /commands channel (recorder.channels)");
  }
  RefuseARealRobot(o);
  std::vector<edge::CommandRecord> records;
  for (const RecordedMessage* m : r.MessagesOf("/commands")) {
    edge::CommandRecord record;
    if (record.ParseFromString(m->data) && record.has_command()) records.push_back(record);
  }
  DriveReport report;
  if (records.empty()) return report;
  const Outcomes recorded = RecordedOutcomes(r);
  for (const edge::CommandRecord& record : records) {
    report.recorded_accepted += recorded.contains({record.client_id(), record.sequence()}) &&
                                recorded.at({record.client_id(), record.sequence()});
  }
  const std::uint64_t first_us = records.front().received_us();
  std::map<std::uint64_t, Driven> clients;
  auto driven_for = [&](const edge::CommandRecord& record) -> Driven& {
    Driven& d = clients[record.client_id()];
    if (!d.client) {
      d.client = std::make_unique<client::Client>(Connect(o, record.controller()));
      out << "replay: client " << record.client_id() << " as '" << record.controller() << "'"
          << std::endl;
    }
    return d;
  };
  // The first client connects before the clock starts: its Hello (milliseconds, or hundreds on a
  // loaded machine) would otherwise delay the first command but not the rest, and shorten the
  // run's first phase by that much.
  driven_for(records.front());
  const auto start = Clock::now();
  for (edge::CommandRecord& record : records) {
    const auto due = start + std::chrono::microseconds(record.received_us() - first_us);
    while (!stop.load() && Clock::now() < due) {
      Drain(clients, recorded, &report);
      std::this_thread::sleep_for(
          std::min<Clock::duration>(due - Clock::now(), std::chrono::milliseconds(2)));
    }
    if (stop.load()) break;
    Driven& d = driven_for(record);
    // Stamped as sent now with the delay it arrived with: this program running late (a busy
    // machine) does not make a command stale that was fresh, nor a stale one fresh.
    edge::CloudCommand* command = record.mutable_command();
    if (command->timestamp_us() != 0) {
      const std::int64_t delay_us = static_cast<std::int64_t>(record.received_us()) -
                                    static_cast<std::int64_t>(command->timestamp_us());
      command->set_timestamp_us(
          static_cast<std::uint64_t>(static_cast<std::int64_t>(WallMicros()) - delay_us));
    }
    d.client->Send(*command);
    ++d.unanswered;
    ++report.commands;
    report.max_late_ms = std::max(
        report.max_late_ms, std::chrono::duration<double, std::milli>(Clock::now() - due).count());
  }
  report.clients = clients.size();
  report.seconds = static_cast<double>(records.back().received_us() - first_us) * 1e-6;
  const auto give_up = Clock::now() + kResultGrace;
  for (Drain(clients, recorded, &report); !AllAnswered(clients) && Clock::now() < give_up;
       Drain(clients, recorded, &report)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  for (const auto& [id, d] : clients) report.unanswered += d.unanswered;
  return report;
}

}  // namespace robot_edge::replay
