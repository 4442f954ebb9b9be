#include "ws_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace robot_edge::live::test {
namespace {

using Clock = std::chrono::steady_clock;

int ConnectTo(std::uint16_t port, int receive_buffer_bytes) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket");
  if (receive_buffer_bytes > 0) {
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer_bytes, sizeof receive_buffer_bytes);
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    throw std::runtime_error("connect to port " + std::to_string(port));
  }
  return fd;
}

void SendAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

enum class Read { kDone, kTimeout, kEnded };

// Reads into `buffer` until `done(buffer)`, the deadline, or the end of the connection.
template <typename Done>
Read ReadUntil(int fd, std::string* buffer, Clock::time_point deadline, Done done) {
  while (!done(*buffer)) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
      return Read::kTimeout;
    }
    char chunk[65536];
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return Read::kEnded;
    buffer->append(chunk, static_cast<std::size_t>(n));
  }
  return Read::kDone;
}

// Splits "HTTP/1.1 200 OK\r\n...\r\n\r\nbody" into the response; false when the head is
// incomplete.
bool ParseHead(const std::string& bytes, HttpResponse* response, std::size_t* head_end) {
  const std::size_t end = bytes.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  response->head = bytes.substr(0, end + 2);
  response->status = std::stoi(bytes.substr(bytes.find(' ') + 1, 3));
  *head_end = end + 4;
  return true;
}

std::size_t ContentLength(const std::string& head) {
  for (const char* name : {"Content-Length: ", "content-length: "}) {
    const std::size_t at = head.find(name);
    if (at != std::string::npos) return std::stoul(head.substr(at + std::string(name).size()));
  }
  return 0;
}

// "Host: 127.0.0.1" unless the test gives its own.
std::string HostLine(const std::string& extra_headers) {
  return extra_headers.find("Host:") == std::string::npos ? "Host: 127.0.0.1\r\n" : "";
}

}  // namespace

HttpResponse HttpGet(std::uint16_t port, const std::string& target,
                     const std::string& extra_headers) {
  const int fd = ConnectTo(port, 0);
  SendAll(fd, "GET " + target + " HTTP/1.1\r\n" + HostLine(extra_headers) +
                  "Connection: close\r\n" + extra_headers + "\r\n");
  std::string bytes;
  HttpResponse response;
  std::size_t head_end = 0;
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  ReadUntil(fd, &bytes, deadline, [&](const std::string& b) {
    return ParseHead(b, &response, &head_end) &&
           b.size() >= head_end + ContentLength(response.head);
  });
  ::close(fd);
  if (response.status != 0) response.body = bytes.substr(head_end);
  return response;
}

WsClient::WsClient(std::uint16_t port, const std::string& target, int receive_buffer_bytes,
                   const std::string& subprotocol, const std::string& extra_headers)
    : fd_(ConnectTo(port, receive_buffer_bytes)) {
  std::string request = "GET " + target + " HTTP/1.1\r\n" + HostLine(extra_headers) +
                        extra_headers +
                        "Upgrade: websocket\r\n"
                        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                        "Sec-WebSocket-Version: 13\r\n";
  if (!subprotocol.empty()) request += "Sec-WebSocket-Protocol: " + subprotocol + "\r\n";
  SendAll(fd_, request + "\r\n");
  std::size_t head_end = 0;
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  ReadUntil(fd_, &buffer_, deadline,
            [&](const std::string& b) { return ParseHead(b, &handshake_, &head_end); });
  status_ = handshake_.status;
  if (status_ == 0) return;
  buffer_.erase(0, head_end);
  if (status_ != 101) {
    handshake_.body = buffer_;
    buffer_.clear();
    ended_ = true;
  }
}

WsClient::~WsClient() { ::close(fd_); }

void WsClient::SendText(std::string_view text) { SendFrame(0x1, text); }
void WsClient::SendBinary(std::string_view bytes) { SendFrame(0x2, bytes); }

// Client frames are masked (RFC 6455 5.3); a fixed key does for tests.
void WsClient::SendFrame(std::uint8_t opcode, std::string_view payload) {
  static constexpr unsigned char kKey[4] = {0x12, 0x34, 0x56, 0x78};
  std::string frame(1, static_cast<char>(0x80 | opcode));
  if (payload.size() < 126) {
    frame.push_back(static_cast<char>(0x80 | payload.size()));
  } else {
    frame.push_back(static_cast<char>(0x80 | 126));
    frame.push_back(static_cast<char>(payload.size() >> 8));
    frame.push_back(static_cast<char>(payload.size() & 0xFF));
  }
  frame.append(reinterpret_cast<const char*>(kKey), 4);
  for (std::size_t i = 0; i < payload.size(); ++i) {
    frame.push_back(static_cast<char>(payload[i] ^ kKey[i % 4]));
  }
  SendAll(fd_, frame);
}

bool WsClient::Receive(Clock::time_point deadline) {
  const std::size_t before = buffer_.size();
  const Read read =
      ReadUntil(fd_, &buffer_, deadline, [&](const std::string& b) { return b.size() > before; });
  if (read == Read::kEnded) ended_ = true;
  return read == Read::kDone;
}

// One frame off the buffer; a whole message when it completes one.
std::optional<WsMessage> WsClient::ParseFrame() {
  for (;;) {
    if (buffer_.size() < 2) return std::nullopt;
    const auto b0 = static_cast<std::uint8_t>(buffer_[0]);
    const auto b1 = static_cast<std::uint8_t>(buffer_[1]);
    std::size_t at = 2;
    std::uint64_t length = b1 & 0x7F;
    const int extra = length == 126 ? 2 : length == 127 ? 8 : 0;
    if (buffer_.size() < at + extra) return std::nullopt;
    if (extra > 0) length = 0;
    for (int i = 0; i < extra; ++i) length = length << 8 | static_cast<std::uint8_t>(buffer_[at++]);
    if (buffer_.size() < at + length) return std::nullopt;
    const std::string payload = buffer_.substr(at, length);
    buffer_.erase(0, at + length);
    const int opcode = b0 & 0x0F;
    if (opcode == 0x8) {  // close: answer it, as a client should
      SendFrame(0x8, payload.substr(0, 2));
      ended_ = true;
      return std::nullopt;
    }
    if (opcode >= 0x8) continue;  // ping / pong
    if (opcode != 0x0) partial_ = WsMessage{opcode == 0x2, "", 0};
    partial_.data += payload;
    ++partial_.frames;
    if (b0 & 0x80) return std::move(partial_);
  }
}

std::optional<WsMessage> WsClient::Next(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (auto message = ParseFrame()) return message;
    if (ended_ || !Receive(deadline)) return std::nullopt;
  }
}

std::optional<std::string> WsClient::NextOp(std::string_view op, milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  const std::string key = "\"op\":\"" + std::string(op) + "\"";
  while (Clock::now() < deadline) {
    const auto message = Next(std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
    if (!message) return std::nullopt;
    if (!message->binary && message->data.find(key) != std::string::npos) return message->data;
  }
  return std::nullopt;
}

std::optional<WsMessage> WsClient::NextBinary(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    auto message = Next(std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
    if (!message) return std::nullopt;
    if (message->binary) return message;
  }
  return std::nullopt;
}

bool WsClient::WaitClosed(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!ended_ && Clock::now() < deadline) {
    buffer_.clear();
    Receive(deadline);
  }
  return ended_;
}

}  // namespace robot_edge::live::test
