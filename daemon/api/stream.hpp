// The byte stream under a Session: a plain socket (Unix, or TCP without api.tls) or TLS over a
// TCP socket whose handshake the Listener has completed. Session reads and writes through it
// and reaches the socket itself (send buffer, SIOCOUTQ, shutdown, close) through lowest_layer().
// With TLS, SIOCOUTQ counts encrypted bytes: a few percent more than the frames, which the
// lossy limits (session.hpp) allow for.
//
// Threads: the API thread only. One read and one write may be outstanding at once (asio::ssl
// allows that).
#pragma once

#include <asio/generic/stream_protocol.hpp>
#include <asio/ssl/stream.hpp>
#include <memory>
#include <utility>

namespace robot_edge::daemon {

class Stream {
 public:
  using Socket = asio::generic::stream_protocol::socket;
  using Tls = asio::ssl::stream<Socket>;
  using executor_type = Socket::executor_type;

  Stream(Socket socket) : plain_(std::move(socket)) {}  // NOLINT: a socket is a plain stream
  explicit Stream(std::unique_ptr<Tls> tls) : plain_(tls->get_executor()), tls_(std::move(tls)) {}

  bool tls() const { return tls_ != nullptr; }
  executor_type get_executor() { return lowest_layer().get_executor(); }
  Socket& lowest_layer() { return tls_ ? tls_->next_layer() : plain_; }

  template <typename Buffers, typename Handler>
  void async_read_some(const Buffers& buffers, Handler&& handler) {
    if (tls_) {
      tls_->async_read_some(buffers, std::forward<Handler>(handler));
    } else {
      plain_.async_read_some(buffers, std::forward<Handler>(handler));
    }
  }
  template <typename Buffers, typename Handler>
  void async_write_some(const Buffers& buffers, Handler&& handler) {
    if (tls_) {
      tls_->async_write_some(buffers, std::forward<Handler>(handler));
    } else {
      plain_.async_write_some(buffers, std::forward<Handler>(handler));
    }
  }

 private:
  Socket plain_;              // unused (never opened) when tls_ is set
  std::unique_ptr<Tls> tls_;  // owns the TCP socket under TLS
};

}  // namespace robot_edge::daemon
