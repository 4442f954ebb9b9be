// robot-edge-sim's event loop: the SimRobot on real SocketCAN buses, the IMU and status timers,
// the control socket and the signals, all on one asio::io_context run by one thread.
//
// One SocketCanTransport for every bus (one socket, whose kernel filter passes the motor ids); an
// async_wait for readability; on wake, Receive() takes the waiting frames of all buses in one
// recvmmsg, each bus's motors advance to now and handle their frames, and all replies go out in
// one Send() (one sendmmsg). No per-frame system call, log line or (in steady state) allocation.
// A wake costs five system calls: asio's epoll_wait and its epoll_ctl re-arm of the wait, one
// clock_gettime, the recvmmsg and the sendmmsg — about one wake per control tick of the daemon.
// Timers: the physics advanced to now and IMU frames at sim.imu_rate_hz on the IMU's bus (one
// Send() of two frames, three with imu.accel_id), so the robot moves (and falls) between the
// daemon's frames too; with battery.source can, the BMS frame every 100 ms on battery.bus; the
// status line once a second, with a warning when the physics fell behind real time. SIGINT/SIGTERM:
// close everything, remove the control socket, Run() returns.
//
// Threads: construction and Run() on the same thread; nothing else touches this object.
#pragma once

#include <asio/io_context.hpp>
#include <asio/signal_set.hpp>
#include <asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "can/socketcan/socketcan_transport.hpp"
#include "config/config.hpp"
#include "sim/control_server.hpp"
#include "sim/sim_robot.hpp"

namespace robot_edge::sim {

struct SimulatorOptions {
  std::string control_path;           // --control: Unix socket for fault injection; "" = none
  bool status_lines = true;           // !--quiet: log the status line every second
  std::string physics = "kinematic";  // kinematic | mujoco
  std::string model_path;             // mujoco: the MJCF file
  double gantry_height_m = 0;         // mujoco: start hanging this high; 0 = on the floor
};

// The plant `options` ask for (throws std::runtime_error when the MuJoCo model is unusable).
std::unique_ptr<Plant> MakePlant(const config::Config& config, const SimulatorOptions& options);

class Simulator {
 public:
  // Opens every bus and the control socket. Throws std::system_error naming the interface or
  // path that failed; `config` must be valid and outlive the simulator.
  Simulator(const config::Config& config, SimulatorOptions options);
  ~Simulator();

  // Runs until SIGINT or SIGTERM; returns after a clean shutdown.
  void Run();

  // One control line -> its reply line (public for the control server's handler).
  std::string HandleControlLine(std::string_view line);

 private:
  std::int64_t NowUs() const;
  void WaitForFrames();
  void OnReadable(std::error_code ec);
  void ScheduleImu();
  void ScheduleBattery();
  void ScheduleStatus();
  std::string ExecuteBusCommand(const ControlCommand& command);
  void Shutdown();

  const config::Config& config_;
  SimulatorOptions options_;
  asio::io_context io_;
  std::chrono::steady_clock::time_point start_;
  SimRobot robot_;
  std::unique_ptr<can::SocketCanTransport> transport_;  // every bus, one socket
  std::int64_t reported_lag_us_ = 0;
  asio::steady_timer imu_timer_;
  asio::steady_timer battery_timer_;
  asio::steady_timer status_timer_;
  asio::signal_set signals_;
  asio::steady_timer retry_;  // re-arms the wait after a socket error
  std::unique_ptr<ControlServer> control_;
  std::chrono::steady_clock::duration imu_period_;
  std::chrono::steady_clock::time_point next_imu_;
  std::vector<can::BusFrame> rx_;   // scratch: one Receive() batch
  std::vector<can_frame> run_;      // scratch: the frames of one bus within it
  std::vector<can_frame> replies_;  // scratch: their replies
  std::vector<can::BusFrame> out_;  // scratch: every reply of the batch, sent at once
  bool stopping_ = false;
};

}  // namespace robot_edge::sim
