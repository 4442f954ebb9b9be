// LiveServer on websocketpp. Compiled as C++17 (see live_server.hpp). Everything below the public
// methods runs on the live thread; the public methods only post to it or read atomics.
#include "live/live_server.hpp"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "live/access.hpp"
#include "live/http_routes.hpp"
#include "live/protocol.hpp"
#include "live/subscriptions.hpp"
#include "live/ws_config.hpp"
#include "live/ws_frame.hpp"

namespace robot_edge::live {
namespace {

constexpr std::size_t kMaxClients = 32;
constexpr std::size_t kMaxClientMessageBytes = 64 * 1024;  // what a client may send at once
constexpr std::size_t kMaxPendingBytes = 16 << 20;         // posted by Publish, not yet fanned out
constexpr int kSocketSendBufferBytes = 256 * 1024;  // kernel buffer: bounds latency; the rest of
                                                    // a slow client's backlog is ours to count
constexpr auto kStopGrace = std::chrono::seconds(1);

using websocketpp::connection_hdl;

// A prepared (framed) message websocketpp writes as it is.
WsMessagePtr PreparedFrame(std::string header, const void* payload, std::size_t size) {
  auto frame = std::make_shared<WsMessage>(nullptr, websocketpp::frame::opcode::binary, 0);
  frame->set_header(header);
  frame->set_payload(payload, size);
  frame->set_prepared(true);
  return frame;
}

const char* RoleName(Role role) {
  switch (role) {
    case Role::kOperator:
      return "operator";
    case Role::kWrongOperatorToken:
      return "viewer (wrong operator token)";
    case Role::kViewer:
      break;
  }
  return "viewer";
}

}  // namespace

class LiveServer::Impl {
 public:
  explicit Impl(LiveOptions options);
  ~Impl() { Stop(); }

  std::uint16_t port() const { return port_; }
  std::uint32_t AddChannel(ChannelSpec spec);
  void RemoveChannel(std::uint32_t channel);
  void AddService(ServiceSpec spec, ServiceHandler handler);
  void SetDocument(std::string path, std::string content_type, std::string body);
  void Start();
  void Stop();
  void Publish(std::uint32_t channel, std::uint64_t log_time_ns, std::string_view payload);
  LiveStats stats() const;

 private:
  struct Client {
    WsConnectionPtr connection;
    Role role = Role::kViewer;
    Subscriptions subscriptions;
    std::string remote;    // "address:port", for logs
    bool dropped = false;  // disconnected for its backlog; closing
  };
  struct Service {
    ServiceSpec spec;
    ServiceHandler handler;
    std::string object;  // its advertiseServices entry
  };

  // Live thread.
  void Run();
  bool OnValidate(connection_hdl hdl);
  void OnOpen(connection_hdl hdl);
  void OnClose(connection_hdl hdl);
  void OnHttp(connection_hdl hdl);
  void OnMessage(connection_hdl hdl, WsServer::message_ptr message);
  void OnText(Client& client, const std::string& text);
  void OnServiceCall(Client& client, const std::string& bytes);
  std::string RefusalOf(const Client& client, const Service& service) const;
  void FanOut(std::uint32_t channel, std::uint64_t log_time_ns, const WsMessagePtr& payload);
  void DropSlow(Client& client, std::size_t backlog);
  void BeginStop();
  void Send(Client& client, const std::string& text);
  void SendToAll(const std::string& text);
  void Unsubscribed(std::uint32_t channel);

  // Declared first: destroyed last, after everything that holds its sockets.
  asio::io_context io_;
  LiveOptions options_;
  WsServer server_;
  std::uint16_t port_ = 0;
  std::thread thread_;
  std::atomic<bool> running_{false};

  // Written by the live thread, read by Publish: how many clients subscribe to each channel.
  std::array<std::atomic<std::uint32_t>, kMaxChannels + 1> subscribers_{};
  std::atomic<std::uint32_t> next_channel_{1};
  std::atomic<std::uint32_t> next_service_{1};
  std::atomic<std::size_t> pending_bytes_{0};

  std::atomic<std::size_t> clients_count_{0};
  std::atomic<std::uint64_t> messages_sent_{0}, bytes_sent_{0}, slow_dropped_{0};
  std::atomic<std::uint64_t> messages_dropped_{0}, refused_{0}, service_calls_{0};

  // Live thread only.
  std::map<connection_hdl, Client, std::owner_less<connection_hdl>> clients_;
  std::map<std::uint32_t, std::string> channel_objects_;  // id -> advertise entry
  std::map<std::uint32_t, Service> services_;
  HttpRoutes routes_;
  std::string session_id_;
  bool stopping_ = false;
  asio::steady_timer stop_timer_{io_};
};

LiveServer::Impl::Impl(LiveOptions options)
    : options_(std::move(options)), routes_(options_.web_root) {
  if (const std::string why = CheckOptions(options_); !why.empty()) {
    throw std::invalid_argument(why);
  }
  asio::error_code ec;
  const asio::ip::address address = asio::ip::make_address(options_.address, ec);
  if (ec) {
    throw std::invalid_argument("live view: address \"" + options_.address +
                                "\" is not an IP address");
  }
  server_.clear_access_channels(websocketpp::log::alevel::all);
  server_.clear_error_channels(websocketpp::log::elevel::all);
  server_.init_asio(&io_);
  server_.set_reuse_addr(true);
  server_.set_max_message_size(kMaxClientMessageBytes);
  server_.set_max_http_body_size(kMaxClientMessageBytes);
  server_.set_open_handshake_timeout(5000);
  server_.set_close_handshake_timeout(1000);
  server_.set_user_agent("robot-edge live view");
  server_.set_socket_init_handler([](connection_hdl, asio::ip::tcp::socket& socket) {
    asio::error_code ignored;
    socket.set_option(asio::ip::tcp::no_delay(true), ignored);
    socket.set_option(asio::socket_base::send_buffer_size(kSocketSendBufferBytes), ignored);
  });
  server_.set_validate_handler([this](connection_hdl hdl) { return OnValidate(hdl); });
  server_.set_open_handler([this](connection_hdl hdl) { OnOpen(hdl); });
  server_.set_close_handler([this](connection_hdl hdl) { OnClose(hdl); });
  server_.set_http_handler([this](connection_hdl hdl) { OnHttp(hdl); });
  server_.set_message_handler(
      [this](connection_hdl hdl, WsServer::message_ptr message) { OnMessage(hdl, message); });

  const asio::ip::tcp::endpoint endpoint(address, options_.port);
  websocketpp::lib::error_code listen_ec;
  server_.listen(endpoint, listen_ec);
  if (listen_ec) {
    throw std::runtime_error("live view: cannot listen on " + options_.address + ":" +
                             std::to_string(options_.port) + ": " + listen_ec.message());
  }
  port_ = server_.get_local_endpoint(listen_ec).port();
  session_id_ = std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
}

// ---- Any thread.

std::uint32_t LiveServer::Impl::AddChannel(ChannelSpec spec) {
  const std::uint32_t id = next_channel_.fetch_add(1);
  if (id > kMaxChannels) {
    throw std::length_error("live view: more than " + std::to_string(kMaxChannels) +
                            " channels (adding " + spec.topic + ")");
  }
  std::string object = protocol::ChannelObject(id, spec);
  asio::post(io_, [this, id, object = std::move(object)] {
    channel_objects_[id] = object;
    SendToAll(protocol::Advertise({object}));
  });
  return id;
}

void LiveServer::Impl::RemoveChannel(std::uint32_t channel) {
  asio::post(io_, [this, channel] {
    if (channel_objects_.erase(channel) == 0) return;
    for (auto& [hdl, client] : clients_) {
      if (client.subscriptions.RemoveChannel(channel)) Unsubscribed(channel);
    }
    SendToAll(protocol::Unadvertise({channel}));
  });
}

void LiveServer::Impl::AddService(ServiceSpec spec, ServiceHandler handler) {
  const std::uint32_t id = next_service_.fetch_add(1);
  std::string object = protocol::ServiceObject(id, spec);
  asio::post(io_,
             [this, id,
              service = Service{std::move(spec), std::move(handler), std::move(object)}]() mutable {
               const std::string message = protocol::AdvertiseServices({service.object});
               services_.emplace(id, std::move(service));
               SendToAll(message);
             });
}

void LiveServer::Impl::SetDocument(std::string path, std::string content_type, std::string body) {
  asio::post(io_, [this, path = std::move(path), type = std::move(content_type),
                   body = std::move(body)]() mutable {
    routes_.SetDocument(std::move(path), std::move(type), std::move(body));
  });
}

void LiveServer::Impl::Start() {
  if (running_.exchange(true)) return;
  server_.start_accept();
  thread_ = std::thread([this] { Run(); });
  pthread_setname_np(thread_.native_handle(), "re-live");
  spdlog::info("live view: listening on {}:{}{}{}", options_.address, port_,
               options_.token.empty() ? "" : " (token required)",
               options_.web_root.empty() ? "" : ", dashboard from " + options_.web_root);
}

void LiveServer::Impl::Stop() {
  if (!running_.exchange(false)) return;
  asio::post(io_, [this] { BeginStop(); });
  thread_.join();
  clients_.clear();
  for (auto& count : subscribers_) count.store(0);
  clients_count_.store(0);
}

void LiveServer::Impl::Publish(std::uint32_t channel, std::uint64_t log_time_ns,
                               std::string_view payload) {
  if (channel == 0 || channel > kMaxChannels) return;
  if (subscribers_[channel].load(std::memory_order_relaxed) == 0) return;
  if (pending_bytes_.load(std::memory_order_relaxed) + payload.size() > kMaxPendingBytes) {
    messages_dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  pending_bytes_.fetch_add(payload.size(), std::memory_order_relaxed);
  WsMessagePtr frame = PreparedFrame(WsFrameHeader(kWsContinuation, true, payload.size()),
                                     payload.data(), payload.size());
  asio::post(io_, [this, channel, log_time_ns, frame = std::move(frame)] {
    FanOut(channel, log_time_ns, frame);
  });
}

LiveStats LiveServer::Impl::stats() const {
  LiveStats s;
  s.clients = clients_count_.load();
  s.messages_sent = messages_sent_.load();
  s.bytes_sent = bytes_sent_.load();
  s.slow_clients_dropped = slow_dropped_.load();
  s.messages_dropped = messages_dropped_.load();
  s.refused = refused_.load();
  s.service_calls = service_calls_.load();
  return s;
}

// ---- Live thread.

void LiveServer::Impl::Run() {
  for (;;) {
    try {
      io_.run();
      return;
    } catch (const std::exception& e) {  // a handler's bug must not end the live view
      spdlog::error("live view: {}", e.what());
    }
  }
}

bool LiveServer::Impl::OnValidate(connection_hdl hdl) {
  const WsConnectionPtr con = server_.get_con_from_hdl(hdl);
  const Access access = Authorize(options_, con->get_resource(), con->get_request_header("Cookie"));
  if (!access.allowed) {
    refused_.fetch_add(1);
    spdlog::warn("live view: refused {}: missing or wrong token", con->get_remote_endpoint());
    con->set_status(websocketpp::http::status_code::unauthorized);
    con->set_body("live view: a token is required (ws://host:port/?token=...)\n");
    return false;
  }
  const auto& offered = con->get_requested_subprotocols();
  if (std::find(offered.begin(), offered.end(), protocol::kSubprotocol) == offered.end()) {
    con->set_status(websocketpp::http::status_code::bad_request);
    con->set_body("live view: subprotocol foxglove.websocket.v1 required\n");
    return false;
  }
  if (clients_.size() >= kMaxClients || stopping_) {
    con->set_status(websocketpp::http::status_code::service_unavailable);
    con->set_body("live view: too many clients\n");
    return false;
  }
  con->select_subprotocol(std::string(protocol::kSubprotocol));
  return true;
}

void LiveServer::Impl::OnOpen(connection_hdl hdl) {
  const WsConnectionPtr con = server_.get_con_from_hdl(hdl);
  Client& client = clients_[hdl];
  client.connection = con;
  client.role = Authorize(options_, con->get_resource(), "").role;
  client.remote = con->get_remote_endpoint();
  clients_count_.store(clients_.size());
  spdlog::info("live view: {} connected as {}", client.remote, RoleName(client.role));

  Send(client, protocol::ServerInfo(options_.name, session_id_));
  std::vector<std::string> channels;
  for (const auto& [id, object] : channel_objects_) channels.push_back(object);
  Send(client, protocol::Advertise(channels));
  std::vector<std::string> services;
  for (const auto& [id, service] : services_) services.push_back(service.object);
  if (!services.empty()) Send(client, protocol::AdvertiseServices(services));
  if (client.role == Role::kWrongOperatorToken) {
    Send(client, protocol::Status(protocol::StatusLevel::kWarning,
                                  "operator_token is wrong: operator services will refuse calls"));
  }
}

void LiveServer::Impl::OnClose(connection_hdl hdl) {
  const auto it = clients_.find(hdl);
  if (it == clients_.end()) return;
  for (const std::uint32_t channel : it->second.subscriptions.Channels()) Unsubscribed(channel);
  spdlog::info("live view: {} disconnected", it->second.remote);
  clients_.erase(it);
  clients_count_.store(clients_.size());
  if (stopping_ && clients_.empty()) stop_timer_.cancel();
}

void LiveServer::Impl::OnHttp(connection_hdl hdl) {
  const WsConnectionPtr con = server_.get_con_from_hdl(hdl);
  if (con->get_request().get_method() != "GET") {
    con->set_status(websocketpp::http::status_code::method_not_allowed);
    con->set_body("live view: GET only\n");
    return;
  }
  const std::string& target = con->get_resource();
  const Access access = Authorize(options_, target, con->get_request_header("Cookie"));
  if (!access.allowed) {
    refused_.fetch_add(1);
    spdlog::warn("live view: refused GET from {}: missing or wrong token",
                 con->get_remote_endpoint());
    con->set_status(websocketpp::http::status_code::unauthorized);
    con->set_body("live view: a token is required: open this page with ?token=...\n");
    return;
  }
  const HttpReply reply = routes_.Get(PathOf(target));
  con->set_status(static_cast<websocketpp::http::status_code::value>(reply.status));
  con->set_body(reply.body);
  con->replace_header("Content-Type", reply.content_type);
  con->replace_header("Cache-Control", "no-store");
  con->replace_header("X-Content-Type-Options", "nosniff");
  con->replace_header("Content-Security-Policy", std::string(kContentSecurityPolicy));
  if (access.token_in_query) con->replace_header("Set-Cookie", TokenCookie(options_.token));
}

void LiveServer::Impl::OnMessage(connection_hdl hdl, WsServer::message_ptr message) {
  const auto it = clients_.find(hdl);
  if (it == clients_.end()) return;
  if (message->get_opcode() == websocketpp::frame::opcode::text) {
    OnText(it->second, message->get_payload());
  } else {
    OnServiceCall(it->second, message->get_payload());
  }
}

void LiveServer::Impl::OnText(Client& client, const std::string& text) {
  using Kind = protocol::ClientRequest::Kind;
  const protocol::ClientRequest request = protocol::ParseClientText(text);
  const auto warn = [&](const std::string& message) {
    Send(client, protocol::Status(protocol::StatusLevel::kWarning, message));
  };
  switch (request.kind) {
    case Kind::kInvalid:
      return warn("message not understood: " + request.error);
    case Kind::kUnsupported:
      return warn("op \"" + request.op + "\" is not supported by this server");
    case Kind::kSubscribe:
      for (const auto& s : request.subscriptions) {
        if (channel_objects_.count(s.channel_id) == 0) {
          warn("subscribe: no channel " + std::to_string(s.channel_id));
          continue;
        }
        const auto result = client.subscriptions.Add(s.id, s.channel_id);
        if (result == Subscriptions::Result::kOk) {
          subscribers_[s.channel_id].fetch_add(1);
        } else {
          warn("subscribe: " +
               std::string(result == Subscriptions::Result::kIdInUse
                               ? "subscription id in use: "
                               : "already subscribed to channel ") +
               std::to_string(result == Subscriptions::Result::kIdInUse ? s.id : s.channel_id));
        }
      }
      return;
    case Kind::kUnsubscribe:
      for (const std::uint32_t id : request.subscription_ids) {
        if (const auto channel = client.subscriptions.Remove(id)) {
          Unsubscribed(*channel);
        } else {
          warn("unsubscribe: no subscription " + std::to_string(id));
        }
      }
      return;
  }
}

void LiveServer::Impl::OnServiceCall(Client& client, const std::string& bytes) {
  const auto request = protocol::ParseServiceCallRequest(bytes);
  if (!request) {
    Send(client, protocol::Status(protocol::StatusLevel::kError,
                                  "binary message not understood (only serviceCallRequest)"));
    return;
  }
  service_calls_.fetch_add(1);
  const auto fail = [&](const std::string& why) {
    Send(client, protocol::ServiceCallFailure(request->service_id, request->call_id, why));
  };
  const auto it = services_.find(request->service_id);
  if (it == services_.end()) return fail("no service " + std::to_string(request->service_id));
  const Service& service = it->second;
  if (request->encoding != protocol::kServiceEncoding) {
    return fail("encoding \"" + std::string(request->encoding) + "\" not supported: use json");
  }
  if (const std::string refusal = RefusalOf(client, service); !refusal.empty()) {
    spdlog::warn("live view: {} called {}: refused ({})", client.remote, service.spec.name,
                 refusal);
    return fail(refusal);
  }
  ServiceReply reply;
  try {
    reply = service.handler(request->payload);
  } catch (const std::exception& e) {
    reply = ServiceReply{false, std::string("service failed: ") + e.what()};
  }
  spdlog::info("live view: {} called {}: {}", client.remote, service.spec.name,
               reply.ok ? "ok" : reply.body);
  if (!reply.ok) return fail(reply.body);
  const std::string response = protocol::ServiceCallResponse(
      request->service_id, request->call_id, protocol::kServiceEncoding, reply.body);
  (void)client.connection->send(response, websocketpp::frame::opcode::binary);
}

// Why `client` may not call `service` ("" = it may).
std::string LiveServer::Impl::RefusalOf(const Client& client, const Service& service) const {
  if (!service.spec.operator_only || client.role == Role::kOperator) return "";
  if (options_.operator_token.empty()) {
    return service.spec.name + " is an operator service and this server has no operator token";
  }
  if (client.role == Role::kWrongOperatorToken) {
    return service.spec.name + " needs the operator token: this connection's is wrong";
  }
  return service.spec.name +
         " needs the operator token: connect with ?operator_token=... to call it";
}

void LiveServer::Impl::FanOut(std::uint32_t channel, std::uint64_t log_time_ns,
                              const WsMessagePtr& payload) {
  const std::size_t payload_bytes = payload->get_payload().size();
  pending_bytes_.fetch_sub(payload_bytes, std::memory_order_relaxed);
  const std::size_t frame_bytes =
      2 + protocol::kMessageDataHeaderBytes + payload->get_header().size() + payload_bytes;
  std::vector<std::pair<Client*, std::size_t>> slow;
  for (auto& [hdl, client] : clients_) {
    const auto id = client.subscriptions.IdFor(channel);
    if (!id || client.dropped) continue;
    const std::size_t backlog = client.connection->get_buffered_amount();
    if (backlog + frame_bytes > options_.max_client_backlog_bytes) {
      slow.emplace_back(&client, backlog);
      continue;
    }
    const auto head = protocol::MessageDataHeader(*id, log_time_ns);
    client.connection->send(
        PreparedFrame(WsFrameHeader(kWsBinary, false, head.size()), head.data(), head.size()));
    client.connection->send(payload);
    messages_sent_.fetch_add(1, std::memory_order_relaxed);
    bytes_sent_.fetch_add(frame_bytes, std::memory_order_relaxed);
  }
  for (auto& [client, backlog] : slow) DropSlow(*client, backlog);
}

// Resets the connection: its queued bytes go nowhere, and the others are not held up by it.
void LiveServer::Impl::DropSlow(Client& client, std::size_t backlog) {
  client.dropped = true;
  slow_dropped_.fetch_add(1);
  spdlog::warn("live view: {} is {} bytes behind (limit {}): disconnected", client.remote, backlog,
               options_.max_client_backlog_bytes);
  asio::error_code ignored;
  client.connection->get_raw_socket().set_option(asio::socket_base::linger(true, 0), ignored);
  client.connection->terminate(websocketpp::error::make_error_code(websocketpp::error::general));
}

void LiveServer::Impl::BeginStop() {
  stopping_ = true;
  websocketpp::lib::error_code ignored;
  server_.stop_listening(ignored);
  std::vector<WsConnectionPtr> connections;
  for (auto& [hdl, client] : clients_) connections.push_back(client.connection);
  for (const auto& con : connections) {
    con->close(websocketpp::close::status::going_away, "robot-edge live view stopping", ignored);
  }
  if (clients_.empty()) return;
  stop_timer_.expires_after(kStopGrace);
  stop_timer_.async_wait([this](const asio::error_code& ec) {
    if (!ec) io_.stop();  // clients that did not close in time
  });
}

// A closing connection refuses; nothing to do about it.
void LiveServer::Impl::Send(Client& client, const std::string& text) {
  (void)client.connection->send(text, websocketpp::frame::opcode::text);
}

void LiveServer::Impl::SendToAll(const std::string& text) {
  for (auto& [hdl, client] : clients_) Send(client, text);
}

void LiveServer::Impl::Unsubscribed(std::uint32_t channel) {
  if (channel <= kMaxChannels) subscribers_[channel].fetch_sub(1);
}

// ---- The public class: forwards to Impl.

LiveServer::LiveServer(LiveOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
LiveServer::~LiveServer() = default;
std::uint16_t LiveServer::port() const { return impl_->port(); }
std::uint32_t LiveServer::AddChannel(ChannelSpec spec) {
  return impl_->AddChannel(std::move(spec));
}
void LiveServer::RemoveChannel(std::uint32_t channel) { impl_->RemoveChannel(channel); }
void LiveServer::AddService(ServiceSpec spec, ServiceHandler handler) {
  impl_->AddService(std::move(spec), std::move(handler));
}
void LiveServer::SetDocument(std::string path, std::string content_type, std::string body) {
  impl_->SetDocument(std::move(path), std::move(content_type), std::move(body));
}
void LiveServer::Start() { impl_->Start(); }
void LiveServer::Stop() { impl_->Stop(); }
void LiveServer::Publish(std::uint32_t channel, std::uint64_t log_time_ns,
                         std::string_view payload) {
  impl_->Publish(channel, log_time_ns, payload);
}
LiveStats LiveServer::stats() const { return impl_->stats(); }

}  // namespace robot_edge::live
