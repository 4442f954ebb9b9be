#include "daemon/api/session.hpp"

#include <linux/sockios.h>
#include <sys/ioctl.h>

#include <spdlog/spdlog.h>

#include <asio/write.hpp>
#include <vector>

namespace robot_edge::daemon {

Session::Session(Stream stream, SessionEvents* events, std::uint64_t id, Peer peer,
                 std::size_t max_backlog_bytes)
    : stream_(std::move(stream)),
      timer_(stream_.get_executor()),
      events_(events),
      id_(id),
      peer_(std::move(peer)),
      max_backlog_bytes_(max_backlog_bytes) {}

void Session::Start() {
  std::error_code ignored;
  stream_.lowest_layer().set_option(asio::socket_base::send_buffer_size(kSocketSendBufferBytes),
                                    ignored);
  timer_.expires_after(kHelloTimeout);
  timer_.async_wait([self = shared_from_this()](const std::error_code& ec) {
    if (!ec && !self->welcomed_) self->Close("no Hello within 5 s");
  });
  if (peer_.pending_slot) {
    peer_.pending_slot->SetCloser([weak = weak_from_this()] {
      if (const auto self = weak.lock()) self->Shutdown("its slot at the door went to a newcomer");
    });
  }
  Read();
}

void Session::Read() {
  stream_.async_read_some(asio::buffer(read_buffer_),
                          [self = shared_from_this()](const std::error_code& ec, std::size_t n) {
                            self->OnRead(ec, n);
                          });
}

void Session::OnRead(const std::error_code& ec, std::size_t n) {
  if (closing_ || shut_) return;
  if (ec) {
    std::string why = ec == asio::error::eof ? "client closed the connection" : ec.message();
    if (write_failed_) why += " (after a failed write)";
    Shutdown(why);
    return;
  }
  const auto status =
      reader_.Feed(std::span<const std::uint8_t>(read_buffer_.data(), n),
                   [this](const edge::ClientMessage& m) { return HandleMessage(m); });
  switch (status) {
    case MessageReader::Status::kOk: Read(); return;
    case MessageReader::Status::kStopped: return;  // closing
    case MessageReader::Status::kBadFrame:
    case MessageReader::Status::kUndecodable: Close(reader_.error()); return;
  }
}

bool Session::HandleMessage(const edge::ClientMessage& message) {
  if (!welcomed_) {
    if (!message.has_hello()) {
      Close("the first message must be a Hello");
      return false;
    }
    events_->OnHello(shared_from_this(), message.hello());
    return !closing_;
  }
  switch (message.msg_case()) {
    case edge::ClientMessage::kCommand: events_->OnCommand(*this, message.command()); return true;
    case edge::ClientMessage::kJointCommand:
      events_->OnJointCommand(*this, message.joint_command());
      return true;
    case edge::ClientMessage::kTimeSync:
      events_->OnTimeSync(*this, message.time_sync());
      return true;
    case edge::ClientMessage::kMaintenance:
      events_->OnMaintenance(*this, message.maintenance());
      return true;
    case edge::ClientMessage::kRecorder:
      events_->OnRecorder(*this, message.recorder());
      return true;
    case edge::ClientMessage::kStateStream:
      events_->OnStateStream(*this, message.state_stream());
      return true;
    case edge::ClientMessage::kHello: Close("a second Hello on the same connection"); return false;
    case edge::ClientMessage::MSG_NOT_SET: Close("an empty ClientMessage"); return false;
  }
  return true;
}

void Session::Welcome(const edge::Hello& hello) {
  welcomed_ = true;
  controller_ = hello.controller();
  wants_results_ = hello.want_command_results();
  wants_telemetry_ = !hello.no_telemetry();
  timer_.cancel();
  peer_.pending_slot.reset();  // authenticated: no longer counted at the listener's door
}

void Session::SendTelemetry(const Frame& frame) {
  if (!SkipLossy(Kind::kTelemetry, 1, kTelemetryUnreadLimitBytes)) Enqueue(frame, Kind::kTelemetry);
}

void Session::SendState(const Frame& frame) {
  if (!SkipLossy(Kind::kState, kMaxStatesWaiting, kStateUnreadLimitBytes))
    Enqueue(frame, Kind::kState);
}

// Lossy: the client misses this one rather than getting it late.
bool Session::SkipLossy(Kind kind, int max_waiting, int unread_limit_bytes) {
  return closing_ || waiting_[static_cast<std::size_t>(kind)] >= max_waiting ||
         UnreadBytes() > unread_limit_bytes;
}

int Session::UnreadBytes() {
  int bytes = 0;
  // Unix stream sockets: bytes not yet read by the peer; TCP: bytes not yet acknowledged.
  if (::ioctl(stream_.lowest_layer().native_handle(), SIOCOUTQ, &bytes) != 0) return 0;
  return bytes;
}

void Session::Send(const Frame& frame) {
  if (closing_) return;
  if (queued_bytes_ + frame->size() > max_backlog_bytes_) {
    Close("too slow for the event stream (" + std::to_string(queued_bytes_) +
          " bytes waiting); reconnect with resume_after_event");
    return;
  }
  Enqueue(frame, Kind::kReliable);
}

void Session::Enqueue(const Frame& frame, Kind kind) {
  if (write_failed_) return;
  queue_.push_back({frame, kind});
  queued_bytes_ += frame->size();
  ++waiting_[static_cast<std::size_t>(kind)];
  if (in_flight_ == 0) Write();
}

void Session::Write() {
  if (shut_ || queue_.empty()) return;
  std::vector<asio::const_buffer> buffers;
  in_flight_ = std::min<std::size_t>(queue_.size(), 64);
  for (std::size_t i = 0; i < in_flight_; ++i) buffers.push_back(asio::buffer(*queue_[i].frame));
  asio::async_write(stream_, buffers,
                    [self = shared_from_this()](const std::error_code& ec, std::size_t) {
                      if (self->shut_) return;
                      if (ec) {
                        self->OnWriteFailed(ec);
                        return;
                      }
                      for (std::size_t i = 0; i < self->in_flight_; ++i) {
                        self->queued_bytes_ -= self->queue_.front().frame->size();
                        --self->waiting_[static_cast<std::size_t>(self->queue_.front().kind)];
                        self->queue_.pop_front();
                      }
                      self->in_flight_ = 0;
                      if (!self->queue_.empty()) {
                        self->Write();
                      } else if (self->closing_) {
                        self->Shutdown("closed after Goodbye");
                      }
                    });
}

// A peer that sent a command and closed at once (a DAMP, then gone) makes the next write fail,
// possibly before its last bytes are read: the read side goes on until the peer's end of the
// stream, for at most kGoodbyeGrace, so that nothing it sent is lost.
void Session::OnWriteFailed(const std::error_code& ec) {
  const std::string why = "write failed: " + ec.message();
  if (closing_) {
    Shutdown(why);
    return;
  }
  write_failed_ = true;
  queue_.clear();
  queued_bytes_ = 0;
  in_flight_ = 0;
  waiting_ = {};
  std::error_code ignored;
  stream_.lowest_layer().shutdown(asio::socket_base::shutdown_send, ignored);
  timer_.expires_after(kGoodbyeGrace);
  timer_.async_wait([self = shared_from_this(), why](const std::error_code& timer_ec) {
    if (!timer_ec) self->Shutdown(why + "; nothing more read within 1 s");
  });
}

void Session::Close(const std::string& reason, bool log) {
  if (closing_ || shut_) return;
  closing_ = true;
  if (log) spdlog::info("client {} ({}): closing: {}", id_, peer_.description, reason);
  edge::ServerMessage goodbye;
  goodbye.mutable_goodbye()->set_reason(reason);
  auto frame = std::make_shared<std::string>();
  proto::AppendDelimited(goodbye, frame.get());
  Enqueue(frame, Kind::kReliable);
  timer_.expires_after(kGoodbyeGrace);
  timer_.async_wait([self = shared_from_this()](const std::error_code& ec) {
    if (!ec) self->Shutdown("Goodbye not read within 1 s");
  });
}

void Session::Shutdown(const std::string& why) {
  if (shut_) return;
  shut_ = true;
  spdlog::debug("client {} ({}): disconnected: {}", id_, peer_.description, why);
  std::error_code ignored;
  timer_.cancel();
  stream_.lowest_layer().shutdown(asio::socket_base::shutdown_both, ignored);
  stream_.lowest_layer().close(ignored);
  peer_.pending_slot.reset();  // its descriptor is closed
  events_->OnClosed(*this);
}

}  // namespace robot_edge::daemon
