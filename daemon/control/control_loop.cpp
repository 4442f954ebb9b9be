#include "daemon/control/control_loop.hpp"

#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "config/library_options.hpp"
#include "daemon/channels/injected_throw.hpp"
#include "daemon/control/fatal_signals.hpp"

namespace robot_edge::daemon {

ControlLoop::ControlLoop(const config::Config& config, can::Transport& transport,
                         sm::Policy* policy, ControlChannels* channels)
    : period_us_(config.period_us()),
      transport_(transport),
      joint_table_(config::BuildJointTable(config)),
      scheduler_(config::WiringOf(config), transport),
      state_machine_(config::MachineOptionsOf(config), joint_table_, policy),
      channels_(channels),
      timing_(config.period_us()),
      battery_source_(config.battery.source),
      joints_(config.joints.size()),
      bus_status_(transport.bus_count()),
      commands_(config.joints.size()) {
  inputs_.joints = joints_;
  inputs_.buses = bus_status_;
}

void ControlLoop::Run() {
  RegisterControlThread();
  std::int64_t deadline = SteadyMicros();
  scheduler_.EnterMotorMode(deadline);
  while (!stop_.load(std::memory_order_relaxed)) {
    deadline += period_us_;
    // Woken before the deadline: an emergency stop is applied at once, off the ticks' schedule;
    // the tick itself keeps its deadline.
    while (channels_->wake.SleepUntil(deadline) && !stop_.load(std::memory_order_relaxed)) {
      UrgentTick(SteadyMicros());
    }
    const std::int64_t start = SteadyMicros();
    timing_.OnTickStart(start, deadline);
    Tick(start);
    // The next deadline, minus one period: the loop adds it back at the top.
    deadline = timing_.OnTickEnd(start, SteadyMicros(), deadline) - period_us_;
  }
  Shutdown(SteadyMicros());
}

void ControlLoop::Tick(std::int64_t now_us) {
  if (!BeginControlTick()) return;  // a fatal signal's handler sends DAMP: nothing may follow it
  ++ticks_;
  scheduler_.Receive(now_us);
  // A test only, mid-tick: an exception escaping a tick (daemon/channels/injected_throw.hpp).
  ThrowIfCued(InjectedThread::kControl);
  ReadInputs();
  Advance(now_us, /*on_schedule=*/true);
  last_tick_us_.store(now_us, std::memory_order_relaxed);
  EndControlTick();
}

void ControlLoop::UrgentTick(std::int64_t now_us) {
  if (!BeginControlTick()) return;
  Advance(now_us, /*on_schedule=*/false);
  EndControlTick();
}

void ControlLoop::Advance(std::int64_t now_us, bool on_schedule) {
  ApplyCommands(now_us);
  TakeStall(now_us);
  const sm::Outputs& out = state_machine_.Step(now_us, inputs_);
  inputs_.control_stall_ms = 0;  // one tick's news
  ForwardEvents(out.events);
  if (on_schedule) Maintain(now_us, out.mode);
  SendTargets(out.targets, now_us, on_schedule);
  Publish(now_us, out);
  if (on_schedule) ShareState(now_us, out);
  if (events_queued_ && channels_->wake_fd >= 0) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(channels_->wake_fd, &one, sizeof(one));
  }
  events_queued_ = false;
}

namespace {

// Who sent a latching DAMP that came through the mailbox (MODE_BLOCKED names them).
const sm::SenderLabel kClientDampLabel = sm::MakeSenderLabel("an observer or another client");

// A command from the daemon itself (no client, no sequence).
sm::Command DaemonCommand(sm::CommandKind kind, std::int64_t now_us) {
  sm::Command c;
  c.kind = kind;
  c.mode = sm::ModeRequest::kDamp;
  c.source = sm::CommandSource::kDaemon;
  c.received_us = now_us;
  c.sent_us = now_us;
  return c;
}

}  // namespace

void ControlLoop::Shutdown(std::int64_t now_us) {
  if (!BeginControlTick()) return;
  const sm::Command damp = DaemonCommand(sm::CommandKind::kMode, now_us);
  scheduler_.Receive(now_us);
  ReadInputs();
  state_machine_.Submit(now_us, damp);
  const sm::Outputs& out = state_machine_.Step(now_us, inputs_);
  ForwardEvents(out.events);
  for (std::size_t j = 0; j < commands_.size(); ++j) {
    const sm::JointTarget& t = out.targets[j];
    commands_[j] = {t.position_rad, t.velocity_rad_s, t.kp, t.kd, t.torque_nm};
  }
  scheduler_.SendDampThenExit(commands_);
  Publish(now_us, out);
  EndControlTick();
}

void ControlLoop::TakeStall(std::int64_t now_us) {
  inputs_.control_stall_ms = TakeControlStall();
  if (inputs_.control_stall_ms > 0) {  // the supervisor sent DAMP: hold it (CONTROL_STALLED too)
    state_machine_.Submit(now_us, DaemonCommand(sm::CommandKind::kMode, now_us));
  }
}

void ControlLoop::ReadInputs() {
  const auto motors = scheduler_.motors();
  for (std::size_t j = 0; j < joints_.size(); ++j) {
    const can::MotorFeedback& m = motors[j];
    joints_[j] = {m.position_rad,  m.velocity_rad_s, m.torque_nm, m.temperature_c,    m.error_code,
                  m.last_reply_us, m.unanswered,     m.raw_fault, m.malformed_replies};
  }
  const can::ImuFeedback& imu = scheduler_.imu();
  inputs_.imu.quat_wxyz = imu.quat_wxyz;
  inputs_.imu.gyro_rad_s = imu.gyro_rad_s;
  inputs_.imu.accel_m_s2 = imu.accel_m_s2;
  inputs_.imu.has_accel = imu.last_accel_us >= 0;
  inputs_.loop_rate_hz = timing_.last_window().rate_hz;
  // Fresh only while both frames are: the policy reads the gyro, fall detection the quaternion.
  inputs_.imu.last_update_us = (imu.last_quat_us < 0 || imu.last_gyro_us < 0)
                                   ? -1
                                   : std::min(imu.last_quat_us, imu.last_gyro_us);
  for (std::size_t b = 0; b < bus_status_.size(); ++b) {
    const can::BusCounters& c = transport_.counters(b);
    bus_status_[b] = {c.bus_off.load(std::memory_order_relaxed),
                      c.bus_off_count.load(std::memory_order_relaxed)};
  }
  ReadBattery();
}

void ControlLoop::ApplyCommands(std::int64_t now_us) {
  while (CommandSlot* slot = channels_->commands.Receive()) {
    const sm::SubmitResult result = state_machine_.Submit(now_us, slot->command);
    if (slot->want_result) {
      ControlEvent e;
      e.kind = ControlEvent::Kind::kCommandResult;
      e.client_id = slot->client_id;
      e.sequence = slot->command.sequence;
      e.result = result;
      PushEvent(e);
    }
    channels_->commands.Release(slot);
  }
  const std::uint8_t urgent = channels_->urgent.exchange(0, std::memory_order_acq_rel);
  if (urgent & kUrgentStopWalking) {
    state_machine_.Submit(now_us, DaemonCommand(sm::CommandKind::kStopWalking, now_us));
  }
  if (urgent & kUrgentDamp) {  // a client's DAMP whose sequence the mailbox does not keep
    state_machine_.Submit(now_us, DaemonCommand(sm::CommandKind::kMode, now_us));
  }
  if (urgent & kUrgentLatchingDamp) {
    sm::Command damp = DaemonCommand(sm::CommandKind::kMode, now_us);
    damp.latches = true;
    damp.sender = kClientDampLabel;
    state_machine_.Submit(now_us, damp);
  }
}

void ControlLoop::ForwardEvents(std::span<const sm::Event> events) {
  for (const sm::Event& event : events) {
    ControlEvent e;
    e.kind = ControlEvent::Kind::kStateMachine;
    e.event = event;
    PushEvent(e);
  }
}

void ControlLoop::PushEvent(const ControlEvent& event) {
  if (channels_->events.Push(event)) {
    events_queued_ = true;
  } else {
    channels_->events_lost.fetch_add(1, std::memory_order_relaxed);
  }
}

void ControlLoop::SendTargets(std::span<const sm::JointTarget> targets, std::int64_t now_us,
                              bool on_schedule) {
  // The supervisor sent DAMP while this tick was under way (held up mid-tick): its targets are
  // stale; the next tick takes the stall and sends DAMP.
  if (StallDampSent()) return;
  for (std::size_t j = 0; j < commands_.size(); ++j) {
    const sm::JointTarget& t = targets[j];
    commands_[j] = {t.position_rad, t.velocity_rad_s, t.kp, t.kd, t.torque_nm};
  }
  if (on_schedule) {
    scheduler_.Send(commands_, now_us);
  } else {
    scheduler_.SendNow(commands_);
  }
}

void ControlLoop::Maintain(std::int64_t now_us, sm::Mode mode) {
  const std::uint32_t mail = channels_->motor_request.exchange(0, std::memory_order_acq_rel);
  const std::size_t joint = mail & 0xFFFF;
  if (mail != 0 && joint < joints_.size() && mode == sm::Mode::kDamp) {
    const auto request = static_cast<can::MotorRequest>((mail >> 16) - 1);
    scheduler_.RequestSpecial(joint, request);
    if (request == can::MotorRequest::kSetZero) {
      state_machine_.Submit(now_us, DaemonCommand(sm::CommandKind::kZeroSet, now_us));
    }
  }
  const std::uint64_t scan = channels_->scan_request.load(std::memory_order_acquire);
  if (scan != scan_seen_) {
    scan_seen_ = scan;
    if (mode == sm::Mode::kDamp) {
      scheduler_.StartScan(static_cast<std::uint32_t>(scan & 0xFFFF));
      scan_pending_ = true;
      scan_settle_until_us_ = -1;
    } else {
      PublishScan(/*refused=*/true);
    }
    return;
  }
  if (!scan_pending_ || scheduler_.scanning()) return;
  if (scan_settle_until_us_ < 0) {  // the last probes went out with the previous tick
    scan_settle_until_us_ = now_us + kScanSettleUs;
    return;
  }
  if (now_us < scan_settle_until_us_) return;
  PublishScan(/*refused=*/false);
  scan_pending_ = false;
}

void ControlLoop::PublishScan(bool refused) {
  ScanReport& r = channels_->scans.back();
  r.sequence = static_cast<std::uint32_t>(scan_seen_ >> 16);
  r.refused = refused;
  r.stray_count = 0;
  for (std::size_t b = 0; b < scheduler_.bus_count() && !refused; ++b) {
    for (const can::StraySender& s : scheduler_.strays(b)) {
      if (r.stray_count == r.strays.size()) break;
      r.strays[r.stray_count++] = {static_cast<std::uint32_t>(b), s};
    }
  }
  channels_->scans.Publish();
}

namespace {

sm::BatteryMeasurement FromBms(const can::BatteryFeedback& f) {
  sm::BatteryMeasurement b;
  b.voltage_v = f.reading.voltage_v;
  b.current_a = f.reading.current_a;
  b.percent = f.reading.percent;
  b.temperature_c = f.reading.temperature_c;
  b.status = static_cast<sm::BatteryStatus>(f.reading.status);  // the same order (bms_codec)
  b.last_update_us = f.last_update_us;
  return b;
}

}  // namespace

void ControlLoop::ReadBattery() {
  switch (battery_source_) {
    case config::BatteryConfig::Source::kNone: return;
    case config::BatteryConfig::Source::kCan:
      inputs_.battery = FromBms(scheduler_.battery());
      break;
    case config::BatteryConfig::Source::kSysfs:
      inputs_.battery = channels_->battery.Latest();
      break;
  }
  battery_energy_.Add(inputs_.battery);
}

void ControlLoop::ShareState(std::int64_t now_us, const sm::Outputs& out) {
  if (channels_->record_states.load(std::memory_order_relaxed)) {
    QueueState(&channels_->states, &channels_->states_lost, now_us, out);
  }
  if (channels_->stream_states_on.load(std::memory_order_relaxed) &&
      QueueState(&channels_->stream_states, &channels_->stream_states_lost, now_us, out)) {
    events_queued_ = true;  // wakes the API thread
  }
}

bool ControlLoop::QueueState(SpscQueue<StateSample>* queue, std::atomic<std::uint64_t>* lost,
                             std::int64_t now_us, const sm::Outputs& out) {
  StateSample* s = queue->Reserve();
  if (s == nullptr) {
    lost->fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  s->tick_us = now_us;
  s->tick = ticks_;
  s->mode = out.mode;
  s->error_flags = out.error_flags;
  s->last_command_sequence = out.last_command_sequence;
  s->user_command_key = out.user_command_key;
  s->user_command_key_applied_us = out.user_command_key_applied_us;
  std::copy(joints_.begin(), joints_.end(), s->joints.begin());
  std::copy(out.targets.begin(), out.targets.end(), s->commands.begin());
  s->imu = inputs_.imu;
  s->battery = inputs_.battery;
  s->battery_wh = battery_energy_.wh();
  s->period_us = timing_.last_period_us();
  s->wake_latency_us = timing_.last_latency_us();
  s->work_us = timing_.last_work_us();
  queue->Commit();
  return true;
}

void ControlLoop::Publish(std::int64_t now_us, const sm::Outputs& out) {
  ControlSnapshot& s = channels_->snapshots.back();
  s.tick_us = now_us;
  s.mode = out.mode;
  s.jogging_joint = state_machine_.jogging_joint();
  s.velocity = out.velocity;
  s.error_flags = out.error_flags;
  s.last_command_sequence = out.last_command_sequence;
  s.user_command_key = out.user_command_key;
  s.user_command_key_applied_us = out.user_command_key_applied_us;
  std::copy(joints_.begin(), joints_.end(), s.joints.begin());
  s.imu = inputs_.imu;
  s.battery = inputs_.battery;
  s.battery_wh = battery_energy_.wh();
  s.alert_count = std::min(out.alerts.size(), s.alerts.size());
  std::copy_n(out.alerts.begin(), s.alert_count, s.alerts.begin());
  s.counters = state_machine_.counters();
  s.stop_latch = state_machine_.stop_latch();
  s.admission = state_machine_.admission_view();
  s.events_dropped = state_machine_.events_dropped();
  s.ticks = timing_.ticks();
  s.overruns = timing_.overruns();
  s.loop = timing_.last_window();
  channels_->snapshots.Publish();
}

}  // namespace robot_edge::daemon
