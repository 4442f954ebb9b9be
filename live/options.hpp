// What the live view serves and to whom: the types of LiveServer's interface (live_server.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace asio::ssl {
class context;
}

namespace robot_edge::live {

// Where LiveServer listens and who may watch. The daemon fills it from its config.
struct LiveOptions {
  std::string address = "127.0.0.1";  ///< IP address to listen on (v4 or v6)
  std::uint16_t port = 8765;          ///< TCP port; 0 = any free port (LiveServer::port())
  std::string token;           ///< viewers present it as ?token= (WebSocket URL, HTTP GET) or
                               ///< the cookie the first GET sets; "" = no token, allowed on
                               ///< loopback addresses only
  std::string operator_token;  ///< a WebSocket connection that presents it as ?operator_token=
                               ///< may call operator services; "" = nobody may
  std::string web_root;        ///< directory of the dashboard's files; "" = none served.
                               ///< Installed in ROBOT_EDGE_WEB_DIR (/usr/share/robot-edge/web),
                               ///< in ROBOT_EDGE_SOURCE_WEB_DIR in a source tree (compile
                               ///< definitions of robot_edge_live, live/CMakeLists.txt)
  std::size_t max_client_backlog_bytes = 4 << 20;  ///< a client with more unsent bytes queued
                                                   ///< than this is disconnected
  std::string name = "robot-edge";                 ///< serverInfo's name
  std::size_t max_connections = 16;  ///< open sockets at most, WebSocket and HTTP, counted at
                                     ///< accept (before any handshake); lowered at Start() so
                                     ///< that RLIMIT_NOFILE keeps kDaemonReservedFds for the
                                     ///< daemon. Viewers leave kOperatorSlots (4) to operators
  std::vector<std::string> allowed_origins;  ///< Origins a browser page may open the socket
                                             ///< from besides the live view's own (the Host it
                                             ///< was reached at), e.g. "https://app.foxglove.dev"
  std::size_t reserved_fds = 96;    ///< descriptors the live view leaves to the rest of the
                                    ///< process (API clients, CAN, recorder files)
  int handshake_timeout_ms = 3000;  ///< a connection that has not finished its TLS and WebSocket
                                    ///< handshakes or HTTP exchange within this is closed
  std::shared_ptr<asio::ssl::context> tls;  ///< set: https and wss only, with this context
                                            ///< (access::MakeServerTlsContext); null: http, ws
};

// One stream of messages, advertised to every client. Example: topic "/joint_state", encoding
// "protobuf", schema_name "edge.JointState", schema_encoding "protobuf", schema =
// proto::FileDescriptorSetOf(edge::JointState::descriptor()).
struct ChannelSpec {
  std::string topic;
  std::string encoding = "protobuf";  ///< how each message's payload is encoded
  std::string schema_name;            ///< full name of the message type
  std::string schema_encoding = "protobuf";
  std::string schema;  ///< raw bytes (a FileDescriptorSet for protobuf); base64 on the wire
};

// A service clients may call with a JSON request; it answers with a JSON response.
struct ServiceSpec {
  std::string name;             ///< e.g. "/robot_edge/damp"
  std::string type;             ///< e.g. "robot_edge/Damp"
  std::string request_schema;   ///< JSON Schema of the request ("" = any JSON)
  std::string response_schema;  ///< JSON Schema of the response ("" = any JSON)
  bool operator_only = true;    ///< only connections that presented operator_token may call it
};

// A service handler's answer: ok with a JSON response body, or not ok with the reason (sent to
// the client as a serviceCallFailure).
struct ServiceReply {
  bool ok = false;
  std::string body;
};

// Runs on the live thread; must not block (hand the work to its owner and return). `request` is
// the client's JSON text, valid during the call.
using ServiceHandler = std::function<ServiceReply(std::string_view request)>;

// Counters since Start(); read with LiveServer::stats() from any thread.
struct LiveStats {
  std::size_t clients = 0;                 ///< WebSocket clients connected now
  std::uint64_t messages_sent = 0;         ///< messageData frames queued to clients
  std::uint64_t bytes_sent = 0;            ///< bytes of those frames (WebSocket framing included)
  std::uint64_t slow_clients_dropped = 0;  ///< clients disconnected for their backlog
  std::uint64_t messages_dropped = 0;      ///< Publish calls dropped: the live thread was behind
  std::uint64_t refused = 0;        ///< connections and GETs refused for a missing/wrong token
  std::uint64_t service_calls = 0;  ///< service calls answered (responses and failures)
  std::size_t connections = 0;      ///< open sockets now (WebSocket, HTTP, handshakes)
  std::size_t connection_cap = 0;   ///< the cap Start() computed (max_connections, RLIMIT_NOFILE)
  std::uint64_t connections_refused = 0;    ///< sockets closed at accept: the cap was reached
  std::uint64_t connections_timed_out = 0;  ///< handshakes/HTTP exchanges not finished in time,
                                            ///< or evicted to make room
  std::uint64_t forbidden = 0;              ///< requests refused for their Host or Origin (403)
  std::uint64_t accept_errors = 0;     ///< failed accepts (EMFILE...), each followed by a back-off
  std::uint64_t flooding_dropped = 0;  ///< clients disconnected for sending too many requests
  std::uint64_t tls_handshakes_failed = 0;  ///< TLS handshakes that failed or timed out
};

}  // namespace robot_edge::live
