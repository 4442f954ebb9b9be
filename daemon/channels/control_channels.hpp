// The hand-off between the API thread and the control thread: every mailbox, queue and flag
// that crosses between them, with its direction. Both sides include this header, and the API
// side nothing of the control thread's; daemon.cpp owns the one ControlChannels.
//
// Threads: each member names its writer and its reader (API -> control, control -> API,
// control -> recorder); a queue's producer end belongs to its writer, its consumer end to its
// reader. RequestEmergencyDamp(): any thread.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "can/motor_protocol.hpp"
#include "can/motor_scheduler.hpp"
#include "config/config.hpp"
#include "daemon/channels/command_pipe.hpp"
#include "daemon/channels/control_events.hpp"
#include "daemon/channels/control_wake.hpp"
#include "daemon/channels/snapshot.hpp"
#include "daemon/channels/state_sample.hpp"
#include "handoff/spsc_queue.hpp"
#include "handoff/triple_buffer.hpp"
#include "statemachine/io.hpp"

namespace robot_edge::daemon {

// Requests in ControlChannels::urgent.
enum Urgent : std::uint8_t {
  kUrgentDamp = 1,          // the controlling client's DAMP (emergency stop)
  kUrgentStopWalking = 2,   // the controlling client left: MOVE/POLICY velocity -> 0
  kUrgentLatchingDamp = 4,  // anyone else's DAMP (robot-edge-live's too): latches
                            // (safety.latch_external_damp)
};

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

// The channels between the control thread and the API thread.
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

// An emergency stop for the control thread, applied when it is woken (at once, off the ticks'
// schedule): a client's DAMP that found the command pipe full, the live view's DAMP button.
// `kind`: one of the DAMP requests of Urgent. Any thread; never blocks.
inline void RequestEmergencyDamp(ControlChannels* channels, Urgent kind = kUrgentDamp) {
  channels->urgent.fetch_or(kind, std::memory_order_acq_rel);
  channels->wake.Wake();
}

}  // namespace robot_edge::daemon
