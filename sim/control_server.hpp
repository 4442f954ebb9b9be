// The control socket: a Unix stream socket where each client sends lines and gets one reply line
// per line, several clients at once (the model: asio's HTTP server example — server, connection,
// connection set). It knows nothing of the commands: `handler` turns a line into a reply.
//
// Threads: everything runs on the io_context's thread (the simulator runs it on one).
#pragma once

#include <asio/io_context.hpp>
#include <asio/local/stream_protocol.hpp>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>

namespace robot_edge::sim {

class ControlServer {
 public:
  // A line without its '\n' -> the reply without its '\n'.
  using Handler = std::function<std::string(std::string_view line)>;
  static constexpr std::size_t kMaxLineBytes = 4096;  // a longer line closes the connection

  // Removes a stale socket file at `path` (refuses to remove anything but a socket), binds,
  // listens, sets mode 0660 and starts accepting. Throws std::system_error naming the path.
  ControlServer(asio::io_context& io, std::string path, Handler handler);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  // Closes the acceptor and every connection and removes the socket file. Idempotent.
  void Stop();

  const std::string& path() const { return path_; }

 private:
  class Connection;
  void Accept();
  void Remove(const std::shared_ptr<Connection>& connection);

  std::string path_;
  Handler handler_;
  asio::local::stream_protocol::acceptor acceptor_;
  std::set<std::shared_ptr<Connection>> connections_;
  bool stopped_ = false;
};

}  // namespace robot_edge::sim
