// A blocking client of robot-edged's local API, with a timeout on every wait.
//
// Used by robot-edgectl, the end-to-end tests and the benchmarks: no global state, no thread of
// its own, every failure a ClientError whose message says what happened and, when the daemon
// sent one, the Goodbye reason. The wire format is proto/framing.hpp's (varint length prefix,
// 64 KiB per message) carrying edge_api.proto's ClientMessage / ServerMessage.
//
// Typical use:
//   auto client = Client::ConnectUnix("/run/robot-edge/api.sock", 2s);
//   edge::Hello hello;
//   hello.set_controller("cloud");
//   hello.set_want_command_results(true);
//   const edge::Welcome welcome = client.Hello(hello, 2s);
//   client.Send(command);
//   auto result = client.WaitCommandResult(command.sequence(), 2s);
//
// Not thread-safe: one thread uses a Client at a time.
#pragma once

#include <sys/types.h>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "client/time_sync.hpp"
#include "client/tls.hpp"
#include "edge_api.pb.h"
#include "proto/framing.hpp"

namespace robot_edge::client {

using Millis = std::chrono::milliseconds;

// Time a Send() may wait for the socket to accept the bytes.
inline constexpr Millis kDefaultSendTimeout{1000};

// The wall clock in µs since the Unix epoch: what CloudCommand.timestamp_us carries (seed 000's
// examples: time.time() * 1e6). robot-edged drops commands without one, and judges their age
// by it (Sequencer::Stamp sets it).
std::uint64_t WallClockMicros();

// What went wrong, so that a program can choose its exit status.
enum class ErrorKind {
  kConnect,   // robot-edged could not be reached: no socket, refused, unreachable, timeout
  kRefused,   // robot-edged sent a Goodbye (bad Hello, bad token, too slow, shutting down, ...)
  kClosed,    // the connection closed without a Goodbye
  kTimeout,   // no Welcome in time, or the socket did not take a message in time
  kProtocol,  // robot-edged sent something that is not the API: oversize, undecodable, unexpected
  kIo,        // a send or receive system call failed
};

const char* ToString(ErrorKind kind);

class ClientError : public std::runtime_error {
 public:
  ClientError(ErrorKind kind, const std::string& message, std::string goodbye_reason = {});

  ErrorKind kind() const { return kind_; }
  // The daemon's Goodbye.reason when it sent one ("" otherwise).
  const std::string& goodbye_reason() const { return goodbye_reason_; }

 private:
  ErrorKind kind_;
  std::string goodbye_reason_;
};

class Client {
 public:
  // Connects to robot-edged's Unix socket. Throws ClientError(kConnect) with the path, the
  // system's reason and a hint ("is robot-edged running?", "is your user in the group
  // robot-edge?").
  static Client ConnectUnix(const std::string& path, Millis timeout);
  // Connects to robot-edged's TCP listener (api.tcp). `host` is a name or an IPv4 / IPv6
  // address. Throws ClientError(kConnect).
  static Client ConnectTcp(const std::string& host, std::uint16_t port, Millis timeout);
  // The same over TLS (the daemon's api.tls); the handshake is within `timeout` too. Throws
  // ClientError(kConnect) naming the cause: certificate not trusted, name mismatch, the daemon
  // does not speak TLS (tls.hpp).
  static Client ConnectTcp(const std::string& host, std::uint16_t port, Millis timeout,
                           const TlsOptions& tls);
  // Takes ownership of an already connected stream socket (e.g. one end of a socketpair in a
  // test). `peer` names it in messages. The socket is made non-blocking.
  static Client Adopt(int fd, std::string peer);

  Client(Client&& other) noexcept;
  Client& operator=(Client&& other) noexcept;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client();

  // Sends the Hello and waits for the Welcome. Throws ClientError: kRefused with the Goodbye
  // reason when the daemon refuses, kTimeout when no answer comes in time, kProtocol when
  // something else than a Welcome comes first.
  edge::Welcome Hello(const edge::Hello& hello, Millis timeout);

  // Sends a command as-is (sequence and timestamp are the caller's: see commands.hpp). Throws
  // ClientError: kRefused / kClosed when the daemon has gone (with its Goodbye reason when one
  // arrived), kTimeout when the socket does not take the bytes in time.
  void Send(const edge::CloudCommand& command, Millis timeout = kDefaultSendTimeout);
  void Send(const edge::JointCommand& command, Millis timeout = kDefaultSendTimeout);
  void Send(const edge::ClientMessage& message, Millis timeout = kDefaultSendTimeout);
  // Sends bytes without framing (tests send garbage and oversize frames with it).
  void SendRaw(std::string_view bytes, Millis timeout = kDefaultSendTimeout);

  // The next message, waiting at most `timeout` (0 = only what already arrived). nullopt when
  // nothing came in time. Throws ClientError when the connection ends: kRefused with the
  // reason when the daemon said Goodbye, kClosed without one, kProtocol on an oversize or
  // undecodable frame. After a throw every later call throws the same error.
  std::optional<edge::ServerMessage> Read(Millis timeout);

  // Reads until a message of `kind` arrives; messages of other kinds are DISCARDED (use Read()
  // to see every message). nullopt when none arrives within `timeout`.
  std::optional<edge::ServerMessage> ReadUntil(edge::ServerMessage::MsgCase kind, Millis timeout);
  std::optional<edge::EdgeTelemetry> WaitTelemetry(Millis timeout);
  std::optional<edge::EdgeEvent> WaitEvent(Millis timeout);
  // Waits for the CommandResult of the command with this sequence (earlier results and other
  // messages are discarded). Needs Hello.want_command_results.
  std::optional<edge::CommandResult> WaitCommandResult(std::uint32_t sequence, Millis timeout);
  // A bring-up request and its answer (edge_api.proto MaintenanceRequest): sends it, then reads
  // until the MaintenanceResult with its request_id (other messages are skipped).
  std::optional<edge::MaintenanceResult> Maintain(const edge::MaintenanceRequest& request,
                                                  Millis timeout);
  // A recording request and its answer (edge_api.proto RecorderRequest), the same way.
  std::optional<edge::RecorderResult> Record(const edge::RecorderRequest& request, Millis timeout);

  // Asks for the state stream (edge_api.proto StateStreamRequest: JointState at `rate_hz`, 0
  // stops it) and reads until the answer (other messages are discarded). Returns the granted
  // rate, nullopt when no answer came in time. The JointStates then come through Read().
  std::optional<std::uint32_t> StreamState(std::uint32_t rate_hz, Millis timeout);

  // The robot's clock: `exchanges` TimeSync round trips, the one with the shortest round trip
  // kept (other messages that arrive meanwhile are discarded). Throws ClientError(kTimeout)
  // when an answer does not come within `timeout`.
  ClockOffset SyncClock(int exchanges, Millis timeout);

  // The socket, for poll(). Check HasBufferedMessage() first: whole messages already read from
  // the socket do not make it readable again.
  int fd() const { return fd_; }
  // Whether Read(0ms) has a message (or the stream's error) without the socket. Half a message
  // buffered is not one: poll() the socket for the rest, or the loop spins until it arrives.
  bool HasBufferedMessage() const { return decoder_.Ready(); }
  // "/run/robot-edge/api.sock" or "host:port", as used in messages.
  const std::string& peer() const { return peer_; }

 private:
  Client(int fd, std::string peer);
  static Client ConnectTcp(const std::string& host, std::uint16_t port, Millis timeout,
                           const TlsOptions* tls);

  using Deadline = std::chrono::steady_clock::time_point;

  std::optional<edge::ServerMessage> ReadBefore(Deadline deadline);
  std::optional<edge::ServerMessage> ReadUntilBefore(edge::ServerMessage::MsgCase kind,
                                                     Deadline deadline);
  std::optional<edge::ServerMessage> TakeBuffered();
  bool WaitFor(short events, Deadline deadline);  // false on timeout
  void ReceiveAvailable();  // what has arrived (one recv(), or every TLS record); throws on close
  // send() through TLS when on: bytes taken, or -1 with errno (EAGAIN with *wait_for set).
  void ReceiveTls();
  ssize_t SendSome(const char* data, std::size_t size, short* wait_for);
  [[noreturn]] void Fail(ClientError error);
  [[noreturn]] void FailAfterSendError(int error);
  void ThrowIfFailed() const;

  int fd_ = -1;
  std::unique_ptr<TlsChannel> tls_;  // null: plaintext
  std::string peer_;
  proto::FrameDecoder decoder_;
  std::optional<ClientError> failure_;  // sticky: the connection is over
};

}  // namespace robot_edge::client
