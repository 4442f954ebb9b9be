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
  Fleet(const std::string& pki, int port) {
    mosquitto_lib_init();
    mosq_ = mosquitto_new("fleet-test", false, this);
    mosquitto_int_option(mosq_, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
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
  void Publish(const std::string& topic, const std::string& payload, std::uint32_t expiry_s) {
    mosquitto_property* props = nullptr;
    mosquitto_property_add_int32(&props, MQTT_PROP_MESSAGE_EXPIRY_INTERVAL, expiry_s);
    mosquitto_publish_v5(mosq_, nullptr, topic.c_str(), static_cast<int>(payload.size()),
                         payload.data(), 1, false, props);
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

// The fleet's broker: mutual TLS, persistent sessions.
inline MosquittoBroker TlsBroker(const std::string& dir, const std::string& pki, int port) {
  return MosquittoBroker(dir, port,
                         "cafile " + pki + "/ca.pem\ncertfile " + pki + "/server.pem\nkeyfile " +
                             pki + "/server.key\nrequire_certificate true\n" +
                             "use_identity_as_username true\nallow_anonymous false\n" +
                             "persistence true\npersistence_location " + dir +
                             "/\nautosave_interval 1\nuser root\n");
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

}  // namespace robot_edge::test
