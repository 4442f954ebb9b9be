#include "uplink/mqtt.hpp"

#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace robot_edge::uplink {

namespace {

[[noreturn]] void Fail(const std::string& what, int rc) {
  const std::string reason =
      rc == MOSQ_ERR_ERRNO ? std::strerror(errno) : std::string(mosquitto_strerror(rc));
  throw MqttError("mqtt: " + what + ": " + reason);
}

// libmosquitto's global state: set up once per process, before any client.
struct Library {
  Library() { mosquitto_lib_init(); }
  ~Library() { mosquitto_lib_cleanup(); }
};

}  // namespace

Mqtt::Mqtt(const UplinkOptions& options, const std::string& will_topic,
           const std::string& will_payload)
    : options_(options) {
  static Library library;
  // A persistent session (clean start off, kSessionExpiryS): the broker keeps the subscription
  // to `commands` and queues commands while the link is down, each until its own expiry.
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) throw MqttError(std::string("mqtt: eventfd: ") + std::strerror(errno));
  mosq_ = mosquitto_new(options.robot_id.c_str(), false, this);
  if (mosq_ == nullptr) throw MqttError("mqtt: mosquitto_new failed");
  int rc = mosquitto_int_option(mosq_, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
  if (rc != MOSQ_ERR_SUCCESS) Fail("MQTT 5", rc);
  mosquitto_int_option(mosq_, MOSQ_OPT_TCP_NODELAY, 1);
  rc = mosquitto_tls_set(mosq_, options.broker.ca.c_str(), nullptr, options.broker.cert.c_str(),
                         options.broker.key.c_str(), nullptr);
  if (rc != MOSQ_ERR_SUCCESS) Fail("TLS (broker.ca, broker.cert, broker.key)", rc);
  rc = mosquitto_will_set_v5(mosq_, will_topic.c_str(), static_cast<int>(will_payload.size()),
                             will_payload.data(), 1, true, nullptr);
  if (rc != MOSQ_ERR_SUCCESS) Fail("last will", rc);
  mosquitto_reconnect_delay_set(mosq_, 1, options.broker.reconnect_max_s, true);
  mosquitto_threaded_set(mosq_, true);  // the network thread is ours (Start)
  mosquitto_connect_v5_callback_set(mosq_, &Mqtt::OnConnect);
  mosquitto_disconnect_v5_callback_set(mosq_, &Mqtt::OnDisconnect);
  mosquitto_publish_v5_callback_set(mosq_, &Mqtt::OnPublish);
  mosquitto_message_v5_callback_set(mosq_, &Mqtt::OnMessage);
  mosquitto_log_callback_set(mosq_, &Mqtt::OnLog);
}

Mqtt::~Mqtt() {
  if (network_.joinable()) {
    stop_ = true;
    mosquitto_disconnect_v5(mosq_, MQTT_RC_NORMAL_DISCONNECTION, nullptr);
    network_.join();
  }
  mosquitto_destroy(mosq_);
  ::close(wake_fd_);
}

void Mqtt::Start() {
  mosquitto_property* props = nullptr;
  mosquitto_property_add_int32(&props, MQTT_PROP_SESSION_EXPIRY_INTERVAL, kSessionExpiryS);
  mosquitto_property_add_int32(&props, MQTT_PROP_MAXIMUM_PACKET_SIZE,
                               options_.broker.max_packet_kib * 1024);
  // Blocking (TCP and TLS); a broker that cannot be reached now is retried by the network
  // thread with the same CONNECT properties.
  const int rc = mosquitto_connect_bind_v5(
      mosq_, options_.broker.host.c_str(), static_cast<int>(options_.broker.port),
      static_cast<int>(options_.broker.keepalive_s), nullptr, props);
  mosquitto_property_free_all(&props);
  if (rc == MOSQ_ERR_INVAL || rc == MOSQ_ERR_NOMEM) Fail("connect", rc);
  network_ = std::thread([this] { RunNetwork(); });
}

// mosquitto_loop_forever reconnects by itself after a lost link, but returns for good on some
// errors (a TLS failure mid-handshake, a protocol error): then this reconnects, and goes on.
void Mqtt::RunNetwork() {
  while (!stop_) {
    const int rc = mosquitto_loop_forever(mosq_, 1000, 1);
    if (stop_) break;
    Push({MqttEvent::Kind::kDisconnected, rc, 0, {}, {}});
    std::this_thread::sleep_for(std::chrono::seconds(1));
    mosquitto_reconnect(mosq_);
  }
}

int Mqtt::Publish(const std::string& topic, std::string_view payload, int qos, bool retain,
                  const UserProperties& properties) {
  mosquitto_property* props = nullptr;
  for (const auto& [name, value] : properties) {
    mosquitto_property_add_string_pair(&props, MQTT_PROP_USER_PROPERTY, name.c_str(),
                                       value.c_str());
  }
  int mid = 0;
  const int rc = mosquitto_publish_v5(mosq_, &mid, topic.c_str(), static_cast<int>(payload.size()),
                                      payload.data(), qos, retain, props);
  mosquitto_property_free_all(&props);
  if (rc != MOSQ_ERR_SUCCESS) last_error_ = mosquitto_strerror(rc);
  return rc == MOSQ_ERR_SUCCESS ? mid : -1;
}

void Mqtt::Subscribe(const std::string& topic, int qos) {
  mosquitto_subscribe_v5(mosq_, nullptr, topic.c_str(), qos,
                         MQTT_SUB_OPT_SEND_RETAIN_NEVER | MQTT_SUB_OPT_RETAIN_AS_PUBLISHED,
                         nullptr);
}

std::vector<MqttEvent> Mqtt::Take() {
  std::uint64_t count = 0;
  while (::read(wake_fd_, &count, sizeof(count)) > 0) {
  }
  std::lock_guard lock(mutex_);
  return std::exchange(events_, {});
}

void Mqtt::Push(MqttEvent event) {
  {
    std::lock_guard lock(mutex_);
    events_.push_back(std::move(event));
  }
  const std::uint64_t one = 1;
  if (::write(wake_fd_, &one, sizeof(one)) < 0) {
  }  // EAGAIN: the counter is full, so it is readable already
}

void Mqtt::OnConnect(mosquitto*, void* self, int rc, int, const mosquitto_property*) {
  static_cast<Mqtt*>(self)->Push({MqttEvent::Kind::kConnected, rc, 0, {}, {}});
}

void Mqtt::OnDisconnect(mosquitto*, void* self, int rc, const mosquitto_property*) {
  static_cast<Mqtt*>(self)->Push({MqttEvent::Kind::kDisconnected, rc, 0, {}, {}});
}

void Mqtt::OnPublish(mosquitto*, void* self, int mid, int rc, const mosquitto_property*) {
  static_cast<Mqtt*>(self)->Push({MqttEvent::Kind::kPublished, rc, mid, {}, {}});
}

void Mqtt::OnMessage(mosquitto*, void* self, const mosquitto_message* m,
                     const mosquitto_property*) {
  std::string payload(static_cast<const char*>(m->payload),
                      static_cast<std::size_t>(m->payloadlen));
  static_cast<Mqtt*>(self)->Push(
      {MqttEvent::Kind::kMessage, 0, 0, m->topic, std::move(payload), m->retain});
}

// On the thread that runs libmosquitto at that moment (the network thread; the main thread in
// Start()'s first connect). A failed TLS handshake is logged here while its SSL object still
// exists: its verify result says why the broker's certificate was refused.
void Mqtt::OnLog(mosquitto* mosq, void* self, int level, const char* text) {
  if ((level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING)) == 0) return;
  std::string line = std::string("libmosquitto: ") + text;
  auto* ssl = static_cast<SSL*>(mosquitto_ssl_get(mosq));
  const long verify = ssl != nullptr ? SSL_get_verify_result(ssl) : X509_V_OK;
  if (verify != X509_V_OK) {
    line += "; the broker's certificate was refused: " +
            std::string(X509_verify_cert_error_string(verify)) +
            " (it must be signed by broker.ca and name broker.host)";
  }
  static_cast<Mqtt*>(self)->Push({MqttEvent::Kind::kLog, level, 0, {}, std::move(line)});
}

}  // namespace robot_edge::uplink
