// The control thread: at the configured rate, on absolute deadlines, it reads the motor replies
// and the IMU, applies the commands that arrived, steps the state machine and sends one command
// to every motor. It never waits on a client, never allocates, logs or throws once running.
//
// Threads: Run() is the control thread's body. Tick() is its work, public so that tests can
// drive it by hand. RequestStop(), healthy() and last_tick_us() may be called from any thread.
// Everything else belongs to the control thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "can/motor_scheduler.hpp"
#include "can/transport.hpp"
#include "config/config.hpp"
#include "daemon/battery_energy.hpp"
#include "daemon/command_pipe.hpp"
#include "daemon/control_events.hpp"
#include "daemon/control_wake.hpp"
#include "daemon/loop_timing.hpp"
#include "daemon/snapshot.hpp"
#include "daemon/state_sample.hpp"
#include "handoff/spsc_queue.hpp"
#include "handoff/triple_buffer.hpp"
#include "statemachine/state_machine.hpp"

namespace robot_edge::daemon {

// Requests in ControlChannels::urgent.
enum Urgent : std::uint8_t {
  kUrgentDamp = 1,          // the controlling client's DAMP (emergency stop)
  kUrgentStopWalking = 2,   // the controlling client left: MOVE/POLICY velocity -> 0
  kUrgentLatchingDamp = 4,  // anyone else's DAMP: latches (safety.latch_external_damp)
  kUrgentLiveDamp = 8,      // the live view's DAMP button: latches
};

// The channels between the control thread and the API thread.
// A finished scan (robot-edgectl scan): the ids that answered and no joint has.
struct ScanReport {
  struct Stray {
    std::uint32_t bus = 0;
    can::StraySender sender;
  };
  std::uint32_t sequence = 0;  // the ScanRequest it answers (ControlChannels::scan_request)
  bool refused = false;        // the robot was not in DAMP: nothing was probed
  std::array<Stray, config::kMaxBuses * can::MotorScheduler::kMaxStrays> strays{};
  std::size_t stray_count = 0;
};

// ControlChannels::motor_request's value for `request` to `joint`'s motor.
constexpr std::uint32_t MotorRequestMail(std::size_t joint, can::MotorRequest request) {
  return (static_cast<std::uint32_t>(request) + 1) << 16 | static_cast<std::uint32_t>(joint);
}

struct ControlChannels {
  // States are queued for kStateSeconds of ticks to the recorder, kStreamSeconds to the state
  // stream (a stream is live: older states are not worth sending).
  static constexpr double kStateSeconds = 2.0;
  static constexpr double kStreamSeconds = 0.2;

  ControlChannels(const config::Config& config, std::size_t command_slots,
                  std::size_t event_capacity)
      : commands(command_slots, config.joints.size(), config.control.max_segments),
        events(event_capacity),
        snapshots(ControlSnapshot(config.joints.size())),
        states(static_cast<std::size_t>(config.control.rate_hz * kStateSeconds),
               StateSample(config.joints.size())),
        stream_states(static_cast<std::size_t>(config.control.rate_hz * kStreamSeconds) + 1,
                      StateSample(config.joints.size())) {}

  CommandPipe commands;  // API -> control
  // API -> control, for what must never be lost to a full command pipe: Urgent bits, applied
  // after the pipe's commands on the next tick (so a DAMP that found the pipe full may override a
  // command sent just after it — the safe side).
  std::atomic<std::uint8_t> urgent{0};
  // API -> control: wakes the control thread before its next tick (an emergency stop).
  ControlWake wake;
  SpscQueue<ControlEvent> events;             // control -> API
  TripleBuffer<ControlSnapshot> snapshots;    // control -> API, latest only
  std::atomic<std::uint64_t> events_lost{0};  // events queue was full
  // API -> control, bring-up (daemon/maintenance.hpp), taken in DAMP only:
  // a scan of ids 1..(request & 0xFFFF) each time the value changes (sequence in the high bits);
  std::atomic<std::uint64_t> scan_request{0};
  // a motor's own request (can::MotorRequest kSetZero or kClearFault) for one joint:
  // MotorRequestMail(joint, request); 0 = none.
  std::atomic<std::uint32_t> motor_request{0};
  TripleBuffer<ScanReport> scans{ScanReport{}};  // control -> API, the latest finished scan
  // API -> control: the battery's latest reading, with battery.source sysfs (read off the
  // control thread, daemon/battery_sysfs.hpp).
  TripleBuffer<sm::BatteryMeasurement> battery{sm::BatteryMeasurement{}};
  // control -> recorder: every tick's state, filled in place, while `record_states` is set (the
  // flight recorder runs); a full queue loses the tick's state (counted in states_lost), never
  // waits.
  SpscQueue<StateSample> states;
  std::atomic<bool> record_states{false};
  std::atomic<std::uint64_t> states_lost{0};
  // control -> API: the same, for the state stream (daemon/state_stream.hpp), while
  // `stream_states_on` is set (a client subscribes); each queued state wakes the API thread.
  SpscQueue<StateSample> stream_states;
  std::atomic<bool> stream_states_on{false};
  std::atomic<std::uint64_t> stream_states_lost{0};
  int wake_fd = -1;  // eventfd written by the control thread after queueing events; -1 = none
};

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

// An emergency stop for the control thread, applied when it is woken (at once, off the ticks'
// schedule): a client's DAMP that found the command pipe full, the live view's DAMP button.
// `kind`: one of the DAMP requests of Urgent. Any thread; never blocks.
inline void RequestEmergencyDamp(ControlChannels* channels, Urgent kind = kUrgentDamp) {
  channels->urgent.fetch_or(kind, std::memory_order_acq_rel);
  channels->wake.Wake();
}

// Steady (monotonic) clock in µs: the time base of the control loop and the state machine.
std::int64_t SteadyMicros();
// Wall clock in µs since the Unix epoch: what clients and files are stamped with.
std::uint64_t WallMicros();

}  // namespace robot_edge::daemon
