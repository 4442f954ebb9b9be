// What bench_uplink_cost runs its windows beside: robot-edged on vcan (the test rig) or
// robot-edged's parts in the bench's process on the host kernel (inproc.hpp), each seen the same
// way: its API socket, its CPU time, and joint 0's command frames as robot-edged sent them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "client/client.hpp"
#include "e2e_rig.hpp"
#include "inproc.hpp"
#include "robot_rig.hpp"
#include "wire.hpp"

namespace robot_edge::bench {

// One command frame to joint 0 as robot-edged sent it: when (steady µs), and whether it holds
// the joint (kp > 0: STAND) or only damps it (kp 0: DAMP).
struct Sent {
  std::int64_t t_us;
  bool stiff;
};

// The robot-edged the windows run beside: its API socket, its CPU time, joint 0's commands.
class Daemon {
 public:
  virtual ~Daemon() = default;
  virtual std::string api_socket() const = 0;
  virtual double CpuSeconds() = 0;
  // Joint 0's commands sent since `from_us` (steady µs), oldest first; only since the last
  // Open() (a window or a run of commands opens one).
  virtual void Open() = 0;
  virtual std::vector<Sent> Joint0Since(std::int64_t from_us) = 0;
};

// robot-edged and robot-edge-sim on vcan (the test rig): joint 0's frames on the wire.
class VcanDaemon final : public Daemon {
 public:
  explicit VcanDaemon(test::Robot& robot) : robot_(robot) {}
  std::string api_socket() const override { return robot_.api_socket(); }
  double CpuSeconds() override { return bench::CpuSeconds(robot_.daemon_pid()); }
  void Open() override {}
  std::vector<Sent> Joint0Since(std::int64_t from_us) override {
    const test::BusMonitor& monitor = robot_.monitor();
    std::vector<Sent> out;
    for (const auto& f : monitor.Since(from_us)) {
      if (!f.special && monitor.JointOf(f) == 0) out.push_back({f.t_us, f.command.kp > 0});
    }
    return out;
  }

 private:
  test::Robot& robot_;
};

// robot-edged's parts in this process on the host kernel: joint 0's commands where the control
// thread hands them to the transport. The tap's ring holds about 20 s: read at least that often.
class HostDaemon final : public Daemon {
 public:
  explicit HostDaemon(InProcessDaemon& daemon)
      : daemon_(daemon),
        tap_(daemon.Tap(daemon.config().buses[daemon.config().joints[0].bus].interface,
                        {daemon.config().joints[0].can_id})) {}
  std::string api_socket() const override { return daemon_.api_socket(); }
  double CpuSeconds() override { return daemon_.DaemonCpuSeconds(); }
  void Open() override {
    tap_->Drain();
    frames_.clear();
  }
  std::vector<Sent> Joint0Since(std::int64_t from_us) override {
    std::vector<TappedFrame> read;
    while (tap_->Read(0, &read) > 0) {
    }
    // The tap stamps CLOCK_REALTIME; the bench's times are steady.
    const std::int64_t steady_minus_wall =
        test::NowUs() - static_cast<std::int64_t>(client::WallClockMicros());
    for (const TappedFrame& f : read) {
      // The MIT command's kp: the low nibble of byte 3 and byte 4, 0 only for kp 0.
      const bool stiff = f.frame.len == 8 && ((f.frame.data[3] & 0x0F) | f.frame.data[4]) != 0;
      frames_.push_back({f.t_ns / 1000 + steady_minus_wall, stiff});
    }
    std::vector<Sent> out;
    for (const Sent& f : frames_) {
      if (f.t_us >= from_us) out.push_back(f);
    }
    return out;
  }

 private:
  InProcessDaemon& daemon_;
  std::unique_ptr<FrameSource> tap_;
  std::vector<Sent> frames_;  // since Open()
};

}  // namespace robot_edge::bench
