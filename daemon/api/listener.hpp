// Accepts API connections on the Unix socket (created with mode 0660) and, when configured, on
// TCP, and hands them on (AcceptConnection: the hub's Accept). With a TLS context (api.tls) a TCP
// connection reaches the hub only after its TLS handshake, which must finish within
// kTlsHandshakeTimeout; a failed one closes that connection only.
//
// The TCP door (the Unix socket has none: its file mode decides who may knock). A TCP connection
// holds a pending slot from its accept until its Hello is welcomed or it closes: at most
// kMaxPending in all and kMaxPendingPerAddress per address (an IPv6 peer counts by its /64), so
// that peers who never finish their handshake or never say Hello (each closed after 5 s, by
// kTlsHandshakeTimeout and Session::kHelloTimeout) cost at most that many descriptors, far below
// the unit's LimitNOFILE (512) beside api.max_clients (64) sessions, the Unix socket, the CAN
// sockets and the recorder's files. When all kMaxPending are taken, a newcomer takes over a slot
// of the address holding the most (access::PendingSlots::Victim): its oldest whose peer has sent
// nothing (TCP_INFO), else its oldest; that connection is closed at once, so a few addresses
// cannot keep every other out, nor cut off a handshake under way while silent ones wait. A
// connection refused at the door is accepted and closed at once: the kernel's backlog stays
// drained, so a legitimate client is not queued behind a flood, and the refused peer learns at
// once. Failed handshakes and refusals at the door are logged at most once per kFailureLogPeriod
// each, with the count of the others. (Wrong tokens make an address wait as that controller:
// AccessPolicy, at the Hello.)
//
// Threads: the API thread (accepts and handshakes run on its io_context).
#pragma once

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/local/stream_protocol.hpp>
#include <asio/ssl/context.hpp>
#include <asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "access/door_limits.hpp"
#include "access/log_limit.hpp"
#include "daemon/api/peer.hpp"
#include "daemon/api/session.hpp"
#include "daemon/api/stream.hpp"

namespace robot_edge::daemon {

class Listener {
 public:
  // A TLS client must finish its handshake within this, or its connection is closed.
  static constexpr std::chrono::seconds kTlsHandshakeTimeout{5};
  // TCP connections not yet welcomed (handshake or Hello under way), in all and per address.
  static constexpr std::size_t kMaxPending = 32;
  static constexpr std::size_t kMaxPendingPerAddress = 8;
  // One log line per period at most for failed handshakes, and one for refusals at the door.
  static constexpr std::chrono::seconds kFailureLogPeriod{5};

  // Where each accepted connection goes (Hub::Accept), called on the API thread. A function,
  // not the Hub: the door knows nothing of what is behind it.
  using AcceptConnection = std::function<void(Stream stream, Peer peer)>;

  Listener(asio::io_context& io, AcceptConnection accept);

  // Start-up; throws std::runtime_error with a clear message: the directory is missing, another
  // robot-edged already answers on `path`, permission denied... A stale socket file left by a
  // dead daemon is replaced.
  void ListenUnix(const std::string& path);
  // `tls` (api.tls, access/tls.hpp): null = plaintext.
  void ListenTcp(const std::string& host, std::uint16_t port,
                 std::shared_ptr<asio::ssl::context> tls = nullptr);
  // The TCP port listened on (0 = none): the one asked, or the kernel's pick for port 0.
  std::uint16_t tcp_port() const;
  // TCP connections holding a pending slot now (for tests and diagnostics).
  std::size_t pending() const;
  // Stops accepting, ends the TLS handshakes under way, and removes the socket file.
  void Close();

 private:
  void AcceptUnix();
  void AcceptTcp();
  // nullopt: `peer` (on descriptor `fd`) took a pending slot (peer->pending_slot); else why it
  // is refused.
  std::optional<std::string> AtTheDoor(Peer* peer, int fd);
  void RefuseAtTheDoor(asio::ip::tcp::socket& socket, const Peer& peer, const std::string& why);
  void Handshake(asio::ip::tcp::socket socket, Peer peer);
  void LogHandshakeFailure(const Peer& peer, const std::string& why);
  void AfterAcceptError(const std::error_code& ec, asio::steady_timer& timer,
                        std::function<void()> retry);

  static constexpr std::chrono::milliseconds kMinAcceptBackoff{100};
  static constexpr std::chrono::milliseconds kMaxAcceptBackoff{1000};

  asio::io_context& io_;
  AcceptConnection accept_;
  std::optional<asio::local::stream_protocol::acceptor> unix_;
  std::optional<asio::ip::tcp::acceptor> tcp_;
  std::shared_ptr<asio::ssl::context> tls_;  // null: plaintext TCP
  // TLS handshakes under way, each with its timeout (closed by Close()).
  std::map<Stream::Tls*, std::shared_ptr<asio::steady_timer>> handshakes_;
  std::string unix_path_;
  asio::steady_timer unix_retry_, tcp_retry_;  // accept again after an error
  std::chrono::milliseconds accept_backoff_ = kMinAcceptBackoff;
  // Shared with the slots handed to sessions, which may outlive this listener.
  std::shared_ptr<struct Door> door_;
  access::LogLimiter handshake_log_{kFailureLogPeriod}, door_log_{kFailureLogPeriod};
};

}  // namespace robot_edge::daemon
