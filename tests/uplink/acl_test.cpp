// broker.uplink, M4 of issue 38: the broker with the shipped ACL (uplink/mosquitto.acl, in
// TlsBroker's config). Robot r2's certificate (same CA) attacks r1: a STAND on r1's `commands`
// never reaches r1's uplink (which answers every command it gets on `status`, so no answer means
// never received), a forged retained `status` does not replace r1's, and r1's fleet -> robot
// topics are not delivered to r2. Positive control: the fleet's identity still commands r1, and
// robot-edged accepts its command. Without the ACL the broker delivered all three (the audit's
// finding, reproduced by dropping acl_file from TlsBroker).
#include <gtest/gtest.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>

#include <condition_variable>
#include <map>

#include "fleet_rig.hpp"

namespace robot_edge::test {
namespace {

// A client with the certificate `name`.pem (CN `name`) of make_test_pki.sh: publishes QoS 1 and
// waits for the broker's PUBACK reason code, records what it receives.
class Peer {
 public:
  Peer(const std::string& pki, const std::string& name, int port, bool clean = true) {
    mosquitto_lib_init();
    mosq_ = mosquitto_new(("acl-test-" + name + (clean ? "" : "-session")).c_str(), clean, this);
    mosquitto_int_option(mosq_, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
    mosquitto_tls_set(mosq_, (pki + "/ca.pem").c_str(), nullptr,
                      (pki + "/" + name + ".pem").c_str(), (pki + "/" + name + ".key").c_str(),
                      nullptr);
    mosquitto_connect_v5_callback_set(
        mosq_, [](mosquitto*, void* self, int rc, int, const mosquitto_property*) {
          static_cast<Peer*>(self)->Set(-1, rc == 0 ? 1 : -rc);
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
    mosquitto_connect_async(mosq_, "localhost", port, 10);
    mosquitto_loop_start(mosq_);
    if (Wait(-1) != 1) throw std::runtime_error(name + ": the broker refused the connection");
  }
  ~Peer() {
    mosquitto_disconnect(mosq_);
    mosquitto_loop_stop(mosq_, false);
    mosquitto_destroy(mosq_);
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

}  // namespace
}  // namespace robot_edge::test
