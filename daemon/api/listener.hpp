// Accepts API connections on the Unix socket (created with mode 0660) and, when configured, on
// TCP, and hands them to the hub.
//
// Threads: the API thread.
#pragma once

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/local/stream_protocol.hpp>
#include <asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "daemon/api/hub.hpp"

namespace robot_edge::daemon {

class Listener {
 public:
  Listener(asio::io_context& io, Hub* hub);

  // Start-up; throws std::runtime_error with a clear message: the directory is missing, another
  // robot-edged already answers on `path`, permission denied... A stale socket file left by a
  // dead daemon is replaced.
  void ListenUnix(const std::string& path);
  void ListenTcp(const std::string& host, std::uint16_t port);
  // Stops accepting and removes the socket file.
  void Close();

 private:
  void AcceptUnix();
  void AcceptTcp();
  void AfterAcceptError(const std::error_code& ec, asio::steady_timer& timer,
                        std::function<void()> retry);

  static constexpr std::chrono::milliseconds kMinAcceptBackoff{100};
  static constexpr std::chrono::milliseconds kMaxAcceptBackoff{1000};

  asio::io_context& io_;
  Hub* hub_;
  std::optional<asio::local::stream_protocol::acceptor> unix_;
  std::optional<asio::ip::tcp::acceptor> tcp_;
  std::string unix_path_;
  asio::steady_timer unix_retry_, tcp_retry_;  // accept again after an error
  std::chrono::milliseconds accept_backoff_ = kMinAcceptBackoff;
};

}  // namespace robot_edge::daemon
