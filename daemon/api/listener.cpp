#include "daemon/api/listener.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace robot_edge::daemon {
namespace {

// True if a process accepts connections on the Unix socket at `path`.
bool SomeoneListens(const std::string& path) {
  asio::io_context io;
  asio::local::stream_protocol::socket probe(io);
  std::error_code ec;
  probe.connect(asio::local::stream_protocol::endpoint(path), ec);
  return !ec;
}

// A TCP peer that vanishes without a FIN (a dropped LTE link, a NAT that forgot the flow) is
// detected within about kDeadPeerMs: keepalive probes after 2 s of silence, and unacknowledged
// data abandoned after the same time. The session then closes like any disconnect (control is
// released and walking stops, api.stop_on_disconnect).
constexpr int kDeadPeerMs = 5000;

void DetectDeadPeers(asio::ip::tcp::socket& s) {
  const int fd = s.native_handle();
  const int on = 1, idle_s = 2, interval_s = 1, probes = 3, user_timeout_ms = kDeadPeerMs;
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle_s, sizeof(idle_s));
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval_s, sizeof(interval_s));
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof(probes));
  ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout_ms, sizeof(user_timeout_ms));
}

}  // namespace

Listener::Listener(asio::io_context& io, Hub* hub)
    : io_(io), hub_(hub), unix_retry_(io), tcp_retry_(io) {}

void Listener::ListenUnix(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      throw std::runtime_error("api socket " + path + " exists and is not a socket");
    }
    if (SomeoneListens(path)) {
      throw std::runtime_error("another robot-edged already serves " + path);
    }
    ::unlink(path.c_str());  // stale: its daemon is gone
  }
  unix_.emplace(io_);
  std::error_code ec;
  unix_->open(asio::local::stream_protocol(), ec);
  if (!ec) unix_->bind(asio::local::stream_protocol::endpoint(path), ec);
  if (ec) {
    throw std::runtime_error(
        "cannot create the api socket " + path + ": " + ec.message() +
        (ec == std::errc::no_such_file_or_directory ? " (does its directory exist?)" : ""));
  }
  if (::chmod(path.c_str(), 0660) != 0) {
    throw std::runtime_error("cannot chmod 0660 " + path + ": " + std::strerror(errno));
  }
  unix_->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw std::runtime_error("cannot listen on " + path + ": " + ec.message());
  unix_path_ = path;
  spdlog::info("api: listening on {}", path);
  AcceptUnix();
}

void Listener::ListenTcp(const std::string& host, std::uint16_t port) {
  std::error_code ec;
  const auto address = asio::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
  if (ec) throw std::runtime_error("api.tcp: '" + host + "' is not an IP address");
  const asio::ip::tcp::endpoint endpoint(address, port);
  tcp_.emplace(io_);
  tcp_->open(endpoint.protocol(), ec);
  if (!ec) tcp_->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) tcp_->bind(endpoint, ec);
  if (!ec) tcp_->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    throw std::runtime_error("cannot listen on tcp " + host + ":" + std::to_string(port) + ": " +
                             ec.message());
  }
  spdlog::info("api: listening on tcp {}:{}", host, port);
  AcceptTcp();
}

void Listener::AcceptUnix() {
  unix_->async_accept([this](const std::error_code& ec, asio::local::stream_protocol::socket s) {
    if (ec == asio::error::operation_aborted || !unix_->is_open()) return;
    if (ec) {
      AfterAcceptError(ec, unix_retry_, [this] { AcceptUnix(); });
      return;
    }
    accept_backoff_ = kMinAcceptBackoff;
    Peer peer = UnixPeer(s.native_handle());
    hub_->Accept(Session::Socket(std::move(s)), std::move(peer));
    AcceptUnix();
  });
}

void Listener::AcceptTcp() {
  tcp_->async_accept([this](const std::error_code& ec, asio::ip::tcp::socket s) {
    if (ec == asio::error::operation_aborted || !tcp_->is_open()) return;
    if (ec) {
      AfterAcceptError(ec, tcp_retry_, [this] { AcceptTcp(); });
      return;
    }
    accept_backoff_ = kMinAcceptBackoff;
    std::error_code ignored;
    s.set_option(asio::ip::tcp::no_delay(true), ignored);
    DetectDeadPeers(s);
    const auto remote = s.remote_endpoint(ignored);
    Peer peer;
    peer.transport = Transport::kTcp;
    peer.description = "tcp " + remote.address().to_string() + ":" + std::to_string(remote.port());
    const auto address = remote.address();
    peer.loopback = address.is_loopback() ||
                    (address.is_v6() && address.to_v6().is_v4_mapped() &&
                     asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6()).is_loopback());
    hub_->Accept(Session::Socket(std::move(s)), std::move(peer));
    AcceptTcp();
  });
}

// Out of file descriptors (EMFILE / ENFILE) or memory, accept fails at once again: retrying
// immediately would spin the API thread and flood the log. Back off, doubling up to 1 s.
void Listener::AfterAcceptError(const std::error_code& ec, asio::steady_timer& timer,
                                std::function<void()> retry) {
  spdlog::warn("api: accept failed: {}; retrying in {} ms", ec.message(), accept_backoff_.count());
  timer.expires_after(accept_backoff_);
  accept_backoff_ = std::min(accept_backoff_ * 2, kMaxAcceptBackoff);
  timer.async_wait([retry = std::move(retry)](const std::error_code& wait_ec) {
    if (!wait_ec) retry();
  });
}

void Listener::Close() {
  unix_retry_.cancel();
  tcp_retry_.cancel();
  std::error_code ignored;
  if (unix_) {
    unix_->close(ignored);
    ::unlink(unix_path_.c_str());
  }
  if (tcp_) tcp_->close(ignored);
}

}  // namespace robot_edge::daemon
