#include "statemachine/alerts.hpp"

#include <algorithm>
#include <cmath>

#include "statemachine/imu_math.hpp"

namespace robot_edge::sm {
namespace {

Alert MakeAlert(AlertId id, std::uint32_t threshold, std::uint32_t source) {
  Alert a;
  a.id = id;
  a.severity = Severity::kCritical;
  a.threshold = threshold;
  a.source = source;
  return a;
}

std::uint32_t Rounded(double v) {
  return static_cast<std::uint32_t>(std::lround(std::max(v, 0.0)));
}
std::uint32_t Ms(std::int64_t us) {
  return static_cast<std::uint32_t>(std::max<std::int64_t>(us, 0) / 1000);
}

}  // namespace

AlertMonitor::AlertMonitor(const AlertOptions& o, const JointTable& joints)
    : trip_c_(o.overtemp_trip_c),
      clear_c_(o.overtemp_clear_c),
      fall_tilt_deg_(o.fall_tilt_deg),
      fall_clear_deg_(o.fall_clear_deg),
      fall_hold_us_(static_cast<std::int64_t>(o.fall_hold_ms) * 1000),
      reply_timeout_us_(static_cast<std::int64_t>(o.motor_reply_timeout_ms) * 1000),
      imu_timeout_us_(static_cast<std::int64_t>(o.imu_timeout_ms) * 1000),
      grace_us_(std::max({kMinStartupGraceUs, 2 * reply_timeout_us_, 2 * imu_timeout_us_})),
      limit_margin_rad_(static_cast<float>(o.joint_limit_margin_rad)),
      min_loop_rate_hz_(o.min_loop_rate_hz),
      battery_low_percent_(o.battery_low_percent),
      battery_clear_percent_(o.battery_clear_percent),
      battery_timeout_us_(static_cast<std::int64_t>(o.battery_timeout_ms) * 1000) {
  const auto joint_count = static_cast<std::uint32_t>(joints.size());
  for (std::uint32_t j = 0; j < joint_count; ++j) {
    overtemp_.push_back({false, MakeAlert(AlertId::kMotorOvertemp, Rounded(trip_c_), j)});
    timeout_.push_back({false, MakeAlert(AlertId::kMotorTimeout, o.motor_reply_timeout_ms, j)});
    fault_.push_back({false, MakeAlert(AlertId::kMotorFault, 0, j)});
    range_.push_back({false, MakeAlert(AlertId::kJointOutOfRange,
                                       Rounded(1000.0 * o.joint_limit_margin_rad), j)});
    past_limit_.push_back(
        {false, MakeAlert(AlertId::kJointPastLimit, Rounded(1000.0 * kPastLimitTripRad), j)});
    past_limit_.back().alert.severity = Severity::kWarning;
    min_rad_.push_back(joints[j].min_rad);
    max_rad_.push_back(joints[j].max_rad);
  }
  for (std::uint32_t b = 0; b < o.bus_count; ++b) {
    bus_off_.push_back({false, MakeAlert(AlertId::kCanBusOff, 1, b)});
  }
  last_bus_off_count_.resize(o.bus_count, 0);
  fall_.alert = MakeAlert(AlertId::kFallDetected, Rounded(fall_tilt_deg_), 0);
  imu_timeout_.alert = MakeAlert(AlertId::kImuTimeout, o.imu_timeout_ms, 0);
  loop_slow_.alert = MakeAlert(AlertId::kLoopSlow, Rounded(min_loop_rate_hz_), 0);
  control_stalled_.alert = MakeAlert(AlertId::kControlStalled, o.control_stall_ms, 0);
  battery_low_.alert = MakeAlert(AlertId::kBatteryLow, Rounded(battery_low_percent_), 0);
  battery_low_.alert.severity = Severity::kWarning;
  active_.reserve(5 * joint_count + o.bus_count + 4);
}

void AlertMonitor::Apply(Slot* slot, bool trip, bool clear, std::uint32_t value,
                         std::int64_t now_us, EventBuffer* events) {
  slot->alert.value = value;
  Event e;
  e.time_us = now_us;
  if (!slot->active && trip) {
    slot->active = true;
    slot->alert.first_set_us = now_us;
    e.kind = EventKind::kAlertRaised;
  } else if (slot->active && clear) {
    slot->active = false;
    e.kind = EventKind::kAlertCleared;
  } else {
    return;
  }
  e.alert = slot->alert;
  events->Push(e);
}

void AlertMonitor::Update(std::int64_t now_us, const Inputs& in, EventBuffer* events) {
  if (start_us_ < 0) start_us_ = now_us;
  UpdateJoints(now_us, in, events);
  UpdateImu(now_us, in, events);
  UpdateBuses(now_us, in, events);
  UpdateLoop(now_us, in, events);
  UpdateBattery(now_us, in, events);

  active_.clear();
  error_flags_ = 0;
  const auto collect = [&](const Slot& s) {
    if (!s.active) return;
    active_.push_back(s.alert);
    error_flags_ |= ErrorFlagOf(s.alert.id);
  };
  std::for_each(overtemp_.begin(), overtemp_.end(), collect);
  collect(fall_);
  std::for_each(timeout_.begin(), timeout_.end(), collect);
  std::for_each(bus_off_.begin(), bus_off_.end(), collect);
  std::for_each(fault_.begin(), fault_.end(), collect);
  std::for_each(range_.begin(), range_.end(), collect);
  std::for_each(past_limit_.begin(), past_limit_.end(), collect);
  collect(battery_low_);
  collect(imu_timeout_);
  collect(loop_slow_);
  collect(control_stalled_);
}

void AlertMonitor::UpdateJoints(std::int64_t now_us, const Inputs& in, EventBuffer* events) {
  all_replied_ = true;
  for (std::size_t j = 0; j < in.joints.size() && j < overtemp_.size(); ++j) {
    const JointMeasurement& m = in.joints[j];
    const bool replied = m.last_reply_us >= 0;
    all_replied_ &= replied;
    const std::int64_t age_us = now_us - (replied ? m.last_reply_us : start_us_);
    const bool silent =
        replied ? age_us > reply_timeout_us_ && m.unanswered >= kMinUnanswered : !InGrace(now_us);
    timeout_[j].alert.reading = static_cast<float>(m.malformed_replies);
    Apply(&timeout_[j], silent, !silent, Ms(age_us), now_us, events);
    if (!replied) continue;
    Apply(&overtemp_[j], m.temperature_c >= trip_c_, m.temperature_c <= clear_c_,
          Rounded(m.temperature_c), now_us, events);
    Apply(&fault_[j], m.error_code != 0, m.error_code == 0, m.error_code, now_us, events);
    const float beyond = std::max(min_rad_[j] - m.position_rad, m.position_rad - max_rad_[j]);
    const bool out = !(beyond <= limit_margin_rad_);  // NaN counts as out
    range_[j].alert.reading = m.position_rad;
    const std::uint32_t beyond_mrad = Rounded(1000.0 * (std::isfinite(beyond) ? beyond : 0.0f));
    Apply(&range_[j], out, !out, beyond_mrad, now_us, events);
    Slot& past = past_limit_[j];
    const bool past_now = beyond > kPastLimitTripRad;
    if (past_now) past.last_trip_us = now_us;
    past.alert.reading = m.position_rad;
    Apply(&past, past_now,
          beyond <= kPastLimitClearRad && now_us - past.last_trip_us >= kPastLimitHoldUs,
          beyond_mrad, now_us, events);
  }
}

void AlertMonitor::UpdateImu(std::int64_t now_us, const Inputs& in, EventBuffer* events) {
  const bool received = in.imu.last_update_us >= 0;
  imu_received_ |= received;
  const std::int64_t age_us = now_us - (received ? in.imu.last_update_us : start_us_);
  const bool stale = received ? age_us > imu_timeout_us_ : !InGrace(now_us);
  Apply(&imu_timeout_, stale, !stale, Ms(age_us), now_us, events);
  if (!received || stale) {
    fall_.pending_since_us = -1;
    return;
  }
  const float tilt = TiltDegrees(ProjectedGravity(in.imu.quat_wxyz));
  if (tilt > fall_tilt_deg_) {
    if (fall_.pending_since_us < 0) fall_.pending_since_us = now_us;
  } else {
    fall_.pending_since_us = -1;
  }
  const bool fell = fall_.pending_since_us >= 0 && now_us - fall_.pending_since_us >= fall_hold_us_;
  Apply(&fall_, fell, tilt < fall_clear_deg_, Rounded(tilt), now_us, events);
}

void AlertMonitor::UpdateBuses(std::int64_t now_us, const Inputs& in, EventBuffer* events) {
  for (std::size_t b = 0; b < in.buses.size() && b < bus_off_.size(); ++b) {
    const BusStatus& s = in.buses[b];
    Slot& slot = bus_off_[b];
    const bool new_bus_off = s.bus_off_count != last_bus_off_count_[b];
    last_bus_off_count_[b] = s.bus_off_count;
    if (s.bus_off || new_bus_off) slot.last_trip_us = now_us;
    const bool over =
        !s.bus_off && slot.last_trip_us >= 0 && now_us - slot.last_trip_us >= kBusOffHoldUs;
    Apply(&slot, s.bus_off || new_bus_off, over, static_cast<std::uint32_t>(s.bus_off_count),
          now_us, events);
  }
}

void AlertMonitor::UpdateLoop(std::int64_t now_us, const Inputs& in, EventBuffer* events) {
  Slot& stalled = control_stalled_;
  const bool stall = in.control_stall_ms > 0;
  if (stall) stalled.last_trip_us = now_us;
  Apply(&stalled, stall, stalled.last_trip_us >= 0 && now_us - stalled.last_trip_us >= kStallHoldUs,
        stall ? in.control_stall_ms : stalled.alert.value, now_us, events);
  if (min_loop_rate_hz_ <= 0 || in.loop_rate_hz <= 0) return;  // off, or not measured yet
  Apply(&loop_slow_, in.loop_rate_hz < min_loop_rate_hz_, in.loop_rate_hz >= min_loop_rate_hz_,
        Rounded(in.loop_rate_hz), now_us, events);
}

void AlertMonitor::UpdateBattery(std::int64_t now_us, const Inputs& in, EventBuffer* events) {
  const BatteryMeasurement& b = in.battery;
  const bool fresh = b.last_update_us >= 0 && now_us - b.last_update_us <= battery_timeout_us_;
  if (!fresh || !std::isfinite(b.percent)) return;  // unknown: the alert keeps its state
  Apply(&battery_low_, b.percent <= battery_low_percent_, b.percent >= battery_clear_percent_,
        Rounded(b.percent), now_us, events);
}

const Alert* AlertMonitor::FirstCritical() const {
  for (const Alert& a : active_) {
    if (a.severity == Severity::kCritical) return &a;
  }
  return nullptr;
}

}  // namespace robot_edge::sm
