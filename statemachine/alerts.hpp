// Alert conditions, evaluated from measurements and the time passed in (pure). Every alert but
// BATTERY_LOW is critical: while one is active the robot is held in DAMP.
//
//   MOTOR_OVERTEMP  per joint: trips at temperature >= safety.overtemp_trip_c, clears at or
//                   below safety.overtemp_clear_c (hysteresis; seed 001: "clears at 70°C").
//   FW_LINK_TIMEOUT per joint: no reply for control.motor_reply_timeout_ms while at least
//                   kMinUnanswered commands went unanswered (a daemon that was itself held up
//                   and sent nothing does not blame its motors); clears on a reply. A motor that
//                   never replied is reported once the start-up grace is over.
//   MOTOR_FAULT     per joint: the motor reports an error code; clears when it reports 0.
//   JOINT_OUT_OF_RANGE per joint: the measured position is beyond the joint's limits by more
//                   than safety.joint_limit_margin_rad (a wrong offset, a reversed motor, a
//                   slipped encoder; or a joint driven past its limit); value = mrad beyond the
//                   nearer limit, threshold = the margin in mrad. Clears back within the margin.
//                   Like every alert it holds DAMP: at start-up it keeps the robot from STAND.
//   JOINT_PAST_LIMIT per joint, a warning (no DAMP): the measured position is past the joint's
//                   limits by more than kPastLimitTripRad (encoder noise at a stop stays under
//                   it) — within the margin, or beyond it beside JOINT_OUT_OF_RANGE; value = mrad
//                   past the nearer limit. Clears back within kPastLimitClearRad of the limits
//                   (a joint resting on its stop reads a few mrad past it, and would hold the
//                   warning for good), and kPastLimitHoldUs after it was last past (a gait that
//                   touches a limit every step raises it once, not twice a step).
//   FALL_DETECTED   tilt from upright above safety.fall_tilt_deg for safety.fall_hold_ms; clears
//                   below safety.fall_clear_deg. Judged only while the IMU is fresh.
//   IMU_TIMEOUT     no IMU frame for imu.timeout_ms (after the grace when never received).
//   CAN_BUS_OFF     per bus: a bus-off was seen; stays active while the bus is off and at least
//                   kBusOffHoldUs after the last bus-off, so that telemetry shows it.
//   BATTERY_LOW     a warning (never DAMP: a walking robot must not collapse for it): the
//                   battery's charge at or below battery.low_percent; clears at or above
//                   battery.clear_percent (hysteresis). Judged only on a reading younger than
//                   battery.timeout_ms with a known charge; value / threshold in %.
//   CONTROL_LOOP_SLOW the loop ran below safety.min_loop_rate_fraction × control.rate_hz over
//                   the last second (no real-time priority on a loaded CPU: commands late,
//                   trajectories in slow motion); clears when a second is back above it.
//   CONTROL_STALLED the control thread did not tick for safety.control_stall_ms and the
//                   supervisor sent DAMP (Inputs::control_stall_ms, on the tick it resumes);
//                   value = the stall in ms. Clears kStallHoldUs later; the robot stays in DAMP.
#pragma once

#include <span>
#include <vector>

#include "statemachine/events.hpp"
#include "statemachine/io.hpp"
#include "statemachine/joint_params.hpp"
#include "statemachine/options.hpp"

namespace robot_edge::sm {

class AlertMonitor {
 public:
  static constexpr std::int64_t kBusOffHoldUs = 1'000'000;
  static constexpr std::int64_t kStallHoldUs = 1'000'000;
  static constexpr std::int64_t kMinStartupGraceUs = 500'000;
  static constexpr std::uint32_t kMinUnanswered = 3;
  static constexpr float kPastLimitTripRad = 0.010f;
  static constexpr float kPastLimitClearRad = 0.005f;
  static constexpr std::int64_t kPastLimitHoldUs = 1'000'000;  // at most one raise a second

  // One motor per entry of `joints`.
  AlertMonitor(const AlertOptions& options, const JointTable& joints);

  // Re-evaluates every alert at `now_us`; pushes kAlertRaised / kAlertCleared events.
  void Update(std::int64_t now_us, const Inputs& in, EventBuffer* events);

  std::span<const Alert> active() const { return active_; }
  std::uint32_t error_flags() const { return error_flags_; }
  // The first active critical alert (the one that blocks leaving DAMP), or nullptr.
  const Alert* FirstCritical() const;
  // Every motor has replied at least once.
  bool all_motors_replied() const { return all_replied_; }
  // The IMU has reported at least once (before, fall detection is blind).
  bool imu_received() const { return imu_received_; }

 private:
  struct Slot {
    bool active = false;
    Alert alert;
    std::int64_t pending_since_us = -1;  // fall: when the tilt first exceeded the threshold
    std::int64_t last_trip_us = -1;      // bus-off: last bus-off seen; past limit: last seen
  };

  // Raises / clears `slot` and keeps its value current.
  void Apply(Slot* slot, bool trip, bool clear, std::uint32_t value, std::int64_t now_us,
             EventBuffer* events);
  void UpdateJoints(std::int64_t now_us, const Inputs& in, EventBuffer* events);
  void UpdateImu(std::int64_t now_us, const Inputs& in, EventBuffer* events);
  void UpdateBuses(std::int64_t now_us, const Inputs& in, EventBuffer* events);
  void UpdateLoop(std::int64_t now_us, const Inputs& in, EventBuffer* events);
  void UpdateBattery(std::int64_t now_us, const Inputs& in, EventBuffer* events);
  bool InGrace(std::int64_t now_us) const { return now_us - start_us_ < grace_us_; }

  double trip_c_, clear_c_, fall_tilt_deg_, fall_clear_deg_;
  std::int64_t fall_hold_us_, reply_timeout_us_, imu_timeout_us_, grace_us_;
  std::int64_t start_us_ = -1;  // first Update()
  std::vector<Slot> overtemp_, timeout_, fault_, range_, past_limit_, bus_off_;
  std::vector<float> min_rad_, max_rad_;  // per joint
  float limit_margin_rad_;
  std::vector<std::uint64_t> last_bus_off_count_;
  double min_loop_rate_hz_;  // 0 = off
  Slot fall_, imu_timeout_, loop_slow_, battery_low_, control_stalled_;
  double battery_low_percent_, battery_clear_percent_;
  std::int64_t battery_timeout_us_;
  std::vector<Alert> active_;  // rebuilt by Update(), capacity reserved
  std::uint32_t error_flags_ = 0;
  bool all_replied_ = false;
  bool imu_received_ = false;
};

}  // namespace robot_edge::sm
