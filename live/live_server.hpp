// LiveServer: the live view of the robot. A Foxglove WebSocket protocol server
// (foxglove.websocket.v1, foxglove/ws-protocol docs/spec.md; protocol.hpp has the messages) that
// Foxglove and the dashboard (live/web/, served over HTTP by the same port) connect to.
//
// Threads and ownership:
//   - the owner's thread constructs, calls Start() and Stop() (once each) and destroys;
//   - AddChannel, RemoveChannel, AddService, SetDocument, Publish and stats may be called from
//     any thread, before or after Start(); what they change reaches the live thread in order;
//   - the live thread ("re-live", started by Start()) runs its own asio io_context and owns
//     everything else: the listening socket, every connection, its subscriptions, the channel
//     and service tables, the documents; service handlers run on it.
// Publish never blocks and never waits for a client: it copies the payload once into a frame
// shared by every subscriber and pushes it on a lock-free queue (no mutex, no system call; it
// allocates three blocks); the live thread takes the queue every 4 ms and writes to the
// subscribers. A client whose unsent backlog passes max_client_backlog_bytes is disconnected
// there (logged once, counted); the others are unaffected. If the live thread itself falls
// 16 MiB behind, Publish drops messages (counted).
//
// With options.tls the port speaks https and wss only (websocketpp's asio_tls transport, the
// context from access::MakeServerTlsContext); every bound below holds the same.
//
// The WebSocket library is websocketpp (Debian's libwebsocketpp-dev), header-only on the
// standalone asio the daemon already uses; Boost.Beast would have pulled Boost.Asio in beside
// it. websocketpp 0.8.2 compiles as C++17 only, so the two files that include it are built as
// C++17 (live/CMakeLists.txt); this header and the rest of the library are C++17-clean.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "live/options.hpp"

namespace robot_edge::live {

// Channel ids are 1 .. kMaxChannels, never reused.
inline constexpr std::uint32_t kMaxChannels = 64;

class LiveServer {
 public:
  // Binds the listening socket. Throws std::invalid_argument for options that may not start (a
  // non-loopback address without a token, an address that is no IP address) and
  // std::runtime_error when it cannot listen (port in use), with the reason.
  explicit LiveServer(LiveOptions options);
  ~LiveServer();  // Stop()s
  LiveServer(const LiveServer&) = delete;
  LiveServer& operator=(const LiveServer&) = delete;

  // The TCP port it listens on (the chosen one when options.port was 0).
  std::uint16_t port() const;

  // Advertises a channel to every client (now and later); returns its id. Throws
  // std::length_error past kMaxChannels (a start-up mistake).
  std::uint32_t AddChannel(ChannelSpec spec);
  // Unadvertises it; its subscriptions end.
  void RemoveChannel(std::uint32_t channel);

  // Advertises a service; `handler` answers its calls on the live thread. Calls to an
  // operator_only service from a connection without operator_token get a serviceCallFailure
  // saying why, and the handler is not called.
  void AddService(ServiceSpec spec, ServiceHandler handler);

  // Serves `body` at HTTP GET `path` (e.g. "/robot.json"), beside web_root's files; replaces an
  // earlier document of that path.
  void SetDocument(std::string path, std::string content_type, std::string body);

  void Start();  // starts the live thread
  void Stop();   // closes every connection (1 s grace at most), joins the live thread

  // Sends `payload` to every subscriber of `channel` with log time `log_time_ns` (ns since the
  // Unix epoch). Any thread; never blocks; a no-op when nobody subscribes.
  void Publish(std::uint32_t channel, std::uint64_t log_time_ns, std::string_view payload);

  LiveStats stats() const;

  class Impl;  // defined in server_impl.hpp, private to live/

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace robot_edge::live
