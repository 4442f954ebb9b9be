// The live view's door (server_impl.hpp): accepting sockets under a cap, before any handshake;
// closing handshakes (TLS and WebSocket) and HTTP exchanges that do not finish; failed TLS
// handshakes, logged under a rate limit; the Host and Origin checks. Live
// thread only; compiled as C++17 (see live_server.hpp).
//
// What a peer can hold, whatever it does:
//   - sockets: cap_ at most (LiveOptions::max_connections, lowered so that RLIMIT_NOFILE keeps
//     reserved_fds for the daemon). At the cap a new socket takes the place of the oldest one
//     that has not finished its handshake; when every socket is an open WebSocket it is closed
//     at once. Viewers may hold cap_ - kOperatorSlots WebSockets (OnValidate), so an operator's
//     connection always finds a socket and a slot.
//   - time: a socket that has not upgraded or finished its HTTP exchange within
//     handshake_timeout_ms is closed, whether it stalls in the TLS handshake or after it.
//   - the accept loop: a failed accept (EMFILE...) is retried after kAcceptBackoff, not at once.
#include <dirent.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include "live/server_impl.hpp"

namespace robot_edge::live {
namespace {

std::size_t OpenDescriptors() {
  std::size_t count = 0;
  if (DIR* dir = ::opendir("/proc/self/fd")) {
    while (const dirent* entry = ::readdir(dir)) count += entry->d_name[0] != '.';
    ::closedir(dir);
    if (count > 0) --count;  // the directory's own descriptor
  }
  return count;
}

// Closes with a reset: nothing more is sent, and the kernel keeps no state for it. The socket is
// closed here, before terminate(): a TLS shutdown would otherwise wait on a stalled handshake
// until websocketpp's own 5 s timeout.
template <class Con>
void Reset(const Con& con) {
  asio::error_code ignored;
  con->get_raw_socket().set_option(asio::socket_base::linger(true, 0), ignored);
  con->get_raw_socket().close(ignored);
  con->terminate(websocketpp::error::make_error_code(websocketpp::error::general));
}

}  // namespace

template <class Config>
std::size_t ServerImpl<Config>::ComputeCap() const {
  rlimit limit{};
  const std::uint64_t fd_limit =
      ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY ? limit.rlim_cur
                                                                                 : UINT64_MAX;
  const std::size_t open = OpenDescriptors();
  const std::size_t cap =
      ConnectionCap(options_.max_connections, fd_limit, open, options_.reserved_fds);
  if (cap < options_.max_connections) {
    spdlog::warn(
        "live view: at most {} connections, not {}: RLIMIT_NOFILE is {} with {} open and {} kept "
        "for the daemon",
        cap, options_.max_connections, fd_limit, open, options_.reserved_fds);
  }
  return cap;
}

template <class Config>
void ServerImpl<Config>::StartAccept() {
  if (stopping_ || !server_.is_listening()) return;
  const ConnectionPtr con = server_.get_connection();
  if (!con) return;
  websocketpp::lib::error_code ec;
  server_.async_accept(
      con, [this, con](const websocketpp::lib::error_code& e) { OnAccept(con, e); }, ec);
  if (ec) con->terminate(ec);
}

template <class Config>
void ServerImpl<Config>::OnAccept(const ConnectionPtr& con,
                                  const websocketpp::lib::error_code& ec) {
  if (ec) {
    con->terminate(ec);
    if (stopping_ || ec == websocketpp::error::operation_canceled) return;
    accept_errors_.fetch_add(1);
    if (!accept_failing_) {
      spdlog::warn("live view: accept failed ({}): retrying every {} ms", ec.message(),
                   kAcceptBackoff.count());
    }
    accept_failing_ = true;
    accept_timer_.expires_after(kAcceptBackoff);
    accept_timer_.async_wait([this](const asio::error_code& e) {
      if (!e) StartAccept();
    });
    return;
  }
  if (accept_failing_) spdlog::info("live view: accepting again");
  accept_failing_ = false;
  if (sockets_.size() >= cap_ && !EvictOldestUnfinished()) {
    connections_refused_.fetch_add(1);
    const auto now = std::chrono::steady_clock::now();
    if (now - refusal_logged_ > std::chrono::seconds(1)) {
      refusal_logged_ = now;
      spdlog::warn("live view: {} connections open (the cap): refusing new ones ({} so far)",
                   sockets_.size(), connections_refused_.load());
    }
    Reset(con);
  } else {
    sockets_[con.get()] =
        Socket{con, std::chrono::steady_clock::now(), false, false, con->get_remote_endpoint()};
    sockets_count_.store(sockets_.size());
    con->set_termination_handler([this](ConnectionPtr ended) {
      sockets_.erase(ended.get());
      sockets_count_.store(sockets_.size());
    });
    con->start();
    if (!sweeping_) Sweep();
  }
  StartAccept();
}

// Makes room for a new socket: resets the oldest one still in its handshake or HTTP exchange.
template <class Config>
bool ServerImpl<Config>::EvictOldestUnfinished() {
  auto oldest = sockets_.end();
  for (auto it = sockets_.begin(); it != sockets_.end(); ++it) {
    if (!it->second.websocket &&
        (oldest == sockets_.end() || it->second.accepted < oldest->second.accepted)) {
      oldest = it;
    }
  }
  if (oldest == sockets_.end()) return false;
  const ConnectionPtr con = oldest->second.connection.lock();
  if (!con) return false;
  timed_out_.fetch_add(1);
  oldest->second.timed_out = true;
  // Reset closes its descriptor now; its entry goes now too (the termination handler, which
  // websocketpp runs later, finds nothing): the newcomer then never makes the count pass the cap.
  sockets_.erase(oldest);
  sockets_count_.store(sockets_.size());
  Reset(con);
  return true;
}

// Closes sockets whose handshake or HTTP exchange outlived handshake_timeout_ms, and forgets
// connections websocketpp freed without terminating; runs every kSweepPeriod while one is open.
template <class Config>
void ServerImpl<Config>::Sweep() {
  const auto deadline =
      std::chrono::steady_clock::now() - std::chrono::milliseconds(options_.handshake_timeout_ms);
  std::vector<ConnectionPtr> late;
  for (auto it = sockets_.begin(); it != sockets_.end();) {
    ConnectionPtr con = it->second.connection.lock();
    if (!con) {
      it = sockets_.erase(it);
      continue;
    }
    if (!it->second.websocket && it->second.accepted < deadline) {
      it->second.timed_out = true;
      late.push_back(std::move(con));
    }
    ++it;
  }
  for (const ConnectionPtr& con : late) {
    timed_out_.fetch_add(1);
    Reset(con);
  }
  sockets_count_.store(sockets_.size());
  sweeping_ = !stopping_ && !sockets_.empty();
  if (!sweeping_) return;
  sweep_timer_.expires_after(kSweepPeriod);
  sweep_timer_.async_wait([this](const asio::error_code& e) {
    if (!e) Sweep();
  });
}

// A connection that ended before its WebSocket opened or its HTTP exchange finished. Only failed
// TLS handshakes are told here (refusals and timeouts, a stalled TLS handshake included, are
// counted where they happen): counted in tls_handshakes_failed, and logged at most once per
// kTlsFailureLogPeriod with the count of the others.
template <class Config>
void ServerImpl<Config>::OnFail(connection_hdl hdl) {
  namespace socket = websocketpp::transport::asio::socket;
  const ConnectionPtr con = server_.get_con_from_hdl(hdl);
  const websocketpp::lib::error_code ec = con->get_ec();
  if (ec != socket::make_error_code(socket::error::tls_handshake_failed) &&
      ec != socket::make_error_code(socket::error::tls_handshake_timeout)) {
    return;
  }
  const auto open = sockets_.find(con.get());
  if (open == sockets_.end() || open->second.timed_out) return;
  tls_failed_.fetch_add(1);
  std::uint64_t suppressed = 0;
  if (!tls_failure_log_.Allow(std::chrono::steady_clock::now(), &suppressed)) return;
  spdlog::warn(
      "live view: TLS handshake with {} failed ({}): not TLS, or a client that does not trust "
      "the certificate ({} so far; {} not logged since the last line)",
      open->second.remote, ec.message(), tls_failed_.load(), suppressed);
}

// False, with a 403 set on `con`, when its Host (and, for an upgrade, its Origin) is not allowed.
template <class Config>
bool ServerImpl<Config>::CheckHostAndOrigin(const ConnectionPtr& con, bool upgrade) {
  const std::string& host = con->get_request_header("Host");
  const std::string& origin = con->get_request_header("Origin");
  const char* why = !HostAllowed(options_, host)                        ? "Host"
                    : upgrade && !OriginAllowed(options_, origin, host) ? "Origin"
                                                                        : nullptr;
  if (why == nullptr) return true;
  forbidden_.fetch_add(1);
  const auto now = std::chrono::steady_clock::now();
  if (now - forbidden_logged_ > std::chrono::seconds(1)) {  // a page may retry in a loop
    forbidden_logged_ = now;
    spdlog::warn(
        "live view: refused {} from {}: {} not allowed (Host \"{}\", Origin \"{}\"; {} so far)",
        upgrade ? "WebSocket" : "GET", con->get_remote_endpoint(), why, host.substr(0, 64),
        origin.substr(0, 64), forbidden_.load());
  }
  con->set_status(websocketpp::http::status_code::forbidden);
  con->set_body(std::string("live view: ") + why +
                " not allowed (live.allowed_origins lists other origins)\n");
  return false;
}

ROBOT_EDGE_LIVE_INSTANTIATE_SERVER

}  // namespace robot_edge::live
