// libmosquitto (MQTT 5, mutual TLS) behind a narrow interface. The network thread (Start: one
// of ours, running mosquitto_loop_forever) connects, reconnects with back-off and runs the
// callbacks; the
// callbacks only queue what happened (MqttEvent) under a mutex of their own, and the uplink's
// main thread takes the queue with Take(). Publish() and Subscribe() may be called from the main
// thread at any time (libmosquitto's own locks).
#pragma once

#include <mosquitto.h>
#include <mqtt_protocol.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "uplink/options.hpp"

namespace robot_edge::uplink {

class MqttError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MqttEvent {
  // kLog: an error or warning of libmosquitto's (a TLS handshake that failed, the broker's
  // certificate refused), its text in `payload`.
  enum class Kind { kConnected, kDisconnected, kPublished, kMessage, kLog };
  Kind kind;
  int code = 0;         // kConnected / kDisconnected: the reason code; kPublished: PUBACK's reason
  int mid = 0;          // kPublished
  std::string topic;    // kMessage
  std::string payload;  // kMessage; kLog: the line
  bool retained = false;  // kMessage: delivered with the retain flag (published retained)
};

// How long the broker keeps this robot's session (its subscription to `commands`, the commands
// queued for it) while the link is down.
inline constexpr int kSessionExpiryS = 3600;

using UserProperties = std::vector<std::pair<std::string, std::string>>;

class Mqtt {
 public:
  // Sets up the client (id = robot_id, MQTT 5, clean start, TLS with the client certificate,
  // the last will `will_payload` retained at QoS 1 on `will_topic`). Throws MqttError.
  Mqtt(const UplinkOptions& options, const std::string& will_topic,
       const std::string& will_payload);
  ~Mqtt();  // disconnects (no last will) and stops the network thread
  Mqtt(const Mqtt&) = delete;
  Mqtt& operator=(const Mqtt&) = delete;

  // Starts connecting and the network thread; reconnects on its own from then on. CONNECT
  // carries the session expiry and Maximum Packet Size broker.max_packet_kib: a compliant broker
  // drops a larger message for this client instead of sending it (libmosquitto 2.0 itself does
  // not bound what it reads).
  void Start();
  // The message id, or -1 when libmosquitto refused it (not connected, too large).
  int Publish(const std::string& topic, std::string_view payload, int qos, bool retain,
              const UserProperties& properties = {});
  // For the fleet -> robot topics: "do not send retained" (the broker sends no stored retained
  // message on subscribe) and "retain as published" (a message the fleet published retained
  // arrives with its flag, so that the uplink can refuse it: command_gate.hpp).
  void Subscribe(const std::string& topic, int qos);
  // Why the last Publish() returned -1.
  const std::string& last_error() const { return last_error_; }
  // What happened since the last call, in order.
  std::vector<MqttEvent> Take();
  // Readable (poll) when something was queued since the last Take().
  int wake_fd() const { return wake_fd_; }

 private:
  static void OnConnect(mosquitto*, void* self, int rc, int flags, const mosquitto_property*);
  static void OnDisconnect(mosquitto*, void* self, int rc, const mosquitto_property*);
  static void OnPublish(mosquitto*, void* self, int mid, int rc, const mosquitto_property*);
  static void OnMessage(mosquitto*, void* self, const mosquitto_message* message,
                        const mosquitto_property*);
  static void OnLog(mosquitto*, void* self, int level, const char* text);
  void Push(MqttEvent event);
  void RunNetwork();

  const UplinkOptions& options_;
  mosquitto* mosq_ = nullptr;
  std::atomic<bool> stop_{false};
  std::thread network_;
  std::string last_error_;
  int wake_fd_ = -1;  // an eventfd: Push() writes, Take() reads
  std::mutex mutex_;  // guards events_ (network thread pushes, main thread takes)
  std::vector<MqttEvent> events_;
};

}  // namespace robot_edge::uplink
