// The control thread: at the configured rate, on absolute deadlines, it reads the motor replies
// and the IMU, applies the commands that arrived, steps the state machine and sends one command
// to every motor. It never waits on a client, never allocates, logs or throws once running.
//
// Threads: Run() is the control thread's body. Tick() is its work, public so that tests can
// drive it by hand. RequestStop(), healthy() and last_tick_us() may be called from any thread.
// Everything else belongs to the control thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "can/motor_scheduler.hpp"
#include "can/transport.hpp"
#include "config/config.hpp"
#include "config/joint_table.hpp"
#include "daemon/channels/clock.hpp"
#include "daemon/channels/control_channels.hpp"
#include "daemon/channels/loop_timing.hpp"
#include "daemon/channels/state_sample.hpp"
#include "daemon/control/battery_energy.hpp"
#include "handoff/spsc_queue.hpp"
#include "statemachine/state_machine.hpp"

namespace robot_edge::daemon {

class ControlLoop {
 public:
  // Bus i of `transport` carries config.buses[i]; `policy` may be null. All must outlive the
  // loop.
  ControlLoop(const config::Config& config, can::Transport& transport, sm::Policy* policy,
              ControlChannels* channels);

  // The control thread: enters motor mode, ticks until RequestStop(), then sends DAMP to every
  // motor and takes them out of motor mode.
  void Run();
  void RequestStop() { stop_.store(true, std::memory_order_relaxed); }

  // One control tick at `now_us` (steady clock, µs).
  void Tick(std::int64_t now_us);
  // Between ticks, when woken (ControlChannels::wake): the commands that arrived are applied and
  // the resulting targets sent at once, without reading the buses (the next tick does).
  void UrgentTick(std::int64_t now_us);
  // DAMP on every motor, then exit motor mode (FD).
  void Shutdown(std::int64_t now_us);

  // Before Run(): a stop latched in an earlier run (daemon/api/stop_latch_file.hpp) is in force.
  void RestoreStopLatch(const sm::StopLatch& latch) { state_machine_.RestoreStopLatch(latch); }

  // Heartbeat for the systemd watchdog: end of the last tick (steady µs), -1 before the first.
  std::int64_t last_tick_us() const { return last_tick_us_.load(std::memory_order_relaxed); }
  const can::MotorScheduler& scheduler() const { return scheduler_; }

 private:
  void ReadInputs();
  // The battery's latest reading from its source, into inputs_.battery.
  void ReadBattery();
  void Advance(std::int64_t now_us, bool on_schedule);
  void ApplyCommands(std::int64_t now_us);
  // A stall the supervisor DAMPed (fatal_signals.hpp) into inputs_, and DAMP submitted.
  void TakeStall(std::int64_t now_us);
  void ForwardEvents(std::span<const sm::Event> events);
  void PushEvent(const ControlEvent& event);
  void SendTargets(std::span<const sm::JointTarget> targets, std::int64_t now_us, bool on_schedule);
  void Publish(std::int64_t now_us, const sm::Outputs& out);
  // The tick's StateSample for the flight recorder when it runs, and for the state stream when
  // a client subscribes.
  void ShareState(std::int64_t now_us, const sm::Outputs& out);
  // Queues the tick's StateSample on `queue`; false (counted in `lost`) when it is full.
  bool QueueState(SpscQueue<StateSample>* queue, std::atomic<std::uint64_t>* lost,
                  std::int64_t now_us, const sm::Outputs& out);
  // Bring-up requests (ControlChannels), before the targets are sent.
  void Maintain(std::int64_t now_us, sm::Mode mode);
  void PublishScan(bool refused);

  std::int64_t period_us_;
  can::Transport& transport_;
  const config::JointTable joint_table_;  // built once; the scheduler and the state machine read it
  can::MotorScheduler scheduler_;
  sm::StateMachine state_machine_;
  ControlChannels* channels_;
  LoopTiming timing_;
  config::BatteryConfig::Source battery_source_;
  BatteryEnergy battery_energy_;

  std::vector<sm::JointMeasurement> joints_;
  std::vector<sm::BusStatus> bus_status_;
  sm::Inputs inputs_;
  std::vector<can::MitCommand> commands_;
  bool events_queued_ = false;
  std::uint64_t ticks_ = 0;  // scheduled ticks since the loop started
  // Replies to a scan's last probes are awaited this long before the report.
  static constexpr std::int64_t kScanSettleUs = 50'000;
  std::uint64_t scan_seen_ = 0;             // last scan_request taken
  bool scan_pending_ = false;               // a scan runs: report when it is over
  std::int64_t scan_settle_until_us_ = -1;  // probes all sent: replies until then; -1 = none

  std::atomic<bool> stop_{false};
  std::atomic<std::int64_t> last_tick_us_{-1};
};

}  // namespace robot_edge::daemon
