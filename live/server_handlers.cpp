// What each connection of the live view says: the WebSocket handshake (token, subprotocol), HTTP
// GETs (documents, the dashboard's files), the protocol's text messages and service calls.
// Live thread only; compiled as C++17 (see live_server.hpp).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

#include "live/protocol.hpp"
#include "live/server_impl.hpp"

namespace robot_edge::live {
namespace {

const char* RoleName(Role role) {
  switch (role) {
    case Role::kOperator: return "operator";
    case Role::kWrongOperatorToken: return "viewer (wrong operator token)";
    case Role::kViewer: break;
  }
  return "viewer";
}

}  // namespace

template <class Config>
bool ServerImpl<Config>::OnValidate(connection_hdl hdl) {
  const ConnectionPtr con = server_.get_con_from_hdl(hdl);
  if (!CheckHostAndOrigin(con, /*upgrade=*/true)) return false;
  const Access access = Authorize(options_, con->get_resource(), con->get_request_header("Cookie"));
  if (!access.allowed) {
    refused_.fetch_add(1);
    spdlog::warn("live view: refused {}: missing or wrong token", con->get_remote_endpoint());
    con->set_status(websocketpp::http::status_code::unauthorized);
    con->set_body(Config::kTls ? "live view: a token is required (wss://host:port/?token=...)\n"
                               : "live view: a token is required (ws://host:port/?token=...)\n");
    return false;
  }
  const auto& offered = con->get_requested_subprotocols();
  if (std::find(offered.begin(), offered.end(), protocol::kSubprotocol) == offered.end()) {
    con->set_status(websocketpp::http::status_code::bad_request);
    con->set_body("live view: subprotocol foxglove.websocket.v1 required\n");
    return false;
  }
  // Viewers leave kOperatorSlots of the cap to operators; an operator's socket was accepted under
  // the cap, so it may always open (server_door.cpp).
  const std::size_t viewers =
      static_cast<std::size_t>(std::count_if(clients_.begin(), clients_.end(), [](const auto& c) {
        return c.second.role != Role::kOperator;
      }));
  const std::size_t viewer_slots = cap_ > kOperatorSlots ? cap_ - kOperatorSlots : 0;
  if (stopping_ || (access.role != Role::kOperator && viewers >= viewer_slots)) {
    con->set_status(websocketpp::http::status_code::service_unavailable);
    con->set_body("live view: too many viewers (the operator's slots are kept)\n");
    return false;
  }
  con->select_subprotocol(std::string(protocol::kSubprotocol));
  return true;
}

template <class Config>
void ServerImpl<Config>::OnOpen(connection_hdl hdl) {
  const ConnectionPtr con = server_.get_con_from_hdl(hdl);
  if (const auto it = sockets_.find(con.get()); it != sockets_.end()) it->second.websocket = true;
  Client& client = clients_[hdl];
  client.connection = con;
  client.role = Authorize(options_, con->get_resource(), "").role;
  client.remote = con->get_remote_endpoint();
  clients_count_.store(clients_.size());
  if (!draining_) Drain();
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

template <class Config>
void ServerImpl<Config>::OnClose(connection_hdl hdl) {
  const auto it = clients_.find(hdl);
  if (it == clients_.end()) return;
  for (const std::uint32_t channel : it->second.subscriptions.Channels()) Unsubscribed(channel);
  spdlog::info("live view: {} disconnected", it->second.remote);
  clients_.erase(it);
  clients_count_.store(clients_.size());
  if (stopping_ && clients_.empty()) stop_timer_.cancel();
}

template <class Config>
void ServerImpl<Config>::OnHttp(connection_hdl hdl) {
  const ConnectionPtr con = server_.get_con_from_hdl(hdl);
  if (con->get_request().get_method() != "GET") {
    con->set_status(websocketpp::http::status_code::method_not_allowed);
    con->set_body("live view: GET only\n");
    return;
  }
  if (!CheckHostAndOrigin(con, /*upgrade=*/false)) return;
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
  if (access.token_in_query)
    con->replace_header("Set-Cookie", TokenCookie(options_.token, Config::kTls));
}

template <class Config>
void ServerImpl<Config>::OnMessage(connection_hdl hdl, typename Server::message_ptr message) {
  const auto it = clients_.find(hdl);
  if (it == clients_.end() || it->second.dropped) return;
  Client& client = it->second;
  const auto now = std::chrono::steady_clock::now();
  if (now - client.requests_since >= std::chrono::seconds(1)) {
    client.requests_since = now;
    client.requests = 0;
  }
  if (++client.requests > kMaxRequestsPerSecond) {
    flooding_dropped_.fetch_add(1);
    return Drop(client, "sending more than " + std::to_string(kMaxRequestsPerSecond) +
                            " requests a second");
  }
  if (message->get_opcode() == websocketpp::frame::opcode::text) {
    OnText(it->second, message->get_payload());
  } else {
    OnServiceCall(it->second, message->get_payload());
  }
}

template <class Config>
void ServerImpl<Config>::OnText(Client& client, const std::string& text) {
  using Kind = protocol::ClientRequest::Kind;
  const protocol::ClientRequest request = protocol::ParseClientText(text);
  const auto warn = [&](const std::string& message) {
    Send(client, protocol::Status(protocol::StatusLevel::kWarning, message));
  };
  switch (request.kind) {
    case Kind::kInvalid: return warn("message not understood: " + request.error);
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

template <class Config>
void ServerImpl<Config>::OnServiceCall(Client& client, const std::string& bytes) {
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
  Send(client, response, websocketpp::frame::opcode::binary);
}

// Why `client` may not call `service` ("" = it may).
template <class Config>
std::string ServerImpl<Config>::RefusalOf(const Client& client, const Service& service) const {
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

// Every reply goes through here (status, advertisements, service responses): past the client's
// backlog budget it is dropped like a slow subscriber, so a peer that sends and never reads
// costs at most max_client_backlog_bytes. A closing connection refuses; nothing to do about it.
template <class Config>
void ServerImpl<Config>::Send(Client& client, const std::string& bytes,
                              websocketpp::frame::opcode::value opcode) {
  if (client.dropped) return;
  const std::size_t backlog = client.connection->get_buffered_amount();
  if (backlog + bytes.size() + 14 > options_.max_client_backlog_bytes) {
    return DropSlow(client, backlog);
  }
  (void)client.connection->send(bytes, opcode);
}

template <class Config>
void ServerImpl<Config>::SendToAll(const std::string& text) {
  for (auto& [hdl, client] : clients_) Send(client, text);
}

template <class Config>
void ServerImpl<Config>::Unsubscribed(std::uint32_t channel) {
  if (channel <= kMaxChannels) subscribers_[channel].fetch_sub(1);
}

ROBOT_EDGE_LIVE_INSTANTIATE_SERVER

}  // namespace robot_edge::live
