// broker.uplink: robot-edge-uplink between the real robot-edged (driving robot-edge-sim on vcan,
// tests/common/robot_rig.hpp) and a real mosquitto (mutual TLS, MQTT 5), with a fleet client
// (libmosquitto, persistent session) recording what arrives. The broker stops for 30 s; the
// uplink is restarted in the middle of the outage, and robot-edged emits events before, during
// (uplink up and uplink down) and after it. Every event robot-edged emitted must arrive on
// `events`, in order, exactly once; the spool's "seq" must rise across events and diagnostics.
#include <gtest/gtest.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

#include "fleet_rig.hpp"
#include "uplink/sha256.hpp"

namespace robot_edge::test {
namespace {

constexpr auto kOutage = 30s;

// CPU time of process `pid` so far (user + system), in seconds.
double CpuSeconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), {});
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string skip;
  for (int i = 0; i < 11; ++i) fields >> skip;  // state .. cmajflt
  double utime = 0, stime = 0;
  fields >> utime >> stime;
  return (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// The command_result on `status` for CloudCommand.sequence `sequence`, "" when none.
std::string ResultOf(const std::vector<Received>& status, std::uint32_t sequence) {
  const std::string key = "\"sequence\":" + std::to_string(sequence) + ",";
  for (const Received& m : status) {
    if (m.payload.find("command_result") != std::string::npos &&
        m.payload.find(key) != std::string::npos) {
      return m.payload;
    }
  }
  return "";
}

// An event from robot-edged: a controller takes control with DAMP and lets go (two
// ControllerEvents: acquired, disconnect).
void MakeEvents(Robot& robot) {
  client::Client c = robot.Connect("cloud");
  const edge::CommandResult r = Command(c, Mode(edge::MODE_DAMP));
  if (!r.accepted()) throw std::runtime_error("DAMP refused: " + r.reason());
}

TEST(BrokerUplink, EveryEventArrivesInOrderOnceAcrossABrokerOutageAndAnUplinkRestart) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const std::string dir = MakeTempDir("uplink-test");
  const std::string pki = dir + "/pki";
  ASSERT_EQ(std::system((std::string(ROBOT_EDGE_UPLINK_PKI) + " " + pki).c_str()), 0);
  const int port = FreePort();
  Robot robot;
  // Events after `base` are the expectation (resume_after_event 0 would resend none: wait for
  // robot-edged's first event, a 1 Hz diagnostics).
  edge::Welcome welcome;
  ASSERT_TRUE(Eventually(
      [&] {
        robot.Connect("", 0, &welcome);
        return welcome.last_event_sequence() > 0;
      },
      10s));
  const std::uint32_t base = welcome.last_event_sequence();
  MosquittoBroker broker = TlsBroker(dir, pki, port);
  broker.Start();
  Fleet fleet(pki, port);
  Uplink uplink(dir, pki, port, robot.api_socket());
  uplink.Start();
  auto on = [&](const std::string& topic) {
    std::vector<Received> out;
    for (Received& m : fleet.Messages()) {
      if (m.topic == "robot-edge/r1/" + topic) out.push_back(std::move(m));
    }
    return out;
  };
  ASSERT_TRUE(Eventually([&] { return !on("telemetry").empty(); }, 20s)) << uplink.Log();

  // A command from the fleet, through the broker, forwarded as `fleet`; its result on status.
  edge::CloudCommand damp = Mode(edge::MODE_DAMP);
  damp.set_sequence(7);
  damp.set_timestamp_us(client::WallClockMicros());
  fleet.Publish("robot-edge/r1/commands", damp.SerializeAsString(), 10);
  std::string result;
  ASSERT_TRUE(Eventually(
      [&] {
        for (const Received& m : on("status")) {
          if (m.payload.find("command_result") != std::string::npos) result = m.payload;
        }
        return !result.empty();
      },
      10s))
      << uplink.Log();
  EXPECT_NE(result.find("\"sequence\":7,\"accepted\":true"), std::string::npos) << result;
  std::printf("fleet -> robot-edged accepted: %s\n", result.c_str());

  MakeEvents(robot);
  broker.Stop();
  std::printf("broker stopped\n");
  const auto outage_start = std::chrono::steady_clock::now();
  MakeEvents(robot);  // spooled by the uplink
  std::this_thread::sleep_for(8s);
  EXPECT_EQ(uplink.Stop(), 0) << uplink.Log();
  MakeEvents(robot);  // no uplink: robot-edged keeps them, the next uplink resumes after them
  std::this_thread::sleep_for(2s);
  uplink.Start();
  std::printf("uplink restarted\n");
  std::this_thread::sleep_for(3s);
  MakeEvents(robot);  // the new uplink spools them
  std::this_thread::sleep_until(outage_start + kOutage);
  broker.Start();
  std::printf("broker restarted\n");
  MakeEvents(robot);

  // What robot-edged emitted since `base` (diagnostics aside), in its order: resent on a new
  // connection (api.event_history keeps 1024).
  std::vector<std::uint32_t> expected;
  client::Client observer = robot.Connect("", base);
  const auto until = std::chrono::steady_clock::now() + 3s;
  while (std::chrono::steady_clock::now() < until) {
    const auto m = observer.Read(100ms);
    if (m && m->has_event() && !m->event().has_diagnostics()) {
      expected.push_back(m->event().sequence());
    }
  }
  ASSERT_GE(expected.size(), 10u);
  // The fleet's view: at-least-once delivery (QoS 1, the spool resent after a restart, the
  // broker's own resend to a persistent session) may repeat a record; the receiver keeps the
  // first of each "seq". Returns the event sequences on `events`, and counts the repeats.
  std::size_t repeats = 0, records = 0;
  std::string order;  // "topic seq" of each record kept, for a failure's message
  auto arrived = [&] {
    std::vector<std::uint32_t> events;
    std::set<std::uint64_t> seen;
    repeats = records = 0;
    order.clear();
    std::uint64_t last = 0;
    for (const Received& m : fleet.Messages()) {
      if (m.seq == 0) continue;  // status, telemetry, the fleet's own command
      if (!seen.insert(m.seq).second) {
        ++repeats;
        continue;
      }
      ++records;
      order += m.topic.substr(m.topic.rfind('/') + 1) + " " + std::to_string(m.seq) + "\n";
      // A new record never comes after a later one: the spool sends oldest first.
      EXPECT_GT(m.seq, last) << order;
      last = m.seq;
      edge::EdgeEvent e;
      if (m.topic == "robot-edge/r1/events" && e.ParseFromString(m.payload)) {
        events.push_back(e.sequence());
      }
    }
    return events;
  };
  Eventually([&] { return arrived().size() >= expected.size(); }, 60s);
  std::this_thread::sleep_for(2s);  // anything more (a duplicate) arrives meanwhile
  const std::vector<std::uint32_t> got = arrived();
  // Events robot-edged emitted before `base` are not expected (the uplink started after them
  // and forwards none of them), so compare from the first expected one.
  auto first = std::find(got.begin(), got.end(), expected.front());
  ASSERT_NE(first, got.end()) << order << uplink.Log();
  // Events robot-edged emits after the observer's 3 s (an alert of a loaded machine) may follow
  // them: the expected ones must all be there, once, in order, before any such.
  const std::vector<std::uint32_t> from_first(first, got.end());
  ASSERT_GE(from_first.size(), expected.size()) << order << uplink.Log();
  EXPECT_EQ(std::vector<std::uint32_t>(from_first.begin(), from_first.begin() + expected.size()),
            expected)
      << order << uplink.Log();
  std::printf(
      "%zu events expected, %zu arrived once each in order; %zu records (events + diagnostics) "
      "kept by seq, %zu repeats dropped by seq\n",
      expected.size(), got.size(), records, repeats);

  // The uplink's cost, steady (telemetry 1 Hz, diagnostics 1 Hz, robot-edged's 10 Hz telemetry
  // read), under this harness (user-mode Linux inflates every system call).
  const double cpu_before = CpuSeconds(uplink.pid());
  std::this_thread::sleep_for(5s);
  std::printf("robot-edge-uplink: %.2f %% of one CPU over 5 s\n",
              (CpuSeconds(uplink.pid()) - cpu_before) / 5.0 * 100.0);
  uplink.Stop();
  if (!testing::Test::HasFailure()) std::filesystem::remove_all(dir);  // else kept: the logs
}

TEST(BrokerUplink, ExpiredCommandsAreDroppedValidOnesForwardedAndAFleetConfigChecked) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const std::string dir = MakeTempDir("uplink-expiry");
  const std::string pki = dir + "/pki";
  ASSERT_EQ(std::system((std::string(ROBOT_EDGE_UPLINK_PKI) + " " + pki).c_str()), 0);
  const int port = FreePort();
  Robot robot;
  MosquittoBroker broker = TlsBroker(dir, pki, port);
  broker.Start();
  Fleet fleet(pki, port);
  // The broker's message expiry alone judges here: the uplink's own bound (max_command_age_ms,
  // fleet_commands_test.cpp) would refuse the valid one too, 3 s old when it arrives.
  Uplink uplink(dir, pki, port, robot.api_socket(), "max_command_age_ms: 30000\n");
  uplink.Start();  // its persistent session subscribes to `commands`
  auto status = [&] {
    std::vector<Received> out;
    for (Received& m : fleet.Messages()) {
      if (m.topic == "robot-edge/r1/status") out.push_back(std::move(m));
    }
    return out;
  };
  ASSERT_TRUE(Eventually([&] { return !status().empty(); }, 20s)) << uplink.Log();
  ASSERT_EQ(uplink.Stop(), 0);
  // While the robot is away, two commands wait in the broker: one expires after 1 s.
  edge::CloudCommand stale = Mode(edge::MODE_DAMP), valid = Mode(edge::MODE_DAMP);
  stale.set_sequence(8);
  stale.set_timestamp_us(client::WallClockMicros());
  valid.set_sequence(9);
  valid.set_timestamp_us(client::WallClockMicros());
  fleet.Publish("robot-edge/r1/commands", stale.SerializeAsString(), 1);
  fleet.Publish("robot-edge/r1/commands", valid.SerializeAsString(), 60);
  std::this_thread::sleep_for(3s);
  uplink.Start();
  ASSERT_TRUE(Eventually([&] { return !ResultOf(status(), 9).empty(); }, 20s)) << uplink.Log();
  EXPECT_NE(ResultOf(status(), 9).find("\"accepted\":true"), std::string::npos)
      << ResultOf(status(), 9);
  std::this_thread::sleep_for(1s);
  EXPECT_EQ(ResultOf(status(), 8), "") << "the expired command reached robot-edged";

  // A fleet config, in DAMP: a valid one is written, but robot-edged refuses to restart for the
  // role `fleet` (not in its api.apply_config_controllers): the file is put back (there was none).
  // An invalid one is refused by key. (config_apply_test.cpp: one applied, one rolled back.)
  auto config_results = [&] {
    std::vector<std::string> out;
    for (const Received& m : status()) {
      if (m.payload.find("config_result") != std::string::npos) out.push_back(m.payload);
    }
    return out;
  };
  ASSERT_TRUE(Eventually(
      [&] {
        for (const Received& m : fleet.Messages()) {
          if (m.topic == "robot-edge/r1/telemetry") return true;
        }
        return false;
      },
      10s));
  const std::string document = ReadFile(robot.dir() + "/robot-edge.yaml");
  fleet.Publish("robot-edge/r1/config", document, 60);
  ASSERT_TRUE(Eventually([&] { return config_results().size() == 1; }, 10s)) << uplink.Log();
  EXPECT_NE(config_results()[0].find("\"applied\":false"), std::string::npos)
      << config_results()[0];
  EXPECT_NE(config_results()[0].find("may not restart robot-edged"), std::string::npos)
      << config_results()[0];
  EXPECT_NE(config_results()[0].find("\"rolled_back\":true"), std::string::npos)
      << config_results()[0];
  EXPECT_FALSE(std::filesystem::exists(dir + "/fleet-robot-edge.yaml"));
  std::string invalid = document;
  invalid.replace(invalid.find("max_command_age_ms: 100"), 23, "max_command_age_ms: 5");
  fleet.Publish("robot-edge/r1/config", invalid, 60);
  ASSERT_TRUE(Eventually([&] { return config_results().size() == 2; }, 10s)) << uplink.Log();
  EXPECT_NE(config_results()[1].find("{\"key\":\"api.max_command_age_ms\""), std::string::npos)
      << config_results()[1];
  EXPECT_FALSE(std::filesystem::exists(dir + "/fleet-robot-edge.yaml"));  // nothing written
  uplink.Stop();
  if (!testing::Test::HasFailure()) std::filesystem::remove_all(dir);  // else kept: the logs
}

// The black box on request: robot-edged writes one (OP_BLACKBOX_SAVE, 3 s after the trigger), the
// fleet asks for it while it is written (refused), then once closed (uploaded to put_server.py on
// 127.0.0.1: the stored bytes are the file's, the sha256 on `status` too); a traversal is refused;
// the new black box is announced (upload.announce: all), and so is one written while the uplink
// was stopped, once it is back.
TEST(BrokerUplink, ABlackBoxIsUploadedWhenClosedAndTheResultArrivesOnStatus) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const std::string dir = MakeTempDir("uplink-upload");
  const std::string pki = dir + "/pki";
  ASSERT_EQ(std::system((std::string(ROBOT_EDGE_UPLINK_PKI) + " " + pki).c_str()), 0);
  std::filesystem::create_directory(dir + "/got");
  const int port = FreePort(), http_port = FreePort();
  Child server({"/usr/bin/python3", ROBOT_EDGE_PUT_SERVER, dir + "/got", "--port",
                std::to_string(http_port)},
               dir + "/put-server");
  RobotOptions o;
  o.config_edits = {{"black_box_seconds: 30", "black_box_seconds: 2 "},  // recordings/: the rig's
                    {"black_box_after_seconds: 5", "black_box_after_seconds: 3"}};
  Robot robot(o);
  MosquittoBroker broker = TlsBroker(dir, pki, port);
  broker.Start();
  Fleet fleet(pki, port);
  Uplink uplink(dir, pki, port, robot.api_socket(),
                "upload:\n  announce: all\n  allow_plain_http_loopback: true\n");
  uplink.Start();
  auto status = [&](const std::string& needle) {
    for (const Received& m : fleet.Messages()) {
      if (m.topic == "robot-edge/r1/status" && m.payload.find(needle) != std::string::npos) {
        return m.payload;
      }
    }
    return std::string();
  };
  ASSERT_TRUE(Eventually([&] { return !status("\"online\"").empty(); }, 20s)) << uplink.Log();
  ASSERT_TRUE(Eventually([&] { return PortOpen(http_port); }, 10s)) << server.Stderr();
  const std::string url = "http://127.0.0.1:" + std::to_string(http_port) + "/b/box.mcap?sig=1";
  auto ask = [&](const std::string& id, const std::string& file) {
    fleet.Publish("robot-edge/r1/blackbox",
                  R"({"type":"upload","id":")" + id + R"(","file":")" + file + R"(","url":")" +
                      url + R"(","expires_at":)" +
                      std::to_string(client::WallClockMicros() / 1'000'000 + 600) + "}",
                  60);
  };

  client::Client c = robot.Connect("cloud");
  edge::RecorderRequest save;
  save.set_request_id(1);
  save.set_op(edge::RecorderRequest::OP_BLACKBOX_SAVE);
  save.set_reason("fleet-test");
  const auto saving = c.Record(save, 5s);
  ASSERT_TRUE(saving && saving->ok()) << (saving ? saving->error() : "no answer");
  ask("while-written", "latest");
  ASSERT_TRUE(Eventually([&] { return !status("while-written").empty(); }, 10s)) << uplink.Log();
  EXPECT_NE(status("while-written").find("still writing"), std::string::npos)
      << status("while-written");

  edge::RecorderRequest ask_status;
  ask_status.set_request_id(2);
  ask_status.set_op(edge::RecorderRequest::OP_STATUS);
  ASSERT_TRUE(Eventually(
      [&] {
        const auto s = c.Record(ask_status, 5s);
        return s && !s->status().black_box_writing() && s->status().black_box_written() == 1;
      },
      20s));
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(robot.dir() + "/recordings")) {
    files.push_back(e.path().string());
  }
  ASSERT_EQ(files.size(), 1u);
  const std::string bytes = ReadFile(files[0]);
  ask("closed", "latest");
  ask("traversal", "../robot-edge.yaml");
  ASSERT_TRUE(Eventually(
      [&] { return status("\"state\":\"ok\"").find("closed") != std::string::npos; }, 20s))
      << uplink.Log();
  const std::string ok = status("\"state\":\"ok\"");
  const std::string sha = uplink::Hex(uplink::Sha256Of(bytes));
  EXPECT_NE(ok.find("\"sha256\":\"" + sha + "\""), std::string::npos) << ok;
  EXPECT_NE(ok.find("\"bytes\":" + std::to_string(bytes.size())), std::string::npos) << ok;
  EXPECT_EQ(uplink::Hex(uplink::Sha256Of(ReadFile(dir + "/got/box.mcap"))), sha);
  EXPECT_NE(status("traversal").find("\"state\":\"error\""), std::string::npos)
      << status("traversal");
  ASSERT_TRUE(Eventually([&] { return !status("\"type\":\"blackbox\"").empty(); }, 10s));
  EXPECT_NE(status("\"type\":\"blackbox\"").find(sha), std::string::npos)
      << status("\"type\":\"blackbox\"");
  // The retained status counts the two refusals (written, traversal).
  EXPECT_TRUE(Eventually([&] { return !status("\"upload_failures\":2").empty(); }, 5s))
      << uplink.Log();
  std::printf("upload reported: %s\n", ok.c_str());

  // A black box written while the uplink is down is announced when it comes back (the set it
  // had seen is kept in <spool.dir>/announced); the one announced before is not announced again.
  ASSERT_EQ(uplink.Stop(), 0);
  const std::string first = std::filesystem::path(files[0]).filename().string();
  save.set_request_id(3);
  const auto saving_again = c.Record(save, 5s);
  ASSERT_TRUE(saving_again && saving_again->ok()) << (saving_again ? saving_again->error() : "");
  ASSERT_TRUE(Eventually(
      [&] {
        const auto s = c.Record(ask_status, 5s);
        return s && !s->status().black_box_writing() && s->status().black_box_written() == 2;
      },
      20s));
  std::string second;
  for (const auto& e : std::filesystem::directory_iterator(robot.dir() + "/recordings")) {
    if (e.path().filename().string() != first) second = e.path().filename().string();
  }
  ASSERT_FALSE(second.empty());
  auto announcements = [&](const std::string& file) {
    int n = 0;
    for (const Received& m : fleet.Messages()) {
      n += m.topic == "robot-edge/r1/status" &&
           m.payload.find("\"type\":\"blackbox\"") != std::string::npos &&
           m.payload.find("\"file\":\"" + file + "\"") != std::string::npos;
    }
    return n;
  };
  uplink.Start();
  EXPECT_TRUE(Eventually([&] { return announcements(second) == 1; }, 20s)) << uplink.Log();
  std::this_thread::sleep_for(1s);
  EXPECT_EQ(announcements(first), 1);
  uplink.Stop();
  if (!testing::Test::HasFailure()) std::filesystem::remove_all(dir);  // else kept: the logs
}

}  // namespace
}  // namespace robot_edge::test
