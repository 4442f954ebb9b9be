// robot-edged's own parts wired as daemon.cpp wires them — Hub, Listener on a Unix socket, the
// ControlLoop on its own thread with its real clock_nanosleep loop, BusHealth — in this process
// on this machine's kernel, with the CAN transport replaced by LoopbackTransport. It lets
// bench_e2e measure the daemon's latency, watchdog and loop timing on a real kernel where the
// kernel has no CAN (this machine's: its vcan runs under user-mode-linux).
//
// What differs from robot-edged on CAN: no CAN system calls (a sendmmsg and a recvmmsg per tick,
// a few µs each on a real kernel), the "wire" timestamp is taken when the control thread hands
// the batch to the transport (CLOCK_REALTIME), and the robot answers at once.
#pragma once

#include <sys/types.h>

#include <array>
#include <asio/io_context.hpp>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "can/frame_tap.hpp"
#include "can/transport.hpp"
#include "config/config.hpp"
#include "daemon/api/bus_health.hpp"
#include "daemon/api/flight_recorder.hpp"
#include "daemon/api/hub.hpp"
#include "daemon/api/listener.hpp"
#include "daemon/control/control_loop.hpp"
#include "e2e_rig.hpp"
#include "sim/canned_replies.hpp"
#include "wire.hpp"

namespace robot_edge::bench {

// A Transport in memory: every frame sent is recorded with the time of Send() in a ring that any
// number of FrameSources read from other threads, and each motor command is answered (reply to
// the master id, position = the stand pose) for the next Receive(), with the IMU's two frames.
// Send() and Receive() on one thread (the control thread); nothing allocates after construction.
class LoopbackTransport final : public can::Transport {
 public:
  static constexpr std::size_t kRingFrames = 1 << 18;  // ~20 s of 25 motors at 500 Hz

  explicit LoopbackTransport(const config::Config& config);

  std::size_t bus_count() const override { return buses_.size(); }
  std::size_t Send(std::span<const can::BusFrame> frames) override;
  std::size_t Receive(std::span<can::BusFrame> out) override;
  const can::BusCounters& counters(std::size_t bus) const override { return buses_[bus]->counters; }
  const std::string& interface(std::size_t bus) const override { return buses_[bus]->name; }

  // The frames sent from now on, on `interface` ("" = every bus), to these ids.
  std::unique_ptr<FrameSource> Tap(const std::string& interface, const std::vector<canid_t>& ids);

 private:
  class RingSource;
  struct Bus {
    std::string name;
    can::BusCounters counters;
  };
  std::vector<std::unique_ptr<Bus>> buses_;
  sim::CannedReplies replies_;  // the robot double's canned mode
  std::vector<can::BusFrame> inbox_;
  std::size_t inbox_read_ = 0;
  std::vector<TappedFrame> ring_;
  std::atomic<std::uint64_t> head_{0};  // frames ever written; the control thread's
};

class InProcessDaemon final : public Target {
 public:
  explicit InProcessDaemon(const config::Config& config);
  ~InProcessDaemon() override;

  const config::Config& config() const override { return config_; }
  const std::string& api_socket() const { return socket_; }
  client::Client Connect(const std::string& controller, bool want_results, bool telemetry) override;
  std::unique_ptr<FrameSource> Tap(const std::string& interface,
                                   const std::vector<canid_t>& ids) override {
    return transport_.Tap(interface, ids);
  }
  // The control thread's and the API thread's CPU time.
  double DaemonCpuSeconds() override;
  double SimCpuSeconds() override;
  bool CountsBusFrames() const override { return false; }
  double ThreadCpuSeconds(const std::string& name) override {
    return NamedThreadCpuSeconds(0, name);
  }
  std::string LiveUrl() const override {
    return "ws://127.0.0.1:" + std::to_string(live_port_) + "/";
  }
  bool CopyCanFrames(bool on) override {
    can_tap_.set_enabled(on);
    return true;
  }

 private:
  std::string dir_, socket_;
  config::Config config_;  // the caller's, recording every channel into dir_/recordings
  LoopbackTransport transport_;
  can::FrameTap can_tap_;  // the control loop's transport, as daemon.cpp's with /can recorded
  asio::io_context io_;
  int wake_fd_ = -1;
  daemon::ControlChannels channels_;
  daemon::ControlLoop loop_;
  daemon::BusHealth bus_health_;
  daemon::AccessPolicy access_;
  daemon::FlightRecorder recorder_;  // as daemon.cpp's, recording when asked
  std::unique_ptr<daemon::Hub> hub_;
  std::unique_ptr<daemon::Listener> listener_;
  std::atomic<pid_t> control_tid_{0}, api_tid_{0};
  std::thread control_thread_, api_thread_;
  std::uint16_t live_port_ = 0;
  std::unique_ptr<Child> live_;  // robot-edge-live on socket_, as on the robot: another process
};

}  // namespace robot_edge::bench
