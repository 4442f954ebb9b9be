#include "sim/control_server.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <asio/read_until.hpp>
#include <asio/streambuf.hpp>
#include <asio/write.hpp>
#include <cerrno>
#include <istream>
#include <system_error>

namespace robot_edge::sim {
namespace {

using asio::local::stream_protocol;

void RemoveStaleSocket(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    throw std::system_error(errno, std::generic_category(), path);
  }
  if (!S_ISSOCK(st.st_mode)) {
    throw std::system_error(EEXIST, std::generic_category(),
                            path + ": exists and is not a socket; not removing it");
  }
  if (::unlink(path.c_str()) != 0) {
    throw std::system_error(errno, std::generic_category(), path + ": cannot remove stale socket");
  }
}

}  // namespace

// One client: read a line, write its reply, repeat. Lives while an operation is pending on it
// (the handlers hold a shared_ptr) and while it is in the server's set.
class ControlServer::Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(stream_protocol::socket socket, ControlServer* server)
      : socket_(std::move(socket)), buffer_(kMaxLineBytes), server_(server) {}

  void Start() { Read(); }
  void Close() {
    std::error_code ignored;
    socket_.close(ignored);
  }

 private:
  void Read() {
    asio::async_read_until(
        socket_, buffer_, '\n',
        [self = shared_from_this()](std::error_code ec, std::size_t) { self->OnLine(ec); });
  }

  void OnLine(std::error_code ec) {
    if (ec) {  // end of file, a line over kMaxLineBytes, or closed by Stop()
      if (ec != asio::error::operation_aborted) server_->Remove(shared_from_this());
      return;
    }
    std::istream in(&buffer_);
    std::string line;
    std::getline(in, line);
    reply_ = server_->handler_(line);
    reply_.push_back('\n');
    asio::async_write(socket_, asio::buffer(reply_),
                      [self = shared_from_this()](std::error_code write_ec, std::size_t) {
                        if (write_ec) {
                          if (write_ec != asio::error::operation_aborted) {
                            self->server_->Remove(self);
                          }
                          return;
                        }
                        self->Read();
                      });
  }

  stream_protocol::socket socket_;
  asio::streambuf buffer_;
  std::string reply_;
  ControlServer* server_;
};

ControlServer::ControlServer(asio::io_context& io, std::string path, Handler handler)
    : path_(std::move(path)), handler_(std::move(handler)), acceptor_(io) {
  RemoveStaleSocket(path_);
  std::error_code ec;
  acceptor_.open(stream_protocol(), ec);
  if (!ec) acceptor_.bind(stream_protocol::endpoint(path_), ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw std::system_error(ec, path_ + ": cannot listen");
  if (::chmod(path_.c_str(), 0660) != 0) {
    throw std::system_error(errno, std::generic_category(), path_ + ": cannot set mode 0660");
  }
  Accept();
}

ControlServer::~ControlServer() { Stop(); }

void ControlServer::Accept() {
  acceptor_.async_accept([this](std::error_code ec, stream_protocol::socket socket) {
    if (stopped_ || ec == asio::error::operation_aborted) return;
    if (!ec) {
      auto connection = std::make_shared<Connection>(std::move(socket), this);
      connections_.insert(connection);
      connection->Start();
    }
    Accept();
  });
}

void ControlServer::Remove(const std::shared_ptr<Connection>& connection) {
  connection->Close();
  connections_.erase(connection);
}

void ControlServer::Stop() {
  if (stopped_) return;
  stopped_ = true;
  std::error_code ignored;
  acceptor_.close(ignored);
  for (const auto& connection : connections_) connection->Close();
  connections_.clear();
  ::unlink(path_.c_str());
}

}  // namespace robot_edge::sim
