// broker.uplink, M4 of issue 38: the broker with the shipped ACL (uplink/mosquitto.acl, in
// TlsBroker's config). Robot r2's certificate (same CA) attacks r1: a STAND on r1's `commands`
// never reaches r1's uplink (which answers every command it gets on `status`, so no answer means
// never received), a forged retained `status` does not replace r1's, and r1's fleet -> robot
// topics are not delivered to r2. Positive control: the fleet's identity still commands r1, and
// robot-edged accepts its command. Without the ACL the broker delivered all three (the audit's
// finding, reproduced by dropping acl_file from TlsBroker).
// BrokerClientId: the shipped two-listener layout (uplink/mosquitto.acl's mosquitto.conf
// fragment) binds a robot's client id to its certificate, so r2 can neither take r1's session
// (and lose the commands queued for it) nor kick the fleet's backend off; a control runs the
// same attack on the old one-listener layout (TlsBroker), where both worked (the audit's F4).
#include <gtest/gtest.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <sstream>

#include "fleet_rig.hpp"

namespace robot_edge::test {
namespace {

// How a Peer connects: its client id, clean start, and MQTT 5 Session Expiry Interval (s; 0: the
// session ends with the connection).
struct Session {
  std::string client_id;
  bool clean = true;
  std::uint32_t expiry_s = 0;
};

// A client with the certificate `name`.pem (CN `name`) of make_test_pki.sh: publishes QoS 1 and
// waits for the broker's PUBACK reason code, records what it receives.
class Peer {
 public:
  Peer(const std::string& pki, const std::string& name, int port, bool clean = true)
      : Peer(pki, name, port, Session{"acl-test-" + name + (clean ? "" : "-session"), clean}) {}
  Peer(const std::string& pki, const std::string& name, int port, const Session& session) {
    mosquitto_lib_init();
    mosq_ = mosquitto_new(session.client_id.c_str(), session.clean, this);
    mosquitto_int_option(mosq_, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
    mosquitto_tls_set(mosq_, (pki + "/ca.pem").c_str(), nullptr,
                      (pki + "/" + name + ".pem").c_str(), (pki + "/" + name + ".key").c_str(),
                      nullptr);
    mosquitto_connect_v5_callback_set(
        mosq_, [](mosquitto*, void* self, int rc, int flags, const mosquitto_property*) {
          static_cast<Peer*>(self)->session_present_ = (flags & 1) != 0;
          static_cast<Peer*>(self)->Set(-1, rc == 0 ? 1 : -rc);
        });
    mosquitto_disconnect_v5_callback_set(
        mosq_, [](mosquitto*, void* self, int rc, const mosquitto_property*) {
          if (rc != 0) ++static_cast<Peer*>(self)->lost_;  // 0: its own mosquitto_disconnect
        });
    mosquitto_publish_v5_callback_set(
        mosq_, [](mosquitto*, void* self, int mid, int reason, const mosquitto_property*) {
          static_cast<Peer*>(self)->Set(mid, reason);
        });
    mosquitto_subscribe_v5_callback_set(mosq_, [](mosquitto*, void* self, int mid, int count,
                                                  const int* granted, const mosquitto_property*) {
      static_cast<Peer*>(self)->Set(mid, count > 0 ? granted[0] : -1);
    });
    mosquitto_message_v5_callback_set(mosq_, [](mosquitto*, void* self, const mosquitto_message* m,
                                                const mosquitto_property*) {
      auto* peer = static_cast<Peer*>(self);
      std::lock_guard lock(peer->mutex_);
      peer->received_.push_back({m->topic, std::string(static_cast<const char*>(m->payload),
                                                       static_cast<std::size_t>(m->payloadlen))});
    });
    mosquitto_property* props = nullptr;
    if (session.expiry_s > 0) {
      mosquitto_property_add_int32(&props, MQTT_PROP_SESSION_EXPIRY_INTERVAL, session.expiry_s);
    }
    mosquitto_connect_bind_v5(mosq_, "localhost", port, 10, nullptr, props);
    mosquitto_property_free_all(&props);
    mosquitto_loop_start(mosq_);
    if (Wait(-1) != 1) throw std::runtime_error(name + ": the broker refused the connection");
  }
  ~Peer() {
    mosquitto_disconnect(mosq_);
    mosquitto_loop_stop(mosq_, false);
    mosquitto_destroy(mosq_);
  }
  // libmosquitto's answer to a QoS 1 publish, without waiting for the PUBACK
  // (MOSQ_ERR_OVERSIZE_PACKET: larger than the Maximum Packet Size the broker's CONNACK set).
  int PublishNoWait(const std::string& topic, const std::string& payload) {
    return mosquitto_publish_v5(mosq_, nullptr, topic.c_str(), static_cast<int>(payload.size()),
                                payload.data(), 1, false, nullptr);
  }
  // The PUBACK's reason code (0: accepted, 135: not authorized).
  int Publish(const std::string& topic, const std::string& payload, bool retain = false) {
    int mid = 0;
    mosquitto_publish_v5(mosq_, &mid, topic.c_str(), static_cast<int>(payload.size()),
                         payload.data(), 1, retain, nullptr);
    return Wait(mid);
  }
  // The SUBACK's granted QoS or reason code (1: granted, 135: not authorized).
  int Subscribe(const std::string& pattern) {
    int mid = 0;
    mosquitto_subscribe_v5(mosq_, &mid, pattern.c_str(), 1, 0, nullptr);
    return Wait(mid);
  }
  std::vector<Received> Messages() {
    std::lock_guard lock(mutex_);
    return received_;
  }
  // The payloads received on `topic`, in order.
  std::vector<std::string> Payloads(const std::string& topic) {
    std::vector<std::string> out;
    for (const Received& m : Messages()) {
      if (m.topic == topic) out.push_back(m.payload);
    }
    return out;
  }
  // The CONNACK's session-present flag: the broker resumed a session of this client id.
  bool session_present() const { return session_present_; }
  // Connections the broker closed (or lost); libmosquitto's loop then reconnects.
  int lost() const { return lost_; }

 private:
  void Set(int id, int value) {
    std::lock_guard lock(mutex_);
    results_[id] = value;
    changed_.notify_all();
  }
  int Wait(int id) {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, 10s, [&] { return results_.count(id) > 0; })) {
      throw std::runtime_error("no answer from the broker");
    }
    return results_[id];
  }
  mosquitto* mosq_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<int, int> results_;  // by message id; -1: the CONNACK
  std::vector<Received> received_;
  std::atomic<bool> session_present_{false};
  std::atomic<int> lost_{0};
};

edge::CloudCommand Stamped(edge::Mode mode, std::uint32_t sequence) {
  edge::CloudCommand c = Mode(mode);
  c.set_sequence(sequence);
  c.set_timestamp_us(client::WallClockMicros());
  return c;
}

// The command_result on r1's `status` for CloudCommand.sequence `sequence`, "" when none.
std::string ResultOf(Fleet& fleet, std::uint32_t sequence) {
  const std::string key = "\"sequence\":" + std::to_string(sequence) + ",";
  for (const Received& m : fleet.Messages()) {
    if (m.topic == "robot-edge/r1/status" &&
        m.payload.find("command_result") != std::string::npos &&
        m.payload.find(key) != std::string::npos) {
      return m.payload;
    }
  }
  return "";
}

TEST(BrokerAcl, AnotherRobotsCertificateCannotCommandR1NorOverwriteItsStatusTheFleetStillCan) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const std::string dir = MakeTempDir("uplink-acl");
  const std::string pki = dir + "/pki";
  ASSERT_EQ(std::system((std::string(ROBOT_EDGE_UPLINK_PKI) + " " + pki).c_str()), 0);
  const int port = FreePort();
  Robot robot;
  MosquittoBroker broker = TlsBroker(dir, pki, port);
  broker.Start();
  Fleet fleet(pki, port);
  Uplink uplink(dir, pki, port, robot.api_socket());
  uplink.Start();
  // Telemetry: the uplink is on the broker and on robot-edged (observer and `fleet` controller).
  ASSERT_TRUE(Eventually(
      [&] {
        for (const Received& m : fleet.Messages()) {
          if (m.topic == "robot-edge/r1/telemetry") return true;
        }
        return false;
      },
      20s))
      << uplink.Log();

  Peer r2(pki, "r2", port);
  // r1's fleet -> robot topics are not r2's to read: refused at SUBSCRIBE, or never delivered.
  const int r1_subscription = r2.Subscribe("robot-edge/r1/#");
  EXPECT_EQ(r2.Subscribe("robot-edge/r2/commands"), 1);  // its own: granted
  // A STAND on r1's commands, and a forged retained status: refused by the broker.
  EXPECT_EQ(r2.Publish("robot-edge/r1/commands", Stamped(edge::MODE_STAND, 5).SerializeAsString()),
            MQTT_RC_NOT_AUTHORIZED);
  const std::string forged = R"({"type":"status","state":"offline","robot":"r1","forged":"r2"})";
  EXPECT_EQ(r2.Publish("robot-edge/r1/status", forged, true), MQTT_RC_NOT_AUTHORIZED);

  // The fleet commands r1 after r2's PUBACKs: once its result is on status, r2's STAND (had the
  // broker passed it on) would have reached the uplink first and been answered first.
  fleet.Publish("robot-edge/r1/commands", Stamped(edge::MODE_DAMP, 6).SerializeAsString(), 10);
  ASSERT_TRUE(Eventually([&] { return !ResultOf(fleet, 6).empty(); }, 20s)) << uplink.Log();
  EXPECT_NE(ResultOf(fleet, 6).find("\"accepted\":true"), std::string::npos) << ResultOf(fleet, 6);
  EXPECT_EQ(ResultOf(fleet, 5), "") << "r2's STAND reached r1's uplink";

  // r1's retained status is still r1's own: a new subscriber gets it.
  Peer reader(pki, "fleet", port);
  ASSERT_EQ(reader.Subscribe("robot-edge/r1/status"), 1);
  ASSERT_TRUE(Eventually([&] { return !reader.Messages().empty(); }, 10s));
  const std::string retained = reader.Messages().front().payload;
  EXPECT_EQ(retained.find("forged"), std::string::npos) << retained;
  EXPECT_NE(retained.find("\"state\":\"online\""), std::string::npos) << retained;

  // r2 received none of r1's messages (the fleet's command to r1 went before this one to r2).
  fleet.Publish("robot-edge/r2/commands", "for r2", 10);
  ASSERT_TRUE(Eventually([&] { return !r2.Messages().empty(); }, 10s));
  for (const Received& m : r2.Messages()) EXPECT_EQ(m.topic, "robot-edge/r2/commands");
  std::printf(
      "r2 -> r1 commands: PUBACK 135 (not authorized); r2 subscribing to r1/#: %d; the "
      "fleet's DAMP: %s\n",
      r1_subscription, ResultOf(fleet, 6).c_str());
  uplink.Stop();
  if (!testing::Test::HasFailure()) std::filesystem::remove_all(dir);  // else kept: the logs
}

// `text` with every `from` replaced by `to`; throws when there is none.
std::string ReplacedAll(std::string text, const std::string& from, const std::string& to) {
  text = Replaced(text, from, to);
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
  return text;
}

// The broker layout we ship: uplink/mosquitto.acl's mosquitto.conf fragment (its lines between
// "# BEGIN mosquitto.conf" and "# END mosquitto.conf", less their "#   "), with this test's
// files and the fleet's listener on 127.0.0.1:`fleet_port`. As MosquittoBroker settings: it
// writes the robots' listener line itself, so the fragment's own is dropped (the global options
// after it stay global: per_listener_settings false).
std::string ShippedLayout(const std::string& dir, const std::string& pki, int fleet_port) {
  std::istringstream acl(ReadFile(ROBOT_EDGE_MOSQUITTO_ACL));
  std::string conf, line;
  bool inside = false;
  while (std::getline(acl, line)) {
    if (line == "# END mosquitto.conf") break;
    if (inside && line.rfind("#   ", 0) == 0) conf += line.substr(4) + "\n";
    inside = inside || line == "# BEGIN mosquitto.conf";
  }
  conf = Replaced(conf, "listener 8883\n", "");
  conf =
      Replaced(conf, "listener 8884\n", "listener " + std::to_string(fleet_port) + " 127.0.0.1\n");
  conf = Replaced(conf, "/etc/mosquitto/robot-edge.acl", ROBOT_EDGE_MOSQUITTO_ACL);
  conf = Replaced(conf, "/etc/mosquitto/robots-ca.pem", pki + "/ca.pem");
  conf = Replaced(conf, "/etc/mosquitto/fleet-ca.pem", pki + "/fleetca.pem");
  conf = ReplacedAll(conf, "/etc/mosquitto/server.", pki + "/server.");
  return conf + "persistence true\npersistence_location " + dir + "/\nuser root\n";
}

// Whether the certificate `name` gets a CONNACK from 127.0.0.1:`port` (false: the broker closed
// the connection first, e.g. its TLS handshake failed; after 10 s without either: throws).
bool GetsConnack(const std::string& pki, const std::string& name, int port) {
  mosquitto* m = mosquitto_new(("acl-test-" + name + "-handshake").c_str(), true, nullptr);
  mosquitto_int_option(m, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
  mosquitto_tls_set(m, (pki + "/ca.pem").c_str(), nullptr, (pki + "/" + name + ".pem").c_str(),
                    (pki + "/" + name + ".key").c_str(), nullptr);
  int connack = -1;  // -1: none yet; 0: closed without one; 1: received
  mosquitto_user_data_set(m, &connack);
  mosquitto_connect_v5_callback_set(
      m,
      [](mosquitto*, void* c, int, int, const mosquitto_property*) { *static_cast<int*>(c) = 1; });
  int rc = mosquitto_connect(m, "localhost", port, 10);
  for (const auto deadline = std::chrono::steady_clock::now() + 10s;
       rc == MOSQ_ERR_SUCCESS && connack < 0 && std::chrono::steady_clock::now() < deadline;) {
    rc = mosquitto_loop(m, 100, 1);
  }
  mosquitto_destroy(m);
  if (connack < 0 && rc == MOSQ_ERR_SUCCESS) throw std::runtime_error("no answer from the broker");
  return connack == 1;
}

// Where the fleet's backend connects: the robots' port and certificates of make_test_pki.sh
// (robot.pem is r1's), the backend's port and certificate.
struct Layout {
  int robots_port;
  int fleet_port;
  std::string fleet_cert;
};

// What r2's certificate achieved by asking for other clients' ids on the robots' listener.
struct TakeoverResult {
  bool resumed_r1s_session = false;   // CONNACK session-present for client id `r1`
  bool r1_got_queued_damp = false;    // the fleet's command queued while r1 was offline
  bool r1_got_later_command = false;  // (c): the backend's command after r1 is back
  int fleet_connections_lost = 0;     // of the backend's two sessions (one certificate)
};

// The audit's F4: r1 goes offline with a persistent session, the fleet's backend (two sessions,
// one certificate) queues a DAMP for it; r2 connects as `r1`, then as `fleet-backend`; r1 comes
// back and the backend commands it again. Messages on a QoS 1 subscription arrive in order, so
// once the later command is in, a queued DAMP that is not before it was lost.
TakeoverResult R2TakesOtherIds(const std::string& pki, const Layout& layout) {
  const Session r1_session{"r1", false, 3600};
  {
    Peer r1(pki, "robot", layout.robots_port, r1_session);
    EXPECT_EQ(r1.Subscribe("robot-edge/r1/commands"), 1);
  }  // r1 offline; the broker keeps its session and queues for it
  Peer backend(pki, layout.fleet_cert, layout.fleet_port, Session{"fleet-backend"});
  Peer status(pki, layout.fleet_cert, layout.fleet_port, Session{"fleet-status"});
  EXPECT_EQ(status.Subscribe("robot-edge/+/telemetry"), 1);
  EXPECT_EQ(backend.Publish("robot-edge/r1/commands", "DAMP queued while r1 is offline"), 0);

  TakeoverResult result;
  result.resumed_r1s_session =
      Peer(pki, "r2", layout.robots_port, Session{"r1", false, 3600}).session_present();
  {
    Peer r2(pki, "r2", layout.robots_port, Session{"fleet-backend"});
    // Published after r2's CONNACK, i.e. after the broker closed any client it displaced.
    EXPECT_EQ(r2.Publish("robot-edge/r2/telemetry", "after r2 asked for fleet-backend"), 0);
    EXPECT_TRUE(
        Eventually([&] { return !status.Payloads("robot-edge/r2/telemetry").empty(); }, 10s));
  }

  Peer r1(pki, "robot", layout.robots_port, r1_session);
  EXPECT_EQ(r1.Subscribe("robot-edge/r1/commands"), 1);  // (again, if its session was lost)
  EXPECT_EQ(backend.Publish("robot-edge/r1/commands", "DAMP after r1 is back"), 0);
  EXPECT_TRUE(Eventually(
      [&] {
        const std::vector<std::string> got = r1.Payloads("robot-edge/r1/commands");
        return !got.empty() && got.back() == "DAMP after r1 is back";
      },
      10s));
  const std::vector<std::string> got = r1.Payloads("robot-edge/r1/commands");
  result.r1_got_queued_damp =
      std::find(got.begin(), got.end(), "DAMP queued while r1 is offline") != got.end();
  result.r1_got_later_command =
      std::find(got.begin(), got.end(), "DAMP after r1 is back") != got.end();
  // After the backend's last PUBACK: a connection the broker closed was noticed before it.
  result.fleet_connections_lost = backend.lost() + status.lost();
  std::printf(
      "r1 received %zu command(s); r2 as r1: session-present %d; fleet connections "
      "lost: %d\n",
      got.size(), result.resumed_r1s_session, result.fleet_connections_lost);
  return result;
}

TEST(BrokerClientId, ShippedLayoutR2CannotTakeR1sSessionNorKickTheFleetsBackend) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const std::string dir = MakeTempDir("uplink-clientid");
  const std::string pki = dir + "/pki";
  ASSERT_EQ(std::system((std::string(ROBOT_EDGE_UPLINK_PKI) + " " + pki).c_str()), 0);
  const Layout layout{FreePort(), FreePort(), "fleet-backend"};
  MosquittoBroker broker(dir, layout.robots_port, ShippedLayout(dir, pki, layout.fleet_port));
  broker.Start();
  ASSERT_TRUE(Eventually([&] { return PortOpen(layout.fleet_port); }, 10s));

  const TakeoverResult r = R2TakesOtherIds(pki, layout);
  EXPECT_FALSE(r.resumed_r1s_session) << "r2 asking for client id r1 resumed r1's session";
  EXPECT_TRUE(r.r1_got_queued_damp) << "the DAMP queued for r1 was lost";
  EXPECT_TRUE(r.r1_got_later_command) << "the backend (its own listener) could not command r1";
  EXPECT_EQ(r.fleet_connections_lost, 0) << "r2 kicked the fleet's backend off";
  // The fleet's listener: a robot's certificate fails its handshake, the backend's does not.
  EXPECT_FALSE(GetsConnack(pki, "r2", layout.fleet_port));
  EXPECT_TRUE(GetsConnack(pki, "fleet-backend", layout.fleet_port));
  EXPECT_NE(ReadFile(dir + "/mosquitto.err").find("certificate verify failed"), std::string::npos)
      << ReadFile(dir + "/mosquitto.err");
  broker.Stop();
  if (!testing::Test::HasFailure()) std::filesystem::remove_all(dir);  // else kept: the logs
}

// The audit's R1 (round four): with no size bound, one robot's certificate sent 50 MB messages on
// its own topics and the broker grew to 352 MB. The shipped layout advertises and enforces a
// Maximum Packet Size of 272 KiB: a message above it never reaches the fleet, one below does.
TEST(BrokerClientId, ShippedLayoutRefusesAMessageLargerThanTheUplinksOwn) {
  const std::string dir = MakeTempDir("uplink-packet-size");
  const std::string pki = dir + "/pki";
  ASSERT_EQ(std::system((std::string(ROBOT_EDGE_UPLINK_PKI) + " " + pki).c_str()), 0);
  const Layout layout{FreePort(), FreePort(), "fleet-backend"};
  MosquittoBroker broker(dir, layout.robots_port, ShippedLayout(dir, pki, layout.fleet_port));
  broker.Start();
  ASSERT_TRUE(Eventually([&] { return PortOpen(layout.fleet_port); }, 10s));
  Peer fleet(pki, "fleet-backend", layout.fleet_port, Session{"fleet-status"});
  EXPECT_EQ(fleet.Subscribe("robot-edge/+/telemetry"), 1);
  Peer r2(pki, "r2", layout.robots_port, Session{"r2"});
  EXPECT_EQ(r2.PublishNoWait("robot-edge/r2/telemetry", std::string(300 * 1024, 'x')),
            MOSQ_ERR_OVERSIZE_PACKET);
  EXPECT_EQ(r2.Publish("robot-edge/r2/telemetry", std::string(200 * 1024, 'y')), 0);
  ASSERT_TRUE(Eventually([&] { return !fleet.Payloads("robot-edge/r2/telemetry").empty(); }, 10s));
  for (const std::string& p : fleet.Payloads("robot-edge/r2/telemetry")) {
    EXPECT_LE(p.size(), 200u * 1024) << "a message above the bound reached the fleet";
  }
  broker.Stop();
  if (!testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

// Control: the same attack on the old layout (one listener, no use_username_as_clientid: the
// other broker tests' TlsBroker) works, so the test above would see it.
TEST(BrokerClientId, ControlOldOneListenerLayoutR2TakesR1sSessionAndKicksTheFleet) {
  const std::string dir = MakeTempDir("uplink-clientid-old");
  const std::string pki = dir + "/pki";
  ASSERT_EQ(std::system((std::string(ROBOT_EDGE_UPLINK_PKI) + " " + pki).c_str()), 0);
  const int port = FreePort();
  MosquittoBroker broker = TlsBroker(dir, pki, port);
  broker.Start();
  const TakeoverResult r = R2TakesOtherIds(pki, Layout{port, port, "fleet"});
  EXPECT_TRUE(r.resumed_r1s_session);
  EXPECT_FALSE(r.r1_got_queued_damp);
  EXPECT_GE(r.fleet_connections_lost, 1);
  broker.Stop();
  if (!testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace robot_edge::test
