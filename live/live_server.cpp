// LiveServer's lifecycle, Publish and the fan-out to subscribers (server_impl.hpp). Compiled as
// C++17 (see live_server.hpp). Publish and the other public methods only push to the live thread
// or read atomics; everything from Run() down runs on the live thread.
#include "live/live_server.hpp"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "live/protocol.hpp"
#include "live/server_impl.hpp"
#include "live/ws_frame.hpp"

namespace robot_edge::live {

WsMessagePtr PreparedFrame(std::string header, const void* payload, std::size_t size) {
  auto frame = std::make_shared<WsMessage>(nullptr, websocketpp::frame::opcode::binary, 0);
  frame->set_header(header);
  frame->set_payload(payload, size);
  frame->set_prepared(true);
  return frame;
}

template <class Config>
ServerImpl<Config>::ServerImpl(LiveOptions options)
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
  server_.set_open_handshake_timeout(options_.handshake_timeout_ms);
  server_.set_close_handshake_timeout(1000);
  server_.set_user_agent("robot-edge live view");
  server_.set_socket_init_handler([](connection_hdl, auto& stream) {  // a socket, or TLS over one
    asio::error_code ignored;
    stream.lowest_layer().set_option(asio::ip::tcp::no_delay(true), ignored);
    stream.lowest_layer().set_option(asio::socket_base::send_buffer_size(kSocketSendBufferBytes),
                                     ignored);
  });
  if constexpr (Config::kTls) {
    if (!options_.tls) throw std::invalid_argument("live view: a TLS server without a context");
    server_.set_tls_init_handler([tls = options_.tls](connection_hdl) { return tls; });
  }
  server_.set_fail_handler([this](connection_hdl hdl) { OnFail(hdl); });
  server_.set_validate_handler([this](connection_hdl hdl) { return OnValidate(hdl); });
  server_.set_open_handler([this](connection_hdl hdl) { OnOpen(hdl); });
  server_.set_close_handler([this](connection_hdl hdl) { OnClose(hdl); });
  server_.set_http_handler([this](connection_hdl hdl) { OnHttp(hdl); });
  server_.set_message_handler([this](connection_hdl hdl, typename Server::message_ptr message) {
    OnMessage(hdl, message);
  });

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

template <class Config>
ServerImpl<Config>::~ServerImpl() {
  Stop();
  for (Pending* node = pending_.exchange(nullptr); node != nullptr;) {
    Pending* next = node->next;
    delete node;
    node = next;
  }
}

// ---- Any thread.

template <class Config>
std::uint32_t ServerImpl<Config>::AddChannel(ChannelSpec spec) {
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

template <class Config>
void ServerImpl<Config>::RemoveChannel(std::uint32_t channel) {
  asio::post(io_, [this, channel] {
    if (channel_objects_.erase(channel) == 0) return;
    for (auto& [hdl, client] : clients_) {
      if (client.subscriptions.RemoveChannel(channel)) Unsubscribed(channel);
    }
    SendToAll(protocol::Unadvertise({channel}));
  });
}

template <class Config>
void ServerImpl<Config>::AddService(ServiceSpec spec, ServiceHandler handler) {
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

template <class Config>
void ServerImpl<Config>::SetDocument(std::string path, std::string content_type, std::string body) {
  asio::post(io_, [this, path = std::move(path), type = std::move(content_type),
                   body = std::move(body)]() mutable {
    routes_.SetDocument(std::move(path), std::move(type), std::move(body));
  });
}

template <class Config>
void ServerImpl<Config>::Start() {
  if (running_.exchange(true)) return;
  cap_ = ComputeCap();
  StartAccept();  // the first viewer starts the drain (OnOpen)
  thread_ = std::thread([this] { Run(); });
  pthread_setname_np(thread_.native_handle(), "re-live");
  spdlog::info("live view: listening on {}:{}{}, {} connections at most{}{}", options_.address,
               port_, Config::kTls ? " (TLS)" : "", cap_,
               options_.token.empty() ? "" : " (token required)",
               options_.web_root.empty() ? "" : ", dashboard from " + options_.web_root);
}

template <class Config>
void ServerImpl<Config>::Stop() {
  if (!running_.exchange(false)) return;
  asio::post(io_, [this] { BeginStop(); });
  thread_.join();
  clients_.clear();
  sockets_.clear();
  drain_timer_.cancel();
  for (auto& count : subscribers_) count.store(0);
  clients_count_.store(0);
}

template <class Config>
void ServerImpl<Config>::Publish(std::uint32_t channel, std::uint64_t log_time_ns,
                                 std::string_view payload) {
  if (channel == 0 || channel > kMaxChannels) return;
  if (subscribers_[channel].load(std::memory_order_relaxed) == 0) return;
  if (pending_bytes_.load(std::memory_order_relaxed) + payload.size() > kMaxPendingBytes) {
    messages_dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  pending_bytes_.fetch_add(payload.size(), std::memory_order_relaxed);
  auto* node = new Pending{channel, log_time_ns,
                           PreparedFrame(WsFrameHeader(kWsContinuation, true, payload.size()),
                                         payload.data(), payload.size()),
                           pending_.load(std::memory_order_relaxed)};
  while (!pending_.compare_exchange_weak(node->next, node, std::memory_order_release,
                                         std::memory_order_relaxed)) {
  }
}

template <class Config>
LiveStats ServerImpl<Config>::stats() const {
  LiveStats s;
  s.clients = clients_count_.load();
  s.messages_sent = messages_sent_.load();
  s.bytes_sent = bytes_sent_.load();
  s.slow_clients_dropped = slow_dropped_.load();
  s.messages_dropped = messages_dropped_.load();
  s.refused = refused_.load();
  s.service_calls = service_calls_.load();
  s.connections = sockets_count_.load();
  s.connection_cap = cap_;
  s.connections_refused = connections_refused_.load();
  s.connections_timed_out = timed_out_.load();
  s.forbidden = forbidden_.load();
  s.accept_errors = accept_errors_.load();
  s.flooding_dropped = flooding_dropped_.load();
  s.tls_handshakes_failed = tls_failed_.load();
  return s;
}

// ---- Live thread.

template <class Config>
void ServerImpl<Config>::Run() {
  for (;;) {
    try {
      io_.run();
      return;
    } catch (const std::exception& e) {  // a handler's bug must not end the live view
      spdlog::error("live view: {}", e.what());
    }
  }
}

// Fans out what Publish queued, oldest first, then runs again in kDrainPeriod while a viewer is
// connected. With none, nothing is queued (Publish skips channels nobody subscribes to), so the
// live thread sleeps until the next connection instead of waking every kDrainPeriod.
template <class Config>
void ServerImpl<Config>::Drain() {
  Pending* node = pending_.exchange(nullptr, std::memory_order_acquire);
  Pending* oldest = nullptr;
  while (node != nullptr) {  // reverse: the stack holds the newest first
    Pending* next = node->next;
    node->next = oldest;
    oldest = node;
    node = next;
  }
  while (oldest != nullptr) {
    Pending* next = oldest->next;
    if (!stopping_) FanOut(oldest->channel, oldest->log_time_ns, oldest->frame);
    pending_bytes_.fetch_sub(oldest->frame->get_payload().size(), std::memory_order_relaxed);
    delete oldest;
    oldest = next;
  }
  draining_ = !stopping_ && !clients_.empty();
  if (!draining_) return;
  drain_timer_.expires_after(kDrainPeriod);
  drain_timer_.async_wait([this](const asio::error_code& ec) {
    if (!ec) Drain();
  });
}

template <class Config>
void ServerImpl<Config>::FanOut(std::uint32_t channel, std::uint64_t log_time_ns,
                                const WsMessagePtr& payload) {
  const std::size_t payload_bytes = payload->get_payload().size();
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

// Resets the connection: its queued bytes go nowhere, and the others are not held up by it. A
// peer that does not read would never get a close frame, so the reason is in the log (once: a
// dropped client is sent nothing more). The reset runs after the current handler, as it calls
// OnClose, which frees `client`.
template <class Config>
void ServerImpl<Config>::DropSlow(Client& client, std::size_t backlog) {
  if (client.dropped) return;
  slow_dropped_.fetch_add(1);
  Drop(client, std::to_string(backlog) + " bytes behind (limit " +
                   std::to_string(options_.max_client_backlog_bytes) + ")");
}

template <class Config>
void ServerImpl<Config>::Drop(Client& client, const std::string& why) {
  if (client.dropped) return;
  client.dropped = true;
  spdlog::warn("live view: {} is {}: disconnected", client.remote, why);
  asio::error_code ignored;
  client.connection->get_raw_socket().set_option(asio::socket_base::linger(true, 0), ignored);
  asio::post(io_, [con = client.connection] {
    con->terminate(websocketpp::error::make_error_code(websocketpp::error::general));
  });
}

template <class Config>
void ServerImpl<Config>::BeginStop() {
  stopping_ = true;
  websocketpp::lib::error_code ignored;
  server_.stop_listening(ignored);
  accept_timer_.cancel();
  sweep_timer_.cancel();
  std::vector<ConnectionPtr> unfinished;  // handshakes and HTTP exchanges: reset
  for (const auto& [key, socket] : sockets_) {
    if (auto con = socket.connection.lock(); con && !socket.websocket) unfinished.push_back(con);
  }
  for (const auto& con : unfinished) {
    con->get_raw_socket().set_option(asio::socket_base::linger(true, 0), ignored);
    con->terminate(websocketpp::error::make_error_code(websocketpp::error::general));
  }
  std::vector<ConnectionPtr> connections;
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

ROBOT_EDGE_LIVE_INSTANTIATE_SERVER

// ---- The public class: forwards to Impl.

namespace {

std::unique_ptr<LiveServer::Impl> MakeImpl(LiveOptions options) {
  if (options.tls) return std::make_unique<ServerImpl<WssConfig>>(std::move(options));
  return std::make_unique<ServerImpl<WsConfig>>(std::move(options));
}

}  // namespace

LiveServer::LiveServer(LiveOptions options) : impl_(MakeImpl(std::move(options))) {}
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
