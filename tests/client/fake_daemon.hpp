// Test doubles of robot-edged's side of the API: FakePeer is the daemon's end of one
// connection, driven by the test (frames ServerMessages, reads ClientMessages); FakeDaemon
// listens on a temporary Unix socket and runs a script on the first connection in a thread.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "client/client.hpp"
#include "edge_api.pb.h"
#include "proto/framing.hpp"

namespace robot_edge::testing {

// The 25 joints of config/robot-edge.yaml, firmware order.
const std::vector<std::string>& JointNames();

class FakePeer {
 public:
  explicit FakePeer(int fd);  // takes ownership
  FakePeer(FakePeer&& other) noexcept;
  FakePeer(const FakePeer&) = delete;
  FakePeer& operator=(const FakePeer&) = delete;
  ~FakePeer();

  void Send(const edge::ServerMessage& message);
  void SendRaw(std::string_view bytes);
  // The next ClientMessage; nullopt on timeout or when the client closed (then closed() is
  // true). A frame that does not decode fails the test.
  std::optional<edge::ClientMessage> Read(std::chrono::milliseconds timeout);
  // Up to `size` raw bytes (fewer on timeout); bypasses the framing.
  std::string ReadRaw(std::size_t size, std::chrono::milliseconds timeout);
  // Reads until the client closes its end; false if it did not within `timeout`.
  bool WaitClosed(std::chrono::milliseconds timeout);
  bool closed() const { return closed_; }
  void Close();

 private:
  int fd_;
  proto::FrameDecoder decoder_;
  bool closed_ = false;
};

// A connected pair: the Client under test and the fake daemon's end.
std::pair<client::Client, FakePeer> ConnectedPair();

class FakeDaemon {
 public:
  // Listens on a new socket in a temporary directory; the script runs in a thread on the first
  // connection accepted.
  explicit FakeDaemon(std::function<void(FakePeer&)> script);
  ~FakeDaemon();  // waits for the script, removes the socket and the directory

  const std::string& path() const { return path_; }
  void Join();

 private:
  std::string directory_;
  std::string path_;
  int listener_ = -1;
  std::thread thread_;
};

// Messages the daemon sends.
edge::ServerMessage Welcome(float control_rate_hz = 500.0f, const std::string& controller = "");
edge::ServerMessage Telemetry(std::uint32_t sequence, edge::ControlMode mode,
                              const std::vector<float>& joint_pos);
edge::ServerMessage Result(std::uint32_t sequence, bool accepted, const std::string& reason = "",
                           edge::ControlMode mode = edge::CONTROL_MODE_STAND);
edge::ServerMessage Goodbye(const std::string& reason);
edge::ServerMessage Diagnostics(std::uint32_t sequence);

// A pose with joint j at 0.01 * j rad.
std::vector<float> TestPose();

}  // namespace robot_edge::testing
