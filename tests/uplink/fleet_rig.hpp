// The fleet side of the broker tests (label broker): a real mosquitto with mutual TLS, the
// fleet as a libmosquitto client with a persistent session that records everything it receives,
// and robot-edge-uplink as a child process. Header-only: one test executable uses it.
#pragma once

#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "mosquitto_broker.hpp"
#include "robot_rig.hpp"

namespace robot_edge::test {

inline std::string MakeTempDir(const char* name) {
  std::string path = (std::filesystem::temp_directory_path() / name).string() + "-XXXXXX";
  if (::mkdtemp(path.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return path;
}

// `text` with the first `from` replaced by `to`; throws when there is none.
inline std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("'" + from + "' not in the config");
  return text.replace(at, from.size(), to);
}

// One message as the fleet received it.
struct Received {
  std::string topic;
  std::string payload;
  std::uint64_t seq = 0;  // the user property "seq" (0: none)
};

// The fleet: a persistent MQTT 5 session (the broker queues for it while it is away) that
// subscribes to the robot's tree at QoS 1 and records everything.
class Fleet {
 public:
  // `max_packet_bytes`: the MQTT 5 Maximum Packet Size it asks of the broker (0: none).
  Fleet(const std::string& pki, int port, std::uint32_t max_packet_bytes = 0) {
    mosquitto_lib_init();
    mosq_ = mosquitto_new("fleet-test", false, this);
    mosquitto_int_option(mosq_, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
    // As the uplink: without it a publish can wait behind Nagle for the broker's delayed ACK of
    // the client's last PUBACK (~20 ms, seen in bench_uplink_cost's fleet -> wire latency).
    mosquitto_int_option(mosq_, MOSQ_OPT_TCP_NODELAY, 1);
    mosquitto_tls_set(mosq_, (pki + "/ca.pem").c_str(), nullptr, (pki + "/fleet.pem").c_str(),
                      (pki + "/fleet.key").c_str(), nullptr);
    mosquitto_connect_v5_callback_set(
        mosq_, [](mosquitto* m, void*, int rc, int, const mosquitto_property*) {
          if (rc == 0) mosquitto_subscribe_v5(m, nullptr, "robot-edge/r1/#", 1, 0, nullptr);
        });
    mosquitto_message_v5_callback_set(mosq_, &Fleet::OnMessage);
    mosquitto_reconnect_delay_set(mosq_, 1, 1, false);
    mosquitto_property* props = nullptr;
    mosquitto_property_add_int32(&props, MQTT_PROP_SESSION_EXPIRY_INTERVAL, 3600);
    if (max_packet_bytes > 0) {
      mosquitto_property_add_int32(&props, MQTT_PROP_MAXIMUM_PACKET_SIZE, max_packet_bytes);
    }
    mosquitto_threaded_set(mosq_, true);
    mosquitto_connect_bind_v5(mosq_, "localhost", port, 10, nullptr, props);
    mosquitto_property_free_all(&props);
    // loop_forever gives up for good on some errors (TLS mid-handshake while the broker
    // restarts): reconnect and go on, as robot-edge-uplink does.
    network_ = std::thread([this] {
      while (!stop_) {
        mosquitto_loop_forever(mosq_, 1000, 1);
        if (stop_) break;
        std::this_thread::sleep_for(500ms);
        mosquitto_reconnect(mosq_);
      }
    });
  }
  ~Fleet() {
    stop_ = true;
    mosquitto_disconnect(mosq_);
    network_.join();
    mosquitto_destroy(mosq_);
  }
  std::vector<Received> Messages() {
    std::lock_guard lock(mutex_);
    return received_;
  }
  // QoS 1; `retain`: left on the broker for later subscribers (what a fleet must not do).
  void Publish(const std::string& topic, const std::string& payload, std::uint32_t expiry_s,
               bool retain = false) {
    mosquitto_property* props = nullptr;
    mosquitto_property_add_int32(&props, MQTT_PROP_MESSAGE_EXPIRY_INTERVAL, expiry_s);
    mosquitto_publish_v5(mosq_, nullptr, topic.c_str(), static_cast<int>(payload.size()),
                         payload.data(), 1, retain, props);
    mosquitto_property_free_all(&props);
  }

 private:
  static void OnMessage(mosquitto*, void* self, const mosquitto_message* m,
                        const mosquitto_property* props) {
    Received r{m->topic, std::string(static_cast<const char*>(m->payload),
                                     static_cast<std::size_t>(m->payloadlen))};
    char* name = nullptr;
    char* value = nullptr;
    if (mosquitto_property_read_string_pair(props, MQTT_PROP_USER_PROPERTY, &name, &value, false) !=
        nullptr) {
      if (std::string(name) == "seq") r.seq = std::stoull(value);
      std::free(name);
      std::free(value);
    }
    auto* fleet = static_cast<Fleet*>(self);
    std::lock_guard lock(fleet->mutex_);
    fleet->received_.push_back(std::move(r));
  }
  mosquitto* mosq_;
  std::atomic<bool> stop_{false};
  std::thread network_;
  std::mutex mutex_;
  std::vector<Received> received_;
};

// The fleet's broker: mutual TLS, persistent sessions, the shipped ACL (uplink/mosquitto.acl:
// a certificate's CN is its identity; r1 and r2 are robots, `fleet` the fleet).
inline MosquittoBroker TlsBroker(const std::string& dir, const std::string& pki, int port) {
  return MosquittoBroker(dir, port,
                         "cafile " + pki + "/ca.pem\ncertfile " + pki + "/server.pem\nkeyfile " +
                             pki + "/server.key\nrequire_certificate true\n" +
                             "use_identity_as_username true\nallow_anonymous false\n" +
                             "acl_file " ROBOT_EDGE_MOSQUITTO_ACL "\n" +
                             "persistence true\npersistence_location " + dir +
                             "/\nautosave_interval 1\nuser root\nset_tcp_nodelay true\n");
}

class Uplink {
 public:
  // `extra`: more YAML at the end of its config.
  // `robot_edged`: more keys of its robot_edged section (indented); without `config:` there, the
  // fleet configurations go to dir/fleet-robot-edge.yaml.
  Uplink(const std::string& dir, const std::string& pki, int port, const std::string& socket,
         const std::string& extra = "", const std::string& robot_edged = "")
      : dir_(dir) {
    std::ofstream conf(dir + "/uplink.yaml");
    conf << "robot_id: r1\nbroker:\n  host: localhost\n  port: " << port << "\n  ca: " << pki
         << "/ca.pem\n  cert: " << pki << "/robot.pem\n  key: " << pki
         << "/robot.key\n  reconnect_max_s: 2\nspool:\n  dir: " << dir
         << "/spool\nrobot_edged:\n  socket: " << socket << "\n"
         << (robot_edged.find("config:") == std::string::npos
                 ? "  config: " + dir + "/fleet-robot-edge.yaml\n"
                 : "")
         << robot_edged << "commands: true\nconfig_updates: true\n"
         << extra;
  }
  void Start() {
    child_ = std::make_unique<Child>(
        std::vector<std::string>{ROBOT_EDGE_UPLINK, "--config", dir_ + "/uplink.yaml"},
        dir_ + "/uplink-" + std::to_string(++runs_));
  }
  int Stop() { return child_->Stop(SIGTERM, 10s); }
  int Kill() { return child_->Stop(SIGKILL, 10s); }  // no clean stop: a crash, a power cut
  std::string spool_dir() const { return dir_ + "/spool"; }
  pid_t pid() const { return child_->pid(); }
  std::string Log() const { return child_ ? child_->Stderr() : ""; }

 private:
  std::string dir_;
  int runs_ = 0;
  std::unique_ptr<Child> child_;
};

// `messages`, one a line (for a failure's message).
inline std::string Joined(const std::vector<std::string>& messages) {
  std::string out;
  for (const std::string& m : messages) out += m + "\n";
  return out;
}

// The rig of the fleet-configuration tests: a robot whose `fleet` may ask for restarts
// (api.apply_config_controllers: [fleet]) and that the rig restarts as systemd would
// (RestartLikeSystemd, called before anything else starts), a mutual-TLS
// mosquitto (started), a fleet client, and an uplink (not started) that writes fleet
// configurations over robot-edged's own file. `robot_edged_keys`: more keys of the uplink's
// robot_edged section (indented), after `config:`.
class FleetConfigRig {
 public:
  FleetConfigRig(const char* name, const std::string& robot_edged_keys)
      : dir(MakeTempDir(name)),
        pki(MakePki(dir)),
        port(FreePort()),
        robot(ApplyingRobot()),
        config_path((robot.RestartLikeSystemd(), robot.dir() + "/robot-edge.yaml")),
        original(ReadFile(config_path)),
        broker(TlsBroker(dir, pki, port)),
        fleet((broker.Start(), pki), port),  // the broker started first
        uplink(dir, pki, port, robot.api_socket(), "",
               "  config: " + config_path + "\n" + robot_edged_keys) {}

  // The config_result payloads on `status` so far, in order (repeats included).
  std::vector<std::string> ConfigResults() {
    std::vector<std::string> out;
    for (const Received& m : fleet.Messages()) {
      if (m.topic == "robot-edge/r1/status" &&
          m.payload.find("config_result") != std::string::npos) {
        out.push_back(m.payload);
      }
    }
    return out;
  }
  std::size_t TelemetryCount() {
    std::size_t n = 0;
    for (const Received& m : fleet.Messages()) n += m.topic == "robot-edge/r1/telemetry";
    return n;
  }
  // The robot's name in a new Welcome; "" while robot-edged restarts.
  std::string WelcomeName() {
    try {
      edge::Welcome w;
      robot.Connect("", 0, &w);
      return w.robot_name();
    } catch (const std::exception&) {
      return "";
    }
  }

  const std::string dir, pki;
  const int port;
  Robot robot;
  const std::string config_path;
  const std::string original;  // the robot's config file as the rig wrote it
  MosquittoBroker broker;
  Fleet fleet;
  Uplink uplink;

 private:
  static std::string MakePki(const std::string& dir) {
    const std::string pki = dir + "/pki";
    if (std::system((std::string(ROBOT_EDGE_UPLINK_PKI) + " " + pki).c_str()) != 0) {
      throw std::runtime_error("make_test_pki.sh failed");
    }
    return pki;
  }
  static RobotOptions ApplyingRobot() {
    RobotOptions o;
    // buses: the tests' file that robot-edged cannot start on names a missing bus (vcan9).
    o.config_edits = {{"apply_config_controllers: []", "apply_config_controllers: [fleet]"},
                      {"fleet_may_change: []", "fleet_may_change: [buses]"}};
    return o;
  }
};

}  // namespace robot_edge::test
