#include "client/client.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace robot_edge::client {

std::uint64_t WallClockMicros() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

namespace {

using Clock = std::chrono::steady_clock;

std::string KindName(edge::ServerMessage::MsgCase kind) {
  switch (kind) {
    case edge::ServerMessage::kWelcome: return "welcome";
    case edge::ServerMessage::kTelemetry: return "telemetry";
    case edge::ServerMessage::kEvent: return "event";
    case edge::ServerMessage::kGoodbye: return "goodbye";
    case edge::ServerMessage::kCommandResult: return "command_result";
    case edge::ServerMessage::kMaintenanceResult: return "maintenance_result";
    case edge::ServerMessage::kRecorderResult: return "recorder_result";
    case edge::ServerMessage::kTimeSyncResult: return "time_sync_result";
    case edge::ServerMessage::kJointState: return "joint_state";
    case edge::ServerMessage::kStateStreamResult: return "state_stream_result";
    case edge::ServerMessage::MSG_NOT_SET: break;
  }
  return "empty message";
}

int RemainingMs(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<Millis>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

}  // namespace

const char* ToString(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kConnect: return "connect";
    case ErrorKind::kRefused: return "refused";
    case ErrorKind::kClosed: return "closed";
    case ErrorKind::kTimeout: return "timeout";
    case ErrorKind::kProtocol: return "protocol";
    case ErrorKind::kIo: return "io";
  }
  return "?";
}

ClientError::ClientError(ErrorKind kind, const std::string& message, std::string goodbye_reason)
    : std::runtime_error(message), kind_(kind), goodbye_reason_(std::move(goodbye_reason)) {}

Client::Client(int fd, std::string peer) : fd_(fd), peer_(std::move(peer)) {}

Client Client::Adopt(int fd, std::string peer) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    const int error = errno;
    ::close(fd);
    throw ClientError(ErrorKind::kIo,
                      "cannot use the socket of " + peer + ": " + std::strerror(error));
  }
  return Client(fd, std::move(peer));
}

Client::Client(Client&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      tls_(std::move(other.tls_)),
      peer_(std::move(other.peer_)),
      decoder_(std::move(other.decoder_)),
      failure_(std::move(other.failure_)) {}

Client& Client::operator=(Client&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    tls_ = std::move(other.tls_);
    fd_ = std::exchange(other.fd_, -1);
    peer_ = std::move(other.peer_);
    decoder_ = std::move(other.decoder_);
    failure_ = std::move(other.failure_);
  }
  return *this;
}

Client::~Client() {
  if (fd_ >= 0) ::close(fd_);
}

edge::Welcome Client::Hello(const edge::Hello& hello, Millis timeout) {
  const Deadline deadline = Clock::now() + timeout;
  edge::ClientMessage message;
  *message.mutable_hello() = hello;
  try {
    Send(message, timeout);
    for (;;) {
      auto reply = ReadBefore(deadline);
      if (!reply) break;
      if (reply->has_welcome()) return std::move(*reply->mutable_welcome());
      Fail(ClientError(ErrorKind::kProtocol, "robot-edged at " + peer_ + " sent " +
                                                 KindName(reply->msg_case()) +
                                                 " before its Welcome"));
    }
  } catch (const ClientError& e) {
    if (e.kind() != ErrorKind::kRefused) throw;
    throw ClientError(ErrorKind::kRefused,
                      "robot-edged at " + peer_ + " refused the connection: " + e.goodbye_reason(),
                      e.goodbye_reason());
  }
  throw ClientError(ErrorKind::kTimeout, "no Welcome from robot-edged at " + peer_ + " within " +
                                             std::to_string(timeout.count()) + " ms");
}

void Client::Send(const edge::CloudCommand& command, Millis timeout) {
  edge::ClientMessage message;
  *message.mutable_command() = command;
  Send(message, timeout);
}

void Client::Send(const edge::JointCommand& command, Millis timeout) {
  edge::ClientMessage message;
  *message.mutable_joint_command() = command;
  Send(message, timeout);
}

void Client::Send(const edge::ClientMessage& message, Millis timeout) {
  std::string bytes;
  if (!proto::AppendDelimited(message, &bytes)) {
    throw ClientError(ErrorKind::kProtocol, "message of " + std::to_string(message.ByteSizeLong()) +
                                                " bytes is over the API's 64 KiB limit: not sent");
  }
  SendRaw(bytes, timeout);
}

void Client::SendRaw(std::string_view bytes, Millis timeout) {
  ThrowIfFailed();
  const Deadline deadline = Clock::now() + timeout;
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    short wait_for = POLLOUT;
    const ssize_t n = SendSome(bytes.data() + sent, bytes.size() - sent, &wait_for);
    if (n >= 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) FailAfterSendError(errno);
    if (!WaitFor(wait_for, deadline)) {
      // Part of a frame may be out: the stream can no longer be trusted.
      Fail(ClientError(ErrorKind::kTimeout, "robot-edged at " + peer_ + " did not take " +
                                                std::to_string(bytes.size()) + " bytes within " +
                                                std::to_string(timeout.count()) + " ms"));
    }
  }
}

std::optional<edge::ServerMessage> Client::Read(Millis timeout) {
  return ReadBefore(Clock::now() + timeout);
}

std::optional<edge::ServerMessage> Client::ReadBefore(Deadline deadline) {
  ThrowIfFailed();
  for (;;) {
    if (auto message = TakeBuffered()) return message;
    if (!WaitFor(POLLIN, deadline)) return std::nullopt;
    ReceiveAvailable();
  }
}

std::optional<edge::ServerMessage> Client::ReadUntil(edge::ServerMessage::MsgCase kind,
                                                     Millis timeout) {
  return ReadUntilBefore(kind, Clock::now() + timeout);
}

std::optional<edge::ServerMessage> Client::ReadUntilBefore(edge::ServerMessage::MsgCase kind,
                                                           Deadline deadline) {
  for (;;) {
    auto message = ReadBefore(deadline);
    if (!message || message->msg_case() == kind) return message;
  }
}

std::optional<edge::EdgeTelemetry> Client::WaitTelemetry(Millis timeout) {
  auto message = ReadUntil(edge::ServerMessage::kTelemetry, timeout);
  if (!message) return std::nullopt;
  return std::move(*message->mutable_telemetry());
}

std::optional<edge::EdgeEvent> Client::WaitEvent(Millis timeout) {
  auto message = ReadUntil(edge::ServerMessage::kEvent, timeout);
  if (!message) return std::nullopt;
  return std::move(*message->mutable_event());
}

std::optional<edge::CommandResult> Client::WaitCommandResult(std::uint32_t sequence,
                                                             Millis timeout) {
  const Deadline deadline = Clock::now() + timeout;
  for (;;) {
    auto message = ReadUntilBefore(edge::ServerMessage::kCommandResult, deadline);
    if (!message) return std::nullopt;
    if (message->command_result().sequence() == sequence) {
      return std::move(*message->mutable_command_result());
    }
  }
}

std::optional<edge::MaintenanceResult> Client::Maintain(const edge::MaintenanceRequest& request,
                                                        Millis timeout) {
  edge::ClientMessage message;
  *message.mutable_maintenance() = request;
  Send(message, timeout);
  const Deadline deadline = Clock::now() + timeout;
  for (;;) {
    auto answer = ReadUntilBefore(edge::ServerMessage::kMaintenanceResult, deadline);
    if (!answer) return std::nullopt;
    if (answer->maintenance_result().request_id() == request.request_id()) {
      return std::move(*answer->mutable_maintenance_result());
    }
  }
}

std::optional<edge::RecorderResult> Client::Record(const edge::RecorderRequest& request,
                                                   Millis timeout) {
  edge::ClientMessage message;
  *message.mutable_recorder() = request;
  Send(message, timeout);
  const Deadline deadline = Clock::now() + timeout;
  for (;;) {
    auto answer = ReadUntilBefore(edge::ServerMessage::kRecorderResult, deadline);
    if (!answer) return std::nullopt;
    if (answer->recorder_result().request_id() == request.request_id()) {
      return std::move(*answer->mutable_recorder_result());
    }
  }
}

std::optional<std::uint32_t> Client::StreamState(std::uint32_t rate_hz, Millis timeout) {
  edge::ClientMessage message;
  message.mutable_state_stream()->set_rate_hz(rate_hz);
  Send(message, timeout);
  auto answer = ReadUntilBefore(edge::ServerMessage::kStateStreamResult, Clock::now() + timeout);
  if (!answer) return std::nullopt;
  return answer->state_stream_result().rate_hz();
}

ClockOffset Client::SyncClock(int exchanges, Millis timeout) {
  std::vector<TimeSyncSample> samples;
  for (int i = 0; i < std::max(exchanges, 1); ++i) {
    edge::ClientMessage message;
    edge::TimeSyncRequest* request = message.mutable_time_sync();
    request->set_request_id(static_cast<std::uint32_t>(i + 1));
    request->set_client_send_us(MonotonicMicros());
    Send(message, timeout);
    const Deadline deadline = Clock::now() + timeout;
    for (;;) {
      auto answer = ReadUntilBefore(edge::ServerMessage::kTimeSyncResult, deadline);
      if (!answer) {
        throw ClientError(ErrorKind::kTimeout, "robot-edged at " + peer_ +
                                                   " did not answer a TimeSyncRequest in " +
                                                   std::to_string(timeout.count()) + " ms");
      }
      const edge::TimeSyncResult& r = answer->time_sync_result();
      if (r.request_id() != request->request_id()) continue;
      samples.push_back(
          {r.client_send_us(), r.robot_receive_us(), r.robot_send_us(), MonotonicMicros()});
      break;
    }
  }
  return BestEstimate(samples);
}

// Whole messages already received, one at a time. A Goodbye ends the connection.
std::optional<edge::ServerMessage> Client::TakeBuffered() {
  std::span<const std::uint8_t> payload;
  switch (decoder_.Next(&payload)) {
    case proto::FrameDecoder::Status::kNeedMore: return std::nullopt;
    case proto::FrameDecoder::Status::kMessage: break;
    case proto::FrameDecoder::Status::kOversize:
      Fail(ClientError(ErrorKind::kProtocol,
                       "robot-edged at " + peer_ + " sent a message of " +
                           std::to_string(decoder_.announced_length()) +
                           " bytes, over the API's 64 KiB limit: connection dropped"));
    case proto::FrameDecoder::Status::kBadLength:
      Fail(ClientError(ErrorKind::kProtocol, "robot-edged at " + peer_ +
                                                 " sent a malformed length prefix: connection "
                                                 "dropped (is this robot-edged's API?)"));
  }
  edge::ServerMessage message;
  if (!message.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
    Fail(ClientError(ErrorKind::kProtocol, "robot-edged at " + peer_ + " sent an undecodable " +
                                               std::to_string(payload.size()) +
                                               "-byte message: connection dropped"));
  }
  if (message.has_goodbye()) {
    const std::string& reason = message.goodbye().reason();
    Fail(ClientError(ErrorKind::kRefused,
                     "robot-edged at " + peer_ + " closed the connection: " + reason, reason));
  }
  return message;
}

bool Client::WaitFor(short events, Deadline deadline) {
  for (;;) {
    pollfd p{fd_, events, 0};
    const int n = ::poll(&p, 1, RemainingMs(deadline));
    if (n > 0) return true;  // readable, writable, or an error / hang-up the next call reports
    if (n == 0) return false;
    if (errno != EINTR) {
      Fail(ClientError(ErrorKind::kIo, std::string("poll() failed: ") + std::strerror(errno)));
    }
  }
}

ssize_t Client::SendSome(const char* data, std::size_t size, short* wait_for) {
  if (!tls_) return ::send(fd_, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
  std::size_t n = 0;
  switch (tls_->Write(data, size, &n)) {
    case TlsChannel::Io::kDone: return static_cast<ssize_t>(n);
    case TlsChannel::Io::kWantRead:
      *wait_for = POLLIN;
      errno = EAGAIN;
      return -1;
    case TlsChannel::Io::kWantWrite:
      *wait_for = POLLOUT;
      errno = EAGAIN;
      return -1;
    case TlsChannel::Io::kClosed: errno = EPIPE; return -1;
    case TlsChannel::Io::kError: break;
  }
  Fail(ClientError(ErrorKind::kIo, "sending to robot-edged at " + peer_ + ": " + tls_->error()));
}

// Every decrypted record is taken: bytes left inside OpenSSL would not make the socket readable.
void Client::ReceiveTls() {
  std::array<std::uint8_t, 16 * 1024> buffer;
  for (;;) {
    std::size_t n = 0;
    switch (tls_->Read(buffer.data(), buffer.size(), &n)) {
      case TlsChannel::Io::kDone:
        decoder_.Feed(std::span<const std::uint8_t>(buffer.data(), n));
        continue;
      case TlsChannel::Io::kWantRead:
      case TlsChannel::Io::kWantWrite: return;
      case TlsChannel::Io::kClosed:
        Fail(ClientError(ErrorKind::kClosed,
                         "robot-edged at " + peer_ + " closed the connection without saying why"));
      case TlsChannel::Io::kError:
        Fail(ClientError(ErrorKind::kIo,
                         "receiving from robot-edged at " + peer_ + ": " + tls_->error()));
    }
  }
}

void Client::ReceiveAvailable() {
  if (tls_) {
    ReceiveTls();
    return;
  }
  std::array<std::uint8_t, 16 * 1024> buffer;
  for (;;) {
    const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), MSG_DONTWAIT);
    if (n > 0) {
      decoder_.Feed(std::span<const std::uint8_t>(buffer.data(), static_cast<std::size_t>(n)));
      return;
    }
    if (n == 0) {
      Fail(ClientError(ErrorKind::kClosed,
                       "robot-edged at " + peer_ + " closed the connection" +
                           (decoder_.buffered_bytes() > 0 ? " in the middle of a message" : "") +
                           " without saying why"));
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return;
    Fail(ClientError(errno == ECONNRESET ? ErrorKind::kClosed : ErrorKind::kIo,
                     "receiving from robot-edged at " + peer_ + ": " + std::strerror(errno)));
  }
}

// The daemon may have said Goodbye just before closing: its reason beats "broken pipe".
void Client::FailAfterSendError(int error) {
  const std::string what = "sending to robot-edged at " + peer_ + ": " + std::strerror(error);
  try {
    for (int i = 0; i < 64; ++i) {  // bounded: at most 64 reads of what is already there
      while (TakeBuffered()) {
      }
      const std::size_t before = decoder_.buffered_bytes();
      ReceiveAvailable();
      if (decoder_.buffered_bytes() == before) break;
    }
  } catch (const ClientError& e) {
    if (e.kind() == ErrorKind::kRefused) throw;  // Fail() has recorded it
  }
  failure_.reset();
  Fail(ClientError(error == EPIPE || error == ECONNRESET ? ErrorKind::kClosed : ErrorKind::kIo,
                   what));
}

void Client::Fail(ClientError error) {
  failure_ = error;
  throw error;
}

void Client::ThrowIfFailed() const {
  if (failure_) throw *failure_;
  if (fd_ < 0) throw ClientError(ErrorKind::kIo, "the client has been moved from");
}

}  // namespace robot_edge::client
