#include "daemon/api/listener.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <asio/ssl/stream.hpp>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "daemon/api/tcp_received.hpp"
#include "edge_api.pb.h"
#include "proto/framing.hpp"

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

// A client that sent something other than a TLS ClientHello (an API client without TLS, HTTP).
bool SpokePlaintext(const std::error_code& ec) {
  if (ec.category() != asio::error::get_ssl_category()) return false;
  const int reason = ERR_GET_REASON(static_cast<unsigned long>(ec.value()));
  return reason == SSL_R_WRONG_VERSION_NUMBER || reason == SSL_R_HTTP_REQUEST ||
         reason == SSL_R_UNKNOWN_PROTOCOL;
}

// A plaintext API client gets a Goodbye it can read, not a bare close. One small frame on a
// fresh socket: never blocks (MSG_DONTWAIT), and nothing is lost if it does not fit.
void TellPlaintextPeer(int fd) {
  edge::ServerMessage goodbye;
  goodbye.mutable_goodbye()->set_reason("this port speaks TLS (api.tls): connect with TLS");
  std::string frame;
  proto::AppendDelimited(goodbye, &frame);
  [[maybe_unused]] const auto sent =
      ::send(fd, frame.data(), frame.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
}

// The door's name for a peer: IPv4 (also when mapped into IPv6) as it is, IPv6 by its /64 (one
// host usually holds a whole /64).
std::string DoorAddress(const asio::ip::address& address) {
  if (address.is_v4()) return address.to_string();
  const asio::ip::address_v6 v6 = address.to_v6();
  if (v6.is_v4_mapped()) return asio::ip::make_address_v4(asio::ip::v4_mapped, v6).to_string();
  asio::ip::address_v6::bytes_type bytes = v6.to_bytes();
  std::fill(bytes.begin() + 8, bytes.end(), 0);
  return asio::ip::address_v6(bytes).to_string() + "/64";
}

}  // namespace

class PendingSlot;

// The door's slots and who holds each (to close it when a newcomer takes it over). API thread.
struct Door {
  access::PendingSlots slots{Listener::kMaxPending, Listener::kMaxPendingPerAddress};
  std::map<access::PendingSlots::Id, PendingSlot*> holders;
};

// A pending slot (Peer::pending_slot): given back when the last holder lets it go, or at once
// when the door gives it to a newcomer (TakenOver). Not copyable: a copy's end would give it
// back twice.
class PendingSlot final : public DoorSlot {
 public:
  // `fd`: the connection's descriptor, only asked whether its peer has sent anything.
  PendingSlot(std::shared_ptr<Door> door, access::PendingSlots::Id id, int fd)
      : door_(std::move(door)), id_(id), fd_(fd) {
    door_->holders[id_] = this;
  }
  PendingSlot(const PendingSlot&) = delete;
  PendingSlot& operator=(const PendingSlot&) = delete;
  ~PendingSlot() override { GiveBack(); }

  void SetCloser(std::function<void()> close) override { close_ = std::move(close); }
  // Gives the slot back and closes its connection. The closer may destroy this: nothing of it
  // is touched afterwards.
  void TakenOver() {
    GiveBack();
    const std::function<void()> close = std::move(close_);
    if (close) close();
  }
  // Whether the peer has sent nothing yet (no handshake, no Hello begun): such a slot is taken
  // over first. A descriptor closed and reused meanwhile only misleads this preference.
  bool SentNothing() const { return TcpBytesReceived(fd_) == std::uint64_t{0}; }

 private:
  void GiveBack() {
    if (id_ == 0) return;
    door_->holders.erase(id_);
    door_->slots.Release(id_);
    id_ = 0;
  }

  std::shared_ptr<Door> door_;
  access::PendingSlots::Id id_;  // 0: given back
  int fd_;
  std::function<void()> close_;
};

Listener::Listener(asio::io_context& io, AcceptConnection accept)
    : io_(io),
      accept_(std::move(accept)),
      unix_retry_(io),
      tcp_retry_(io),
      door_(std::make_shared<Door>()) {}

std::size_t Listener::pending() const { return door_->slots.in_use(); }

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

void Listener::ListenTcp(const std::string& host, std::uint16_t port,
                         std::shared_ptr<asio::ssl::context> tls) {
  tls_ = std::move(tls);
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
  spdlog::info("api: listening on tcp {}:{} ({})", host, tcp_port(),
               tls_ ? "TLS" : "plaintext: tokens travel in clear");
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
    accept_(Session::Socket(std::move(s)), std::move(peer));
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
    const auto remote = s.remote_endpoint(ignored);
    Peer peer;
    peer.transport = Transport::kTcp;
    peer.description = "tcp " + remote.address().to_string() + ":" + std::to_string(remote.port());
    const auto address = remote.address();
    peer.loopback = address.is_loopback() ||
                    (address.is_v6() && address.to_v6().is_v4_mapped() &&
                     asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6()).is_loopback());
    peer.address = DoorAddress(address);
    if (const auto why = AtTheDoor(&peer, s.native_handle())) {
      RefuseAtTheDoor(s, peer, *why);
      AcceptTcp();
      return;
    }
    s.set_option(asio::ip::tcp::no_delay(true), ignored);
    DetectDeadPeers(s);
    if (tls_) {
      Handshake(std::move(s), std::move(peer));
    } else {
      accept_(Session::Socket(std::move(s)), std::move(peer));
    }
    AcceptTcp();
  });
}

std::optional<std::string> Listener::AtTheDoor(Peer* peer, int fd) {
  auto taken = door_->slots.Take(peer->address);
  if (taken.verdict == access::PendingSlots::Verdict::kFull) {
    const auto sent_nothing = [this](access::PendingSlots::Id id) {
      return door_->holders.at(id)->SentNothing();
    };
    if (const auto victim = door_->slots.Victim(peer->address, sent_nothing)) {
      door_->holders.at(*victim)->TakenOver();
      std::uint64_t others = 0;
      if (door_log_.Allow(std::chrono::steady_clock::now(), &others)) {
        spdlog::warn(
            "api: the door is full ({} wait for their handshake or Hello): {} takes the "
            "slot of the oldest silent one, else the oldest, from the address holding the most "
            "({} more such since the last such line)",
            kMaxPending, peer->description, others);
      }
      taken = door_->slots.Take(peer->address);
    }
  }
  switch (taken.verdict) {
    case access::PendingSlots::Verdict::kAdmitted: break;
    case access::PendingSlots::Verdict::kFull:
      return std::to_string(kMaxPending) + " connections already wait for their handshake or Hello";
    case access::PendingSlots::Verdict::kAddressFull:
      return std::to_string(kMaxPendingPerAddress) +
             " connections from its address already wait for their handshake or Hello";
  }
  peer->pending_slot = std::make_shared<PendingSlot>(door_, taken.id, fd);
  return std::nullopt;
}

// Closed at once, without a word (a Goodbye would cost a write to a peer that may not read), and
// logged at most once per kFailureLogPeriod.
void Listener::RefuseAtTheDoor(asio::ip::tcp::socket& socket, const Peer& peer,
                               const std::string& why) {
  std::error_code ignored;
  socket.close(ignored);
  std::uint64_t others = 0;
  if (door_log_.Allow(std::chrono::steady_clock::now(), &others)) {
    spdlog::warn("api: {} closed at once: {} ({} more closed at once since the last such line)",
                 peer.description, why, others);
  }
}

void Listener::LogHandshakeFailure(const Peer& peer, const std::string& why) {
  std::uint64_t others = 0;
  if (handshake_log_.Allow(std::chrono::steady_clock::now(), &others)) {
    spdlog::warn("api: TLS handshake with {} failed: {} ({} more failed since the last such line)",
                 peer.description, why, others);
  }
}

// The handshake runs on this (the API) thread's io_context like any other read; a peer that
// stalls it is cut at kTlsHandshakeTimeout and costs one socket and a timer until then.
void Listener::Handshake(asio::ip::tcp::socket socket, Peer peer) {
  auto tls = std::make_unique<Stream::Tls>(Session::Socket(std::move(socket)), *tls_);
  auto timer = std::make_shared<asio::steady_timer>(io_, kTlsHandshakeTimeout);
  Stream::Tls& stream = *tls;
  timer->async_wait([&stream, timer](const std::error_code& ec) {
    std::error_code ignored;
    if (!ec) stream.next_layer().close(ignored);  // the handshake then fails with "aborted"
  });
  handshakes_.emplace(&stream, timer);
  peer.pending_slot->SetCloser([&stream] {  // the stream lives until the handshake's handler ran
    std::error_code ignored;
    stream.next_layer().close(ignored);
  });
  auto owned = std::make_shared<std::unique_ptr<Stream::Tls>>(std::move(tls));
  stream.async_handshake(
      asio::ssl::stream_base::server,
      [this, owned, timer, peer = std::move(peer)](const std::error_code& ec) mutable {
        const bool timed_out = timer->expiry() <= asio::steady_timer::clock_type::now();
        timer->cancel();
        handshakes_.erase(owned->get());
        if (ec) {
          LogHandshakeFailure(peer, timed_out ? "not completed within 5 s" : ec.message());
          if (SpokePlaintext(ec)) TellPlaintextPeer((*owned)->next_layer().native_handle());
          std::error_code ignored;
          (*owned)->next_layer().close(ignored);
          return;
        }
        accept_(Stream(std::move(*owned)), std::move(peer));
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

std::uint16_t Listener::tcp_port() const {
  std::error_code ec;
  return tcp_ && tcp_->is_open() ? tcp_->local_endpoint(ec).port() : 0;
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
  for (auto& [stream, timer] : handshakes_) {
    timer->cancel();
    stream->next_layer().close(ignored);  // its handler runs with an error and logs it
  }
}

}  // namespace robot_edge::daemon
