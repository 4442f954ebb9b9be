// Accepts API connections on the Unix socket (created with mode 0660) and, when configured, on
// TCP, and hands them to the hub. With a TLS context (api.tls) a TCP connection reaches the hub
// only after its TLS handshake, which must finish within kTlsHandshakeTimeout; a failed one is
// logged with the peer and closes that connection only.
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

#include "daemon/api/hub.hpp"

namespace robot_edge::daemon {

class Listener {
 public:
  // A TLS client must finish its handshake within this, or its connection is closed.
  static constexpr std::chrono::seconds kTlsHandshakeTimeout{5};

  Listener(asio::io_context& io, Hub* hub);

  // Start-up; throws std::runtime_error with a clear message: the directory is missing, another
  // robot-edged already answers on `path`, permission denied... A stale socket file left by a
  // dead daemon is replaced.
  void ListenUnix(const std::string& path);
  // `tls` (api.tls, access/tls.hpp): null = plaintext.
  void ListenTcp(const std::string& host, std::uint16_t port,
                 std::shared_ptr<asio::ssl::context> tls = nullptr);
  // The TCP port listened on (0 = none): the one asked, or the kernel's pick for port 0.
  std::uint16_t tcp_port() const;
  // Stops accepting, ends the TLS handshakes under way, and removes the socket file.
  void Close();

 private:
  void AcceptUnix();
  void AcceptTcp();
  void Handshake(asio::ip::tcp::socket socket, Peer peer);
  void AfterAcceptError(const std::error_code& ec, asio::steady_timer& timer,
                        std::function<void()> retry);

  static constexpr std::chrono::milliseconds kMinAcceptBackoff{100};
  static constexpr std::chrono::milliseconds kMaxAcceptBackoff{1000};

  asio::io_context& io_;
  Hub* hub_;
  std::optional<asio::local::stream_protocol::acceptor> unix_;
  std::optional<asio::ip::tcp::acceptor> tcp_;
  std::shared_ptr<asio::ssl::context> tls_;  // null: plaintext TCP
  // TLS handshakes under way, each with its timeout (closed by Close()).
  std::map<Stream::Tls*, std::shared_ptr<asio::steady_timer>> handshakes_;
  std::string unix_path_;
  asio::steady_timer unix_retry_, tcp_retry_;  // accept again after an error
  std::chrono::milliseconds accept_backoff_ = kMinAcceptBackoff;
};

}  // namespace robot_edge::daemon
