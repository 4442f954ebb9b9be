// A small blocking WebSocket client for the live view's tests, on a raw TCP socket: the upgrade,
// masked frames out, frames in (fragments reassembled, and counted), and plain HTTP GETs. Raw so
// that a test can stop reading (the slow viewer), shrink its receive buffer and see the frames
// the server really sends. Not thread-safe; one thread per client.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace robot_edge::live::test {

using std::chrono::milliseconds;

struct HttpResponse {
  int status = 0;
  std::string head;  // status line and headers
  std::string body;
};

// GET `target` from 127.0.0.1:`port`; `extra_headers` are whole "Name: value\r\n" lines (a
// "Host:" among them replaces 127.0.0.1).
HttpResponse HttpGet(std::uint16_t port, const std::string& target,
                     const std::string& extra_headers = "");

struct WsMessage {
  bool binary = false;
  std::string data;
  int frames = 0;  // WebSocket frames it came in
};

class WsClient {
 public:
  // Connects to 127.0.0.1:`port` and asks to upgrade `target` (e.g. "/?token=x") with
  // `subprotocol` ("" = none). receive_buffer_bytes > 0 sets SO_RCVBUF before connecting.
  // `extra_headers`: whole "Name: value\r\n" lines (a "Host:" among them replaces 127.0.0.1).
  WsClient(std::uint16_t port, const std::string& target, int receive_buffer_bytes = 0,
           const std::string& subprotocol = "foxglove.websocket.v1",
           const std::string& extra_headers = "");
  ~WsClient();
  WsClient(const WsClient&) = delete;
  WsClient& operator=(const WsClient&) = delete;

  int status() const { return status_; }  // HTTP status of the upgrade's answer; 101 = open
  const HttpResponse& handshake() const { return handshake_; }

  void SendText(std::string_view text);
  void SendBinary(std::string_view bytes);

  // The next text or binary message; nullopt on timeout or when the connection ended.
  std::optional<WsMessage> Next(milliseconds timeout = milliseconds(2000));
  // The next text message with "op":"`op`", skipping everything else.
  std::optional<std::string> NextOp(std::string_view op, milliseconds timeout = milliseconds(2000));
  // The next binary message, skipping text.
  std::optional<WsMessage> NextBinary(milliseconds timeout = milliseconds(2000));
  // True once the server closed or reset the connection (reads and drops what arrives).
  bool WaitClosed(milliseconds timeout);
  bool ended() const { return ended_; }

 private:
  bool Receive(std::chrono::steady_clock::time_point deadline);
  std::optional<WsMessage> ParseFrame();
  void SendFrame(std::uint8_t opcode, std::string_view payload);

  int fd_ = -1;
  int status_ = 0;
  HttpResponse handshake_;
  std::string buffer_;  // received, not yet parsed
  WsMessage partial_;   // fragments so far
  bool ended_ = false;
};

}  // namespace robot_edge::live::test
