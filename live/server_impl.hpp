// LiveServer's implementation, private to live/ and C++17 like websocketpp. Its methods are in
// live_server.cpp (lifecycle, Publish, the fan-out to subscribers), server_handlers.cpp (what
// each connection says: the handshake, HTTP GETs, protocol messages, service calls) and
// server_door.cpp (the cap, timeouts, Host and Origin, failed TLS handshakes).
//
// One class template, ServerImpl<Config>, over websocketpp's config: WsConfig (http, ws) or
// WssConfig (https, wss: LiveOptions::tls). Every bound and handler is the same code for both;
// each .cpp file instantiates its members for the two (kLiveServerConfigs). The only branch is
// the TLS setup in the constructor.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "access/log_limit.hpp"
#include "live/access.hpp"
#include "live/http_routes.hpp"
#include "live/live_server.hpp"
#include "live/subscriptions.hpp"
#include "live/ws_config.hpp"

namespace robot_edge::live {

inline constexpr std::size_t kMaxClientMessageBytes = 64 * 1024;  // what a client may send at once
inline constexpr std::size_t kMaxPendingBytes = 16 << 20;         // published, not yet fanned out
inline constexpr int kSocketSendBufferBytes = 256 * 1024;  // the kernel's share of a backlog: it
                                                           // bounds latency; the rest we count
inline constexpr auto kStopGrace = std::chrono::seconds(1);
// After a failed accept (EMFILE, ENFILE, ENOBUFS): wait this long instead of retrying at once,
// which spins the live thread while the condition lasts.
inline constexpr auto kAcceptBackoff = std::chrono::milliseconds(100);
// A failed TLS handshake (a scanner, plain http to the https port, a client that does not trust
// the certificate) is logged once per this period at most, with a count of the ones not logged.
inline constexpr auto kTlsFailureLogPeriod = std::chrono::seconds(5);
// How often open sockets are checked for a handshake or HTTP exchange past its timeout.
inline constexpr auto kSweepPeriod = std::chrono::milliseconds(500);
// Requests (text messages, service calls) a client may send a second: the dashboard and Foxglove
// send a few (subscribe, unsubscribe, DAMP); a client past this is disconnected, so a flood
// costs the live thread a bounded time.
inline constexpr int kMaxRequestsPerSecond = 100;
// How often the live thread takes what Publish queued while a viewer is connected: batches
// messages (fewer wake-ups and writes) for at most this much latency; Publish itself never wakes
// the live thread.
inline constexpr auto kDrainPeriod = std::chrono::milliseconds(4);

using websocketpp::connection_hdl;

// A prepared (framed) message websocketpp writes as it is.
WsMessagePtr PreparedFrame(std::string header, const void* payload, std::size_t size);

// What LiveServer forwards to (live_server.hpp has the contract).
class LiveServer::Impl {
 public:
  virtual ~Impl() = default;
  virtual std::uint16_t port() const = 0;
  virtual std::uint32_t AddChannel(ChannelSpec spec) = 0;
  virtual void RemoveChannel(std::uint32_t channel) = 0;
  virtual void AddService(ServiceSpec spec, ServiceHandler handler) = 0;
  virtual void SetDocument(std::string path, std::string content_type, std::string body) = 0;
  virtual void Start() = 0;
  virtual void Stop() = 0;
  virtual void Publish(std::uint32_t channel, std::uint64_t log_time_ns,
                       std::string_view payload) = 0;
  virtual LiveStats stats() const = 0;
};

template <class Config>
class ServerImpl final : public LiveServer::Impl {
 public:
  using Server = websocketpp::server<Config>;
  using ConnectionPtr = typename Server::connection_ptr;

  explicit ServerImpl(LiveOptions options);
  ~ServerImpl() override;

  std::uint16_t port() const override { return port_; }
  std::uint32_t AddChannel(ChannelSpec spec) override;
  void RemoveChannel(std::uint32_t channel) override;
  void AddService(ServiceSpec spec, ServiceHandler handler) override;
  void SetDocument(std::string path, std::string content_type, std::string body) override;
  void Start() override;
  void Stop() override;
  void Publish(std::uint32_t channel, std::uint64_t log_time_ns, std::string_view payload) override;
  LiveStats stats() const override;

 private:
  struct Client {
    ConnectionPtr connection;
    Role role = Role::kViewer;
    Subscriptions subscriptions;
    std::string remote;    // "address:port", for logs
    bool dropped = false;  // disconnected for its backlog; closing
    std::chrono::steady_clock::time_point requests_since{};  // this second's first request
    int requests = 0;                                        // since requests_since
  };
  struct Service {
    ServiceSpec spec;
    ServiceHandler handler;
    std::string object;  // its advertiseServices entry
  };

  // Every accepted socket until websocketpp terminates it, keyed by its connection: what the
  // cap counts.
  struct Socket {
    std::weak_ptr<typename Server::connection_type> connection;
    std::chrono::steady_clock::time_point accepted;
    bool websocket = false;  // its upgrade succeeded (else: handshake or HTTP under way)
    bool timed_out = false;  // reset by Sweep or evicted: counted there, not as a TLS failure
    std::string remote;      // "address:port" at accept, for the log (the socket may be closed)
  };

  // Live thread.
  void Run();
  std::size_t ComputeCap() const;
  void StartAccept();
  void OnAccept(const ConnectionPtr& con, const websocketpp::lib::error_code& ec);
  bool EvictOldestUnfinished();
  void Sweep();
  bool CheckHostAndOrigin(const ConnectionPtr& con, bool upgrade);
  bool OnValidate(connection_hdl hdl);
  void OnOpen(connection_hdl hdl);
  void OnClose(connection_hdl hdl);
  void OnHttp(connection_hdl hdl);
  void OnFail(connection_hdl hdl);
  void OnMessage(connection_hdl hdl, typename Server::message_ptr message);
  void OnText(Client& client, const std::string& text);
  void OnServiceCall(Client& client, const std::string& bytes);
  std::string RefusalOf(const Client& client, const Service& service) const;
  void Drain();
  void FanOut(std::uint32_t channel, std::uint64_t log_time_ns, const WsMessagePtr& payload);
  void DropSlow(Client& client, std::size_t backlog);
  void Drop(Client& client, const std::string& why);
  void BeginStop();
  void Send(Client& client, const std::string& bytes,
            websocketpp::frame::opcode::value opcode = websocketpp::frame::opcode::text);
  void SendToAll(const std::string& text);
  void Unsubscribed(std::uint32_t channel);

  // Declared first: destroyed last, after everything that holds its sockets.
  asio::io_context io_;
  LiveOptions options_;
  Server server_;
  std::uint16_t port_ = 0;
  std::thread thread_;
  std::atomic<bool> running_{false};

  // Written by the live thread, read by Publish: how many clients subscribe to each channel.
  std::array<std::atomic<std::uint32_t>, kMaxChannels + 1> subscribers_{};
  std::atomic<std::uint32_t> next_channel_{1};
  std::atomic<std::uint32_t> next_service_{1};
  // Publish -> live thread: a lock-free stack of messages (newest first), drained every
  // kDrainPeriod; pending_bytes_ bounds it.
  struct Pending {
    std::uint32_t channel;
    std::uint64_t log_time_ns;
    WsMessagePtr frame;
    Pending* next;
  };
  std::atomic<Pending*> pending_{nullptr};
  std::atomic<std::size_t> pending_bytes_{0};

  std::atomic<std::size_t> clients_count_{0};
  std::atomic<std::uint64_t> messages_sent_{0}, bytes_sent_{0}, slow_dropped_{0};
  std::atomic<std::uint64_t> messages_dropped_{0}, refused_{0}, service_calls_{0};
  std::atomic<std::size_t> sockets_count_{0};
  std::atomic<std::uint64_t> connections_refused_{0}, timed_out_{0}, forbidden_{0};
  std::atomic<std::uint64_t> accept_errors_{0}, flooding_dropped_{0}, tls_failed_{0};
  std::size_t cap_ = 0;  // written by Start() before the live thread runs

  // Live thread only.
  std::map<connection_hdl, Client, std::owner_less<connection_hdl>> clients_;
  std::map<std::uint32_t, std::string> channel_objects_;  // id -> advertise entry
  std::map<std::uint32_t, Service> services_;
  HttpRoutes routes_;
  std::string session_id_;
  bool stopping_ = false;
  asio::steady_timer stop_timer_{io_};
  asio::steady_timer drain_timer_{io_};
  bool draining_ = false;  // drain_timer_ is armed: a viewer is connected
  std::map<const void*, Socket> sockets_;
  asio::steady_timer accept_timer_{io_};
  asio::steady_timer sweep_timer_{io_};
  bool sweeping_ = false;        // sweep_timer_ is armed: a socket is open
  bool accept_failing_ = false;  // logged once per run of failed accepts
  std::chrono::steady_clock::time_point refusal_logged_{};    // at most one log line a second
  std::chrono::steady_clock::time_point forbidden_logged_{};  // the same for 403s
  access::LogLimiter tls_failure_log_{kTlsFailureLogPeriod};
};

// Every file of the server instantiates its members for both configs with this.
#define ROBOT_EDGE_LIVE_INSTANTIATE_SERVER \
  template class ServerImpl<WsConfig>;     \
  template class ServerImpl<WssConfig>;

}  // namespace robot_edge::live
