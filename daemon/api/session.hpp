// One client connection of the API: reads length-prefixed ClientMessages and writes
// ServerMessages, over a Stream (a plain socket, or TLS once its handshake is done: stream.hpp).
// Telemetry and the state stream are lossy (a frame is skipped while earlier ones of its kind
// still wait, or while the client has not read what the kernel holds for it); events and answers
// are reliable (a client whose backlog passes api.client_backlog_kib is disconnected with a logged
// reason instead of silently losing events). Every refusal closes the connection with a Goodbye
// that says why; nothing a client sends can affect another client.
//
// Threads: the API thread (the io_context's) only.
#pragma once

#include <array>
#include <asio/generic/stream_protocol.hpp>
#include <asio/steady_timer.hpp>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "daemon/api/event_log.hpp"
#include "daemon/api/message_reader.hpp"
#include "daemon/api/peer.hpp"
#include "daemon/api/stream.hpp"
#include "edge_api.pb.h"

namespace robot_edge::daemon {

class Session;

// What a session reports to its owner (the Hub), on the API thread.
class SessionEvents {
 public:
  virtual ~SessionEvents() = default;
  // The first message, a Hello: the owner calls Welcome() or Close() on the session.
  virtual void OnHello(const std::shared_ptr<Session>& session, const edge::Hello& hello) = 0;
  // A command from a welcomed session.
  virtual void OnCommand(Session& session, const edge::CloudCommand& command) = 0;
  // A joint command from a welcomed session (edge_api.proto JointCommand).
  virtual void OnJointCommand(Session& session, const edge::JointCommand& command) = 0;
  // A request for the robot's clock (called as soon as its frame is read).
  virtual void OnTimeSync(Session& session, const edge::TimeSyncRequest& request) = 0;
  // A bring-up request from a welcomed session (daemon/api/maintenance.hpp).
  virtual void OnMaintenance(Session& session, const edge::MaintenanceRequest& request) = 0;
  // A recording request from a welcomed session (daemon/api/flight_recorder.hpp).
  virtual void OnRecorder(Session& session, const edge::RecorderRequest& request) = 0;
  // A request for the state stream from a welcomed session (daemon/api/state_stream.hpp).
  virtual void OnStateStream(Session& session, const edge::StateStreamRequest& request) = 0;
  // The connection is closed (after which the session sends nothing).
  virtual void OnClosed(Session& session) = 0;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  using Socket = Stream::Socket;
  static constexpr std::chrono::seconds kHelloTimeout{5};
  static constexpr std::chrono::seconds kGoodbyeGrace{1};
  // The kernel's send buffer of each client socket, fixed so that a slow client costs bounded
  // memory (TCP would otherwise grow it to megabytes) and its backlog shows in ours.
  static constexpr int kSocketSendBufferBytes = 256 * 1024;
  // Lossy frames are skipped while the client has more than this many bytes sent but not yet
  // read (SIOCOUTQ): what it gets is at most a few frames old however slowly it reads (the
  // 256 KiB kernel buffer alone would hold tens of seconds of stale telemetry). Telemetry: ~7
  // frames; the state stream: ~12 (24 ms at 500 Hz).
  static constexpr int kTelemetryUnreadLimitBytes = 8 * 1024;
  static constexpr int kStateUnreadLimitBytes = 16 * 1024;
  // State stream frames waiting in our queue beyond which the next is skipped: a burst after
  // the API thread was held up goes out (0.13 s at 500 Hz); a client that does not read is held
  // back by kStateUnreadLimitBytes first.
  static constexpr int kMaxStatesWaiting = 64;

  // `max_backlog_bytes`: reliable messages waiting to be written beyond which the client is
  // disconnected (config api.client_backlog_kib). `events` outlives the session.
  Session(Stream stream, SessionEvents* events, std::uint64_t id, Peer peer,
          std::size_t max_backlog_bytes);

  void Start();
  void SendTelemetry(const Frame& frame);  // lossy: skipped while one waits
  void SendState(const Frame& frame);      // lossy: skipped while kMaxStatesWaiting wait
  void Send(const Frame& frame);           // reliable
  // Sends a Goodbye with `reason` (logged unless `log` is false: the caller logged it, or
  // chose not to), then closes.
  void Close(const std::string& reason, bool log = true);

  // Set by the hub when it accepts the Hello.
  void Welcome(const edge::Hello& hello);

  std::uint64_t id() const { return id_; }
  bool welcomed() const { return welcomed_; }
  bool closing() const { return closing_ || shut_; }
  const std::string& controller() const { return controller_; }
  bool wants_results() const { return wants_results_; }
  bool wants_telemetry() const { return wants_telemetry_; }
  Transport transport() const { return peer_.transport; }
  const Peer& peer_identity() const { return peer_; }
  const std::string& peer() const { return peer_.description; }

 private:
  void Read();
  void OnRead(const std::error_code& ec, std::size_t n);
  bool HandleMessage(const edge::ClientMessage& message);
  enum class Kind : std::uint8_t { kReliable, kTelemetry, kState };
  void Enqueue(const Frame& frame, Kind kind);
  bool SkipLossy(Kind kind, int max_waiting, int unread_limit_bytes);
  void Write();
  void OnWriteFailed(const std::error_code& ec);
  int UnreadBytes();  // in the kernel, sent but not yet read by the client
  void Shutdown(const std::string& why);

  Stream stream_;
  asio::steady_timer timer_;
  SessionEvents* events_;
  std::uint64_t id_;
  Peer peer_;
  std::size_t max_backlog_bytes_;

  MessageReader reader_;
  std::array<std::uint8_t, 16384> read_buffer_{};

  struct Queued {
    Frame frame;
    Kind kind;
  };
  std::deque<Queued> queue_;
  std::size_t queued_bytes_ = 0;
  std::size_t in_flight_ = 0;     // frames at the front of queue_ being written
  std::array<int, 3> waiting_{};  // queued frames of each Kind

  bool welcomed_ = false;
  bool closing_ = false;
  bool shut_ = false;
  bool write_failed_ = false;  // the peer is gone or cannot read: what it sent is still read
  std::string controller_;
  bool wants_results_ = false;
  bool wants_telemetry_ = true;
};

}  // namespace robot_edge::daemon
