#include "fake_daemon.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

namespace robot_edge::testing {

const std::vector<std::string>& JointNames() {
  static const std::vector<std::string> names = {
      "L_Hip_Pitch", "L_Hip_Roll",  "L_Hip_Yaw",        "L_Knee",          "L_Ankle_A",
      "L_Ankle_B",   "R_Hip_Pitch", "R_Hip_Roll",       "R_Hip_Yaw",       "R_Knee",
      "R_Ankle_A",   "R_Ankle_B",   "L_Shoulder_Pitch", "L_Shoulder_Roll", "L_Shoulder_Yaw",
      "L_Elbow",     "L_Wrist_Yaw", "R_Shoulder_Pitch", "R_Shoulder_Roll", "R_Shoulder_Yaw",
      "R_Elbow",     "R_Wrist_Yaw", "Waist_Yaw",        "Neck_Pitch",      "Neck_Yaw"};
  return names;
}

FakePeer::FakePeer(int fd) : fd_(fd) {}

FakePeer::FakePeer(FakePeer&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      decoder_(std::move(other.decoder_)),
      closed_(other.closed_) {}

FakePeer::~FakePeer() { Close(); }

void FakePeer::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void FakePeer::Send(const edge::ServerMessage& message) {
  std::string bytes;
  ASSERT_TRUE(proto::AppendDelimited(message, &bytes));
  SendRaw(bytes);
}

void FakePeer::SendRaw(std::string_view bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;  // the client has gone: tests check what it saw
    sent += static_cast<std::size_t>(n);
  }
}

std::optional<edge::ClientMessage> FakePeer::Read(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::span<const std::uint8_t> payload;
    const auto status = decoder_.Next(&payload);
    if (status == proto::FrameDecoder::Status::kMessage) {
      edge::ClientMessage message;
      EXPECT_TRUE(message.ParseFromArray(payload.data(), static_cast<int>(payload.size())));
      return message;
    }
    EXPECT_EQ(status, proto::FrameDecoder::Status::kNeedMore);
    if (status != proto::FrameDecoder::Status::kNeedMore || closed_) return std::nullopt;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd_, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
      return std::nullopt;
    }
    std::array<char, 4096> buffer;
    const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), 0);
    if (n <= 0) {
      closed_ = true;
      continue;
    }
    decoder_.Feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
  }
}

std::string FakePeer::ReadRaw(std::size_t size, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string out;
  while (out.size() < size) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd_, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buffer[256];
    const ssize_t n = ::recv(fd_, buffer, std::min(sizeof(buffer), size - out.size()), 0);
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  return out;
}

bool FakePeer::WaitClosed(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!closed_ && std::chrono::steady_clock::now() < deadline) {
    Read(std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                               std::chrono::steady_clock::now()));
  }
  return closed_;
}

std::pair<client::Client, FakePeer> ConnectedPair() {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    throw std::runtime_error("socketpair failed");
  }
  return {client::Client::Adopt(fds[0], "fake-daemon"), FakePeer(fds[1])};
}

FakeDaemon::FakeDaemon(std::function<void(FakePeer&)> script) {
  char directory[] = "/tmp/robot-edge-client-test-XXXXXX";
  if (::mkdtemp(directory) == nullptr) throw std::runtime_error("mkdtemp failed");
  directory_ = directory;
  path_ = directory_ + "/api.sock";
  listener_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path_.c_str(), sizeof(address.sun_path) - 1);
  if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::listen(listener_, 4) != 0) {
    throw std::runtime_error("cannot listen on " + path_ + ": " + std::strerror(errno));
  }
  thread_ = std::thread([this, script = std::move(script)] {
    pollfd p{listener_, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) return;  // the client never came: the test reports why
    FakePeer peer(::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC));
    script(peer);
  });
}

void FakeDaemon::Join() {
  if (thread_.joinable()) thread_.join();
}

FakeDaemon::~FakeDaemon() {
  Join();
  ::close(listener_);
  ::unlink(path_.c_str());
  ::rmdir(directory_.c_str());
}

edge::ServerMessage Welcome(float control_rate_hz, const std::string& controller) {
  edge::ServerMessage m;
  edge::Welcome* w = m.mutable_welcome();
  w->set_version("0.1.0");
  for (const std::string& name : JointNames()) w->add_joint_names(name);
  w->set_control_rate_hz(control_rate_hz);
  w->set_mode(edge::FW_MODE_STAND);
  w->set_control_mode(edge::CONTROL_MODE_STAND);
  w->set_telemetry_rate_hz(10.0f);
  w->set_last_event_sequence(41);
  w->set_robot_name("asimov-sim");
  w->set_controller(controller);
  w->add_controllers("ble");
  w->add_controllers("cloud");
  return m;
}

edge::ServerMessage Telemetry(std::uint32_t sequence, edge::ControlMode mode,
                              const std::vector<float>& joint_pos) {
  edge::ServerMessage m;
  edge::EdgeTelemetry* t = m.mutable_telemetry();
  t->set_sequence(sequence);
  m.mutable_telemetry_extension()->set_control_mode(mode);
  t->set_fw_mode(mode == edge::CONTROL_MODE_DAMP    ? edge::FW_MODE_DAMP
                 : mode == edge::CONTROL_MODE_STAND ? edge::FW_MODE_STAND
                                                    : edge::FW_MODE_MOVE);
  for (std::size_t j = 0; j < joint_pos.size(); ++j) {
    t->add_joint_pos(joint_pos[j]);
    t->add_joint_vel(0.0f);
    t->add_joint_current(0.1f * static_cast<float>(j));
    t->add_joint_temp(30.0f + static_cast<float>(j));
    m.mutable_telemetry_extension()->add_joint_torque(0.0f);
  }
  for (float q : {1.0f, 0.0f, 0.0f, 0.0f}) t->add_imu_quat(q);
  return m;
}

edge::ServerMessage Result(std::uint32_t sequence, bool accepted, const std::string& reason,
                           edge::ControlMode mode) {
  edge::ServerMessage m;
  edge::CommandResult* r = m.mutable_command_result();
  r->set_sequence(sequence);
  r->set_accepted(accepted);
  r->set_reason(reason);
  r->set_control_mode(mode);
  return m;
}

edge::ServerMessage Goodbye(const std::string& reason) {
  edge::ServerMessage m;
  m.mutable_goodbye()->set_reason(reason);
  return m;
}

edge::ServerMessage Diagnostics(std::uint32_t sequence) {
  edge::ServerMessage m;
  edge::EdgeEvent* e = m.mutable_event();
  e->set_sequence(sequence);
  e->set_timestamp_us(1717243200123456ull);
  edge::EdgeDiagnostics* d = e->mutable_diagnostics();
  d->set_controller("cloud");
  edge::DiagnosticsExtension* x = m.mutable_diagnostics_extension();
  x->set_control_mode(edge::CONTROL_MODE_STAND);
  x->set_loop_rate_hz(499.9f);
  x->set_connected_clients(2);
  const char* names[] = {"left_leg", "right_leg"};
  for (int b = 0; b < 2; ++b) {
    edge::CanBusHealth* bus = d->add_can_health();
    bus->set_interface("vcan" + std::to_string(b));
    bus->set_frames_sent(1000 + b);
    edge::CanBusExtension* more = x->add_can_buses();
    more->set_name(names[b]);
    more->set_link_up(b == 0);
    more->set_state(b == 0 ? edge::CAN_STATE_ERROR_ACTIVE : edge::CAN_STATE_BUS_OFF);
  }
  edge::DropCounter* drop = x->add_command_drops();
  drop->set_reason("velocity_in_damp");
  drop->set_count(3);
  return m;
}

std::vector<float> TestPose() {
  std::vector<float> pose;
  for (std::size_t j = 0; j < JointNames().size(); ++j)
    pose.push_back(0.01f * static_cast<float>(j));
  return pose;
}

}  // namespace robot_edge::testing
