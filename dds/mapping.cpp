#include "dds/mapping.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <type_traits>

#include "client/commands.hpp"

namespace robot_edge::dds {

namespace {

// `values` into `out` (exactly N floats), zeros past what `values` has.
template <std::size_t N>
void CopyOrZero(const google::protobuf::RepeatedField<float>& values, float (&out)[N]) {
  for (std::size_t i = 0; i < N; ++i) {
    out[i] = static_cast<int>(i) < values.size() ? values.Get(static_cast<int>(i)) : 0.0f;
  }
}

template <typename Repeated>
auto At(const Repeated& values, std::size_t i) {
  using Value = std::remove_cvref_t<decltype(values.Get(0))>;
  return static_cast<int>(i) < values.size() ? values.Get(static_cast<int>(i)) : Value{};
}

}  // namespace

MappedCommand ToJointCommand(const pnd_adam_msg_dds__LowCmd_& low_cmd, std::size_t joints,
                             std::int64_t robot_now_us, std::uint32_t key,
                             const CommandSettings& settings) {
  MappedCommand out;
  const std::size_t motors = low_cmd.motor_cmd._length;
  if (motors != joints) {
    out.refusal = Refusal::kMotorCount;
    out.reason = "motor_cmd has " + std::to_string(motors) + " motors; this robot has " +
                 std::to_string(joints);
    return out;
  }
  std::vector<float> q(motors), dq(motors), tau(motors), kp(motors), kd(motors);
  for (std::size_t i = 0; i < motors; ++i) {
    const pnd_adam_msg_dds__MotorCmd_& m = low_cmd.motor_cmd._buffer[i];
    q[i] = m.q;
    dq[i] = m.dq;
    tau[i] = m.tau;
    kp[i] = m.kp;
    kd[i] = m.kd;
    out.uses_ki = out.uses_ki || m.ki != 0.0f;
  }
  client::JointCommandFields fields;
  fields.position = q;
  fields.velocity = dq;
  fields.torque = tau;
  fields.kp = kp;
  fields.kd = kd;
  fields.end_time_us = robot_now_us + settings.lifetime_us;
  fields.user_command_key = key;
  fields.velocity_safety_limit = settings.velocity_safety_limit;
  try {
    out.command = client::MakeJointCommand(fields);
  } catch (const std::invalid_argument& e) {
    out.refusal = Refusal::kInvalid;
    out.reason = e.what();
  }
  return out;
}

LowStateSample::LowStateSample(std::size_t motors) : motors_(motors) {
  msg_.motor_state._buffer = motors_.data();
  msg_.motor_state._length = static_cast<std::uint32_t>(motors_.size());
  msg_.motor_state._maximum = static_cast<std::uint32_t>(motors_.size());
  msg_.motor_state._release = false;
  msg_.battery_data.status = battery_status_.data();
}

namespace {

// BatteryData_.status: the BatteryStatus's name, lower case.
const char* StatusText(edge::BatteryStatus status) {
  switch (status) {
    case edge::BATTERY_STATUS_DISCHARGING: return "discharging";
    case edge::BATTERY_STATUS_CHARGING: return "charging";
    case edge::BATTERY_STATUS_FULL: return "full";
    case edge::BATTERY_STATUS_FAULT: return "fault";
    default: return "unknown";
  }
}

// NaN (unknown to the source) as 0: an Adam client expects numbers.
float Known(float v) { return std::isfinite(v) ? v : 0.0f; }

}  // namespace

void LowStateMapper::MapBattery(const edge::JointState& state, LowStateSample* out) {
  pnd_adam_msg_dds__BatteryData_& b = out->msg().battery_data;
  if (!state.has_battery()) {
    b.timestamp_ms = 0;
    b.voltage = b.current = b.power = b.wh_accumulated = 0;
    out->set_battery_status("unknown");
    return;
  }
  const edge::BatteryState& s = state.battery();
  b.timestamp_ms = s.reading_time_us() / 1000;  // robot time
  b.voltage = Known(s.voltage_v());
  b.current = Known(s.current_a());
  b.power = Known(s.power_w());
  b.wh_accumulated = Known(s.wh_accumulated());
  out->set_battery_status(StatusText(s.status()));
}

void LowStateMapper::Map(const edge::JointState& state, LowStateSample* out) {
  pnd_adam_msg_dds__LowState_& m = out->msg();
  m.mode_pr = 0;
  m.tick = static_cast<std::uint32_t>(state.tick());
  CopyOrZero(state.imu_quat(), m.imu_state.quaternion);
  CopyOrZero(state.imu_gyro(), m.imu_state.gyroscope);
  CopyOrZero(state.imu_accel(), m.imu_state.accelerometer);
  CopyOrZero(state.imu_ypr(), m.imu_state.ypr);
  m.imu_state.temperature = 0;

  const std::size_t motors = out->motors();
  const bool has_previous = previous_dq_.size() == motors && previous_time_us_ > 0 &&
                            state.robot_time_us() > previous_time_us_;
  const double dt_s =
      has_previous ? static_cast<double>(state.robot_time_us() - previous_time_us_) * 1e-6 : 0.0;
  previous_dq_.resize(motors);
  for (std::size_t i = 0; i < motors; ++i) {
    pnd_adam_msg_dds__MotorState_& s = m.motor_state._buffer[i];
    s.mode = static_cast<std::uint8_t>(At(state.motor_status(), i));
    s.q = At(state.q(), i);
    s.dq = At(state.dq(), i);
    s.ddq = has_previous ? static_cast<float>((s.dq - previous_dq_[i]) / dt_s) : 0.0f;
    s.tau_est = At(state.tau(), i);
    s.state = At(state.motor_fault(), i);
    s.reserve = 0;
    previous_dq_[i] = s.dq;
  }
  previous_time_us_ = state.robot_time_us();

  std::fill(std::begin(m.wireless_remote), std::end(m.wireless_remote), 0.0f);
  MapBattery(state, out);
  m.reserve = 0;
}

bool Throttle::Allow(std::int64_t now_us, std::uint64_t* held_back) {
  if (logged_ && now_us - last_us_ < interval_us_) {
    ++held_back_;
    return false;
  }
  *held_back = held_back_;
  held_back_ = 0;
  logged_ = true;
  last_us_ = now_us;
  return true;
}

}  // namespace robot_edge::dds
