// broker.uplink_fleet_door: the uplink's fleet -> robot door (uplink/command_gate.hpp, issue 38
// C1) against a real mosquitto with mutual TLS, the real robot-edge-uplink and the test as the
// fleet. What a fleet leaves on the broker (retained) or what waited there while the uplink was
// down is refused and reported on `status`; a message larger than broker.max_packet_kib never
// reaches the uplink's memory; a fresh command still passes (the positive control). Then the
// TLS side: a broker certificate the uplink refuses is logged, a readable broker.key warned.
//
// No robot-edged runs: the uplink answers every command it would send to robot-edged with
// "robot-edged unreachable", and every command it refused itself with "dropped_by":"uplink". So
// a refused command is one that never went towards robot-edged, and a command that passed the
// gate is seen too (broker.uplink forwards fresh ones to the real robot-edged).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fleet_rig.hpp"
#include "uplink/options.hpp"

namespace robot_edge::test {
namespace {

constexpr std::int64_t kHourUs = 3'600'000'000;
const std::string kCommands = "robot-edge/r1/commands";
const std::string kConfig = "robot-edge/r1/config";
const std::string kBlackbox = "robot-edge/r1/blackbox";

std::int64_t WallUs() { return static_cast<std::int64_t>(client::WallClockMicros()); }

std::string Stand(std::uint32_t sequence, std::int64_t stamp_us) {
  edge::CloudCommand c;
  c.mutable_mode()->set_mode(edge::MODE_STAND);
  c.set_sequence(sequence);
  c.set_timestamp_us(static_cast<std::uint64_t>(stamp_us));
  return c.SerializeAsString();
}

std::string UploadRequest(const std::string& id) {
  return R"({"type":"upload","id":")" + id +
         R"(","file":"latest","url":"https://example.com/b?sig=1","expires_at":)" +
         std::to_string(WallUs() / 1'000'000 + 600) + "}";
}

// The `status` documents containing every one of `needles`.
std::vector<std::string> StatusWith(Fleet& fleet, const std::vector<std::string>& needles) {
  std::vector<std::string> out;
  for (const Received& m : fleet.Messages()) {
    if (m.topic != "robot-edge/r1/status") continue;
    bool all = true;
    for (const std::string& n : needles) all = all && m.payload.find(n) != std::string::npos;
    if (all) out.push_back(m.payload);
  }
  return out;
}

// The command_results for CloudCommand.sequence `sequence` (robot-edged's or the uplink's).
std::vector<std::string> ResultsOf(Fleet& fleet, std::uint32_t sequence) {
  return StatusWith(fleet, {"command_result", "\"sequence\":" + std::to_string(sequence) + ","});
}

// Publishes, then waits until the fleet's own subscription got it back: the broker has it.
void PublishSeen(Fleet& fleet, const std::string& topic, const std::string& payload,
                 bool retain = false) {
  auto seen = [&] {
    std::size_t n = 0;
    for (const Received& m : fleet.Messages()) n += m.topic == topic && m.payload == payload;
    return n;
  };
  const std::size_t before = seen();
  fleet.Publish(topic, payload, 600, retain);
  ASSERT_TRUE(Eventually([&] { return seen() > before; }, 20s)) << "the broker never had it";
}

// Waits for the command_result of `sequence`: every message the broker delivered to the uplink
// before it has been handled (one session, in order; status reports leave through the spool in
// order).
void Barrier(Fleet& fleet, Uplink& uplink, std::uint32_t sequence) {
  PublishSeen(fleet, kCommands, Stand(sequence, WallUs() - kHourUs));
  ASSERT_TRUE(Eventually([&] { return !ResultsOf(fleet, sequence).empty(); }, 30s)) << uplink.Log();
}

// The command reached the point where the uplink sends it to robot-edged (none runs here).
bool Passed(const std::string& result) {
  return result.find("robot-edged unreachable") != std::string::npos &&
         result.find("dropped_by") == std::string::npos;
}

// The peak resident set of process `pid` (VmHWM), in KiB.
long PeakRssKib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// Retained STANDs, configurations and upload requests: one left before the robot's first
// session (the broker keeps it back: "do not send retained"), one published while the uplink
// was down (queued in its session with its retain flag: refused and reported), and neither
// comes again when the uplink restarts. max_command_age_ms 60000: the retain flag alone judges.
TEST(BrokerUplinkFleetDoor, RetainedCommandsConfigsAndRequestsAreNeverActedOn) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const std::string dir = MakeTempDir("uplink-retained");
  const std::string pki = dir + "/pki";
  ASSERT_EQ(std::system((std::string(ROBOT_EDGE_UPLINK_PKI) + " " + pki).c_str()), 0);
  const int port = FreePort();
  MosquittoBroker broker = TlsBroker(dir, pki, port);
  broker.Start();
  Fleet fleet(pki, port);
  Uplink uplink(dir, pki, port, dir + "/no-robot-edged.sock", "max_command_age_ms: 60000\n");
  const std::string document = "robot_name: from-the-fleet\n";
  auto retained_reports = [&] { return StatusWith(fleet, {"retained message ignored"}); };

  // Left on the broker before the robot ever connected: never delivered.
  PublishSeen(fleet, kCommands, Stand(11, WallUs()), true);
  PublishSeen(fleet, kConfig, document, true);
  PublishSeen(fleet, kBlackbox, UploadRequest("left-before"), true);
  uplink.Start();
  // Its first session: subscribed once its "online" is out (SUBSCRIBE went first).
  ASSERT_TRUE(Eventually([&] { return !StatusWith(fleet, {"\"online\""}).empty(); }, 20s))
      << uplink.Log();
  Barrier(fleet, uplink, 12);
  EXPECT_TRUE(ResultsOf(fleet, 11).empty()) << ResultsOf(fleet, 11)[0];
  EXPECT_TRUE(StatusWith(fleet, {"config_result"}).empty()) << uplink.Log();
  EXPECT_TRUE(StatusWith(fleet, {"left-before"}).empty()) << uplink.Log();
  EXPECT_TRUE(retained_reports().empty()) << uplink.Log();

  // Published retained while the uplink is down: queued in its session, refused, reported.
  ASSERT_EQ(uplink.Stop(), 0);
  PublishSeen(fleet, kCommands, Stand(13, WallUs()), true);
  PublishSeen(fleet, kConfig, document, true);
  PublishSeen(fleet, kBlackbox, UploadRequest("left-while-away"), true);
  uplink.Start();
  Barrier(fleet, uplink, 14);
  ASSERT_EQ(ResultsOf(fleet, 13).size(), 1u) << uplink.Log();
  const std::string stand = ResultsOf(fleet, 13)[0];
  EXPECT_NE(stand.find("\"accepted\":false,\"dropped_by\":\"uplink\""), std::string::npos) << stand;
  EXPECT_NE(stand.find("retained message ignored"), std::string::npos) << stand;
  EXPECT_NE(stand.find("\"retained\":true"), std::string::npos) << stand;
  const auto configs = StatusWith(fleet, {"config_result"});
  ASSERT_EQ(configs.size(), 1u) << uplink.Log();
  EXPECT_NE(configs[0].find("\"applied\":false,\"reason\":\"retained message ignored"),
            std::string::npos)
      << configs[0];
  const auto upload = StatusWith(fleet, {"left-while-away"});
  ASSERT_EQ(upload.size(), 1u) << uplink.Log();
  EXPECT_NE(upload[0].find("\"state\":\"error\""), std::string::npos) << upload[0];
  EXPECT_NE(upload[0].find("retained message ignored"), std::string::npos) << upload[0];
  EXPECT_EQ(retained_reports().size(), 3u);

  // Restarted: the broker holds both retained sets and sends neither again.
  ASSERT_EQ(uplink.Stop(), 0);
  uplink.Start();
  Barrier(fleet, uplink, 15);
  EXPECT_EQ(retained_reports().size(), 3u) << Joined(retained_reports());
  EXPECT_TRUE(ResultsOf(fleet, 11).empty());
  EXPECT_FALSE(std::filesystem::exists(dir + "/fleet-robot-edge.yaml"));
  std::printf("refused retained messages:\n%s", Joined(retained_reports()).c_str());
  uplink.Stop();
  if (!testing::Test::HasFailure()) std::filesystem::remove_all(dir);  // else kept: the logs
}

// Commands that waited in the broker while the uplink was down (one fresh when sent, one stamped
// an hour before), and one stamped 30 s ahead: refused by age on the uplink's clock, reported
// with it. Then a 24 MiB message: the broker keeps it back (broker.max_packet_kib) and the
// uplink's peak RSS does not move. Then a fresh STAND passes (the positive control).
TEST(BrokerUplinkFleetDoor, OldQueuedAndFutureCommandsAreRefusedOversizeNeverArrivesFreshPasses) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const std::string dir = MakeTempDir("uplink-age");
  const std::string pki = dir + "/pki";
  ASSERT_EQ(std::system((std::string(ROBOT_EDGE_UPLINK_PKI) + " " + pki).c_str()), 0);
  const int port = FreePort();
  MosquittoBroker broker = TlsBroker(dir, pki, port);
  broker.Start();
  // The fleet asks for the uplink's packet bound too: it never holds the big message itself.
  Fleet fleet(pki, port, uplink::kDefaultMaxPacketKib * 1024);
  // max_command_age_ms: the default, 1000.
  Uplink uplink(dir, pki, port, dir + "/no-robot-edged.sock");
  uplink.Start();  // its persistent session subscribes
  ASSERT_TRUE(Eventually([&] { return !StatusWith(fleet, {"\"online\""}).empty(); }, 20s))
      << uplink.Log();
  ASSERT_EQ(uplink.Stop(), 0);

  const std::int64_t queued_at = WallUs();
  PublishSeen(fleet, kCommands, Stand(21, queued_at));
  PublishSeen(fleet, kCommands, Stand(22, queued_at - kHourUs));
  // Longer than the bound (1 s) before the uplink is back.
  std::this_thread::sleep_for(
      std::chrono::microseconds(std::max<std::int64_t>(0, queued_at + 2'500'000 - WallUs())));
  uplink.Start();
  PublishSeen(fleet, kCommands, Stand(23, WallUs() + 30'000'000));
  ASSERT_TRUE(Eventually([&] { return !ResultsOf(fleet, 23).empty(); }, 30s)) << uplink.Log();
  auto age_us = [](const std::string& result) {
    const std::size_t at = result.find("\"age_us\":");
    return at == std::string::npos ? 0 : std::stoll(result.substr(at + 9));
  };
  for (const std::uint32_t s : {21u, 22u, 23u}) {
    ASSERT_EQ(ResultsOf(fleet, s).size(), 1u) << s << "\n" << uplink.Log();
    EXPECT_NE(ResultsOf(fleet, s)[0].find("\"dropped_by\":\"uplink\""), std::string::npos)
        << ResultsOf(fleet, s)[0];
  }
  const std::string queued = ResultsOf(fleet, 21)[0], old = ResultsOf(fleet, 22)[0],
                    ahead = ResultsOf(fleet, 23)[0];
  EXPECT_NE(queued.find("command too old"), std::string::npos) << queued;
  EXPECT_GE(age_us(queued), 2'500'000) << queued;
  EXPECT_GE(age_us(old), kHourUs) << old;
  EXPECT_NE(ahead.find("ahead of the uplink's clock"), std::string::npos) << ahead;
  EXPECT_LT(age_us(ahead), -1'000'000) << ahead;
  std::printf("refused by age:\n%s\n%s\n%s\n", queued.c_str(), old.c_str(), ahead.c_str());

  // 24 MiB on `commands`: over broker.max_packet_kib (272), the broker drops it for the uplink.
  const long peak_before_kib = PeakRssKib(uplink.pid());
  fleet.Publish(kCommands, std::string(24u << 20, '\0'), 600);
  // After it (the fleet's connection and the uplink's session keep the order), fresh STANDs
  // until one passes the gate (the positive control): one sent while the broker still takes
  // the big message in may wait long enough to be refused as too old, rightly.
  std::string passed;
  for (std::uint32_t s = 31; s < 41 && passed.empty(); ++s) {
    fleet.Publish(kCommands, Stand(s, WallUs()), 600);
    ASSERT_TRUE(Eventually([&] { return !ResultsOf(fleet, s).empty(); }, 30s)) << uplink.Log();
    if (Passed(ResultsOf(fleet, s)[0])) passed = ResultsOf(fleet, s)[0];
  }
  EXPECT_FALSE(passed.empty()) << Joined(StatusWith(fleet, {"command_result"}));
  const long peak_after_kib = PeakRssKib(uplink.pid());
  EXPECT_LT(peak_after_kib - peak_before_kib, 8 * 1024)
      << "the uplink's peak RSS grew from " << peak_before_kib << " to " << peak_after_kib
      << " KiB";
  EXPECT_TRUE(StatusWith(fleet, {"not a CloudCommand"}).empty());
  std::printf("fresh STAND: %s\nuplink peak RSS %ld KiB before the 24 MiB message, %ld after\n",
              passed.c_str(), peak_before_kib, peak_after_kib);
  uplink.Stop();
  if (!testing::Test::HasFailure()) std::filesystem::remove_all(dir);  // else kept: the logs
}

TEST(BrokerUplinkFleetDoor, ARefusedBrokerCertificateIsLoggedAndAReadableKeyWarned) {
  const std::string dir = MakeTempDir("uplink-tls");
  const std::string pki = dir + "/pki";
  ASSERT_EQ(std::system((std::string(ROBOT_EDGE_UPLINK_PKI) + " " + pki).c_str()), 0);
  // The uplink's files, but a CA that did not sign the broker's certificate.
  const std::string wrong = dir + "/wrong-ca";
  std::filesystem::create_directory(wrong);
  for (const char* f : {"robot.pem", "robot.key"}) {
    std::filesystem::copy_file(pki + "/" + f, wrong + "/" + f);
  }
  std::filesystem::copy_file(pki + "/other.pem", wrong + "/ca.pem");
  ASSERT_EQ(::chmod((wrong + "/robot.key").c_str(), 0644), 0);
  const int port = FreePort();
  MosquittoBroker broker = TlsBroker(dir, pki, port);
  broker.Start();
  Uplink uplink(dir, wrong, port, dir + "/no-robot-edged.sock");
  uplink.Start();
  ASSERT_TRUE(Eventually(
      [&] {
        return uplink.Log().find("the broker's certificate was refused") != std::string::npos;
      },
      20s))
      << uplink.Log();
  const std::string log = uplink.Log();
  EXPECT_NE(log.find("broker.key: " + wrong + "/robot.key is mode 0644"), std::string::npos) << log;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("refused") != std::string::npos || line.find("broker.key") != std::string::npos) {
      std::printf("%s\n", line.c_str());
    }
  }
  uplink.Stop();
  if (!testing::Test::HasFailure()) std::filesystem::remove_all(dir);  // else kept: the logs
}

}  // namespace
}  // namespace robot_edge::test
