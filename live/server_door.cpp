// The live view's door (server_impl.hpp): accepting sockets under a cap, before any handshake;
// closing handshakes and HTTP exchanges that do not finish; the Host and Origin checks. Live
// thread only; compiled as C++17 (see live_server.hpp).
//
// What a peer can hold, whatever it does:
//   - sockets: cap_ at most (LiveOptions::max_connections, lowered so that RLIMIT_NOFILE keeps
//     reserved_fds for the daemon). At the cap a new socket takes the place of the oldest one
//     that has not finished its handshake; when every socket is an open WebSocket it is closed
//     at once. Viewers may hold cap_ - kOperatorSlots WebSockets (OnValidate), so an operator's
//     connection always finds a socket and a slot.
//   - time: a socket that has not upgraded or finished its HTTP exchange within
//     handshake_timeout_ms is closed.
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

// Closes with a reset: nothing more is sent, and the kernel keeps no state for it.
void Reset(const WsConnectionPtr& con) {
  asio::error_code ignored;
  con->get_raw_socket().set_option(asio::socket_base::linger(true, 0), ignored);
  con->terminate(websocketpp::error::make_error_code(websocketpp::error::general));
}

}  // namespace

std::size_t LiveServer::Impl::ComputeCap() const {
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

void LiveServer::Impl::StartAccept() {
  if (stopping_ || !server_.is_listening()) return;
  const WsConnectionPtr con = server_.get_connection();
  if (!con) return;
  websocketpp::lib::error_code ec;
  server_.async_accept(
      con, [this, con](const websocketpp::lib::error_code& e) { OnAccept(con, e); }, ec);
  if (ec) con->terminate(ec);
}

void LiveServer::Impl::OnAccept(const WsConnectionPtr& con,
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
    sockets_[con.get()] = Socket{con, std::chrono::steady_clock::now(), false};
    sockets_count_.store(sockets_.size());
    con->set_termination_handler([this](WsConnectionPtr ended) {
      sockets_.erase(ended.get());
      sockets_count_.store(sockets_.size());
    });
    con->start();
    if (!sweeping_) Sweep();
  }
  StartAccept();
}

// Makes room for a new socket: resets the oldest one still in its handshake or HTTP exchange.
bool LiveServer::Impl::EvictOldestUnfinished() {
  const Socket* oldest = nullptr;
  for (const auto& [key, socket] : sockets_) {
    if (!socket.websocket && (oldest == nullptr || socket.accepted < oldest->accepted)) {
      oldest = &socket;
    }
  }
  if (oldest == nullptr) return false;
  const WsConnectionPtr con = oldest->connection.lock();
  if (!con) return false;
  timed_out_.fetch_add(1);
  Reset(con);  // its termination handler erases it
  return true;
}

// Closes sockets whose handshake or HTTP exchange outlived handshake_timeout_ms, and forgets
// connections websocketpp freed without terminating; runs every kSweepPeriod while one is open.
void LiveServer::Impl::Sweep() {
  const auto deadline =
      std::chrono::steady_clock::now() - std::chrono::milliseconds(options_.handshake_timeout_ms);
  std::vector<WsConnectionPtr> late;
  for (auto it = sockets_.begin(); it != sockets_.end();) {
    WsConnectionPtr con = it->second.connection.lock();
    if (!con) {
      it = sockets_.erase(it);
      continue;
    }
    if (!it->second.websocket && it->second.accepted < deadline) late.push_back(std::move(con));
    ++it;
  }
  for (const WsConnectionPtr& con : late) {
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

// False, with a 403 set on `con`, when its Host (and, for an upgrade, its Origin) is not allowed.
bool LiveServer::Impl::CheckHostAndOrigin(const WsConnectionPtr& con, bool upgrade) {
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

}  // namespace robot_edge::live
