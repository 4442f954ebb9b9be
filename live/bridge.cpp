#include "live/bridge.hpp"

#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "proto/schema.hpp"

namespace robot_edge::live {
namespace {

using namespace std::chrono_literals;
constexpr client::Millis kApiTimeout{2000};  // connect, Welcome, StateStreamResult, a DAMP send
constexpr int kPollMs = 100;                 // how often Run() looks at `stop`

ChannelSpec SpecOf(const char* topic, const google::protobuf::Descriptor* descriptor) {
  return {topic, "protobuf", descriptor->full_name(), "protobuf",
          proto::FileDescriptorSetOf(descriptor)};
}

std::uint64_t Ns(std::uint64_t us) { return us * 1000; }

client::Client Observe(const std::string& socket, bool telemetry) {
  client::Client c = client::Client::ConnectUnix(socket, kApiTimeout);
  edge::Hello hello;  // controller "": an observer (it may still send DAMP)
  hello.set_no_telemetry(!telemetry);
  c.Hello(hello, kApiTimeout);
  return c;
}

}  // namespace

Bridge::Bridge(BridgeOptions options, LiveServer* server)
    : options_(std::move(options)), server_(server) {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) throw std::runtime_error("eventfd failed");
  channels_.joint_state =
      server_->AddChannel(SpecOf("/joint_state", edge::JointState::descriptor()));
  channels_.telemetry =
      server_->AddChannel(SpecOf("/telemetry", edge::EdgeTelemetry::descriptor()));
  channels_.events = server_->AddChannel(SpecOf("/events", edge::EdgeEvent::descriptor()));
  channels_.diagnostics =
      server_->AddChannel(SpecOf("/diagnostics", edge::DiagnosticsExtension::descriptor()));
}

Bridge::~Bridge() { ::close(wake_fd_); }

bool Bridge::RequestDamp() {
  if (!connected()) return false;
  damp_asked_.store(true, std::memory_order_relaxed);
  const std::uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof one);
  return true;
}

void Bridge::Run(const std::atomic<bool>& stop, const BridgeReport& report) {
  auto backoff = options_.min_backoff;
  std::string last_error;
  while (!stop.load(std::memory_order_relaxed)) {
    try {
      Connect();
      connected_.store(true, std::memory_order_relaxed);
      backoff = options_.min_backoff;
      last_error.clear();
      report(true, "connected to robot-edged (" + options_.api_socket + "), robot '" + robot_name_ +
                       "', state stream at " + std::to_string(options_.rate_hz) + " Hz");
      Serve(stop);
      if (stop.load(std::memory_order_relaxed)) break;
    } catch (const client::ClientError& e) {
      if (connected()) last_error.clear();  // it was up: report the loss even if the same text
      connected_.store(false, std::memory_order_relaxed);
      stream_.reset();
      damp_.reset();
      if (e.what() != last_error) {
        report(false, std::string("robot-edged not connected: ") + e.what() + "; retrying every " +
                          "≤ " + std::to_string(options_.max_backoff.count()) + " ms");
        last_error = e.what();
      }
    }
    // The back-off, in short sleeps so that SIGTERM is not kept waiting.
    const auto until = std::chrono::steady_clock::now() + backoff;
    while (!stop.load(std::memory_order_relaxed) && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(20ms);
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
  connected_.store(false, std::memory_order_relaxed);
  stream_.reset();
  damp_.reset();
}

void Bridge::Connect() {
  stream_.reset();
  damp_.reset();
  stream_.emplace(client::Client::ConnectUnix(options_.api_socket, kApiTimeout));
  edge::Hello hello;
  const edge::Welcome welcome = stream_->Hello(hello, kApiTimeout);
  robot_name_ = welcome.robot_name();
  if (!stream_->StreamState(options_.rate_hz, kApiTimeout)) {
    throw client::ClientError(client::ErrorKind::kTimeout, "no answer to the StateStreamRequest");
  }
  damp_.emplace(Observe(options_.api_socket, /*telemetry=*/false));
  sequencer_ = client::Sequencer();
}

void Bridge::Serve(const std::atomic<bool>& stop) {
  while (!stop.load(std::memory_order_relaxed)) {
    if (damp_asked_.exchange(false, std::memory_order_relaxed)) SendDamp();
    pollfd fds[3] = {{wake_fd_, POLLIN, 0}, {stream_->fd(), POLLIN, 0}, {damp_->fd(), POLLIN, 0}};
    const bool buffered = stream_->HasBufferedMessage() || damp_->HasBufferedMessage();
    if (::poll(fds, 3, buffered ? 0 : kPollMs) < 0 && errno != EINTR) {
      throw client::ClientError(client::ErrorKind::kIo, "poll failed");
    }
    if (fds[0].revents != 0) {
      std::uint64_t count = 0;
      (void)!::read(wake_fd_, &count, sizeof count);
    }
    // A bounded batch per pass, so that a DAMP asked meanwhile waits at most one batch.
    for (int i = 0; i < 64; ++i) {
      const auto m = stream_->Read(0ms);
      if (!m) break;
      Republish(*m);
    }
    while (damp_->Read(0ms)) {
    }  // its events: read and let go (nothing there is republished twice)
  }
}

void Bridge::Republish(const edge::ServerMessage& m) {
  if (m.has_joint_state()) {
    m.joint_state().SerializeToString(&bytes_);
    server_->Publish(channels_.joint_state, Ns(m.joint_state().timestamp_us()), bytes_);
  }
  if (m.has_telemetry()) {
    m.telemetry().SerializeToString(&bytes_);
    server_->Publish(channels_.telemetry, Ns(m.telemetry().timestamp_us()), bytes_);
  }
  if (m.has_event()) {
    m.event().SerializeToString(&bytes_);
    server_->Publish(channels_.events, Ns(m.event().timestamp_us()), bytes_);
    if (m.has_diagnostics_extension()) {
      m.diagnostics_extension().SerializeToString(&bytes_);
      server_->Publish(channels_.diagnostics, Ns(m.event().timestamp_us()), bytes_);
    }
  }
}

void Bridge::SendDamp() {
  edge::CloudCommand damp = client::MakeMode(edge::MODE_DAMP);
  sequencer_.Stamp(&damp, client::WallClockMicros());
  try {
    damp_->Send(damp, kApiTimeout);
    spdlog::warn("DAMP from the live view (operator) sent to robot-edged");
    return;
  } catch (const client::ClientError& e) {
    spdlog::error("DAMP over the live view's own connection failed ({}): trying a new one",
                  e.what());
  }
  client::Client fresh = Observe(options_.api_socket, /*telemetry=*/false);  // throws: reconnect
  client::Sequencer sequencer;
  sequencer.Stamp(&damp, client::WallClockMicros());
  fresh.Send(damp, kApiTimeout);
  spdlog::warn("DAMP from the live view (operator) sent to robot-edged on a new connection");
  throw client::ClientError(client::ErrorKind::kClosed, "the DAMP connection was lost");
}

}  // namespace robot_edge::live
