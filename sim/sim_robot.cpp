#include "sim/sim_robot.hpp"

#include "can/damiao_codec.hpp"

#include <algorithm>
#include <cstdio>

#include "can/socketcan/socketcan_transport.hpp"

namespace robot_edge::sim {

std::uint64_t StepPhysics(Plant& plant, std::span<SimMotor> motors, std::span<TorqueLaw> laws,
                          std::int64_t* physics_us, std::int64_t now_us,
                          std::span<JointRecord> records) {
  const std::int64_t step = plant.step_us();
  const double dt = static_cast<double>(step) * 1e-6;
  std::uint64_t steps = 0;
  while (*physics_us + step <= now_us) {
    for (std::size_t i = 0; i < motors.size(); ++i) laws[i] = motors[i].LawAt(*physics_us);
    plant.Step(laws);
    for (std::size_t i = 0; i < motors.size(); ++i) {
      motors[i].OnStep(plant.shaft(i), *physics_us, dt);
    }
    for (std::size_t i = 0; i < records.size(); ++i) records[i].Observe(plant.shaft(i));
    *physics_us += step;
    ++steps;
  }
  return steps;
}

SimRobot::SimRobot(const config::Config& config, std::int64_t start_us)
    : SimRobot(config, std::make_unique<KinematicPlant>(config), start_us) {}

SimRobot::SimRobot(const config::Config& config, std::unique_ptr<Plant> plant,
                   std::int64_t start_us)
    : plant_(std::move(plant)),
      kinematic_(dynamic_cast<KinematicPlant*>(plant_.get())),
      physics_us_(start_us),
      by_bus_(config.buses.size()),
      joint_by_id_(config.buses.size()),
      families_on_bus_(config.buses.size(), 0),
      imu_bus_(config.imu.bus),
      imu_(config.imu.quat_id, config.imu.gyro_id, config.imu.accel_id),
      battery_bus_(config.battery.source == config::BatteryConfig::Source::kCan
                       ? config.battery.bus
                       : config::kUnresolved),
      battery_(config.battery.can_id),
      rate_base_us_(start_us) {
  for (std::size_t b = 0; b < config.buses.size(); ++b) {
    for (auto& table : joint_by_id_[b]) table.fill(0);
  }
  motors_.reserve(config.joints.size());
  for (std::size_t j = 0; j < config.joints.size(); ++j) {
    const config::JointConfig& joint = config.joints[j];
    joint_names_.push_back(joint.name);
    motors_.emplace_back(MotorParamsFor(config, j));
    records_.push_back({.min_rad = joint.min_rad, .max_rad = joint.max_rad});
    by_bus_[joint.bus].push_back(j);
    const auto family = static_cast<std::size_t>(motors_.back().params().protocol.family);
    joint_by_id_[joint.bus][family][joint.can_id & CAN_SFF_MASK] =
        static_cast<std::uint16_t>(j + 1);
    families_on_bus_[joint.bus] |= static_cast<std::uint8_t>(1u << family);
    const bool missing = std::find(config.sim.missing.begin(), config.sim.missing.end(),
                                   joint.name) != config.sim.missing.end();
    if (missing) motors_.back().SetSilenced(true);
  }
  for (const config::SimExtraMotor& extra : config.sim.extra_motors) {
    extras_.emplace_back(
        MotorParamsFor(config, extra.bus, config.motors[extra.motor], extra.can_id));
    const auto family = static_cast<std::size_t>(extras_.back().params().protocol.family);
    joint_by_id_[extra.bus][family][extra.can_id & CAN_SFF_MASK] =
        static_cast<std::uint16_t>(motors_.size() + extras_.size());
    families_on_bus_[extra.bus] |= static_cast<std::uint8_t>(1u << family);
  }
  laws_.resize(motors_.size());
  AdvanceAll(start_us);  // the motors see the plant's initial state
}

std::vector<can_filter> SimRobot::ReceiveFilters() const {
  std::vector<can_filter> filters;
  std::vector<const SimMotor*> all;
  for (const SimMotor& motor : motors_) all.push_back(&motor);
  for (const SimMotor& motor : extras_) all.push_back(&motor);
  for (const SimMotor* motor : all) {
    const SimMotorParams& p = motor->params();
    const can_filter f =
        p.protocol.family == config::MotorFamily::kRobstride
            ? can_filter{(p.can_id & 0xFF) | CAN_EFF_FLAG, 0xFF | CAN_EFF_FLAG | CAN_RTR_FLAG}
            : can::ExactStandardId(p.can_id);
    const bool known = std::any_of(filters.begin(), filters.end(), [&](const can_filter& g) {
      return g.can_id == f.can_id && g.can_mask == f.can_mask;
    });
    if (!known) filters.push_back(f);
  }
  // Damiao's register requests all go to one id, the motor named in the data.
  const bool damiao = std::any_of(all.begin(), all.end(), [](const SimMotor* m) {
    return m->params().protocol.family == config::MotorFamily::kDamiao;
  });
  if (damiao) filters.push_back(can::ExactStandardId(can::damiao::kRegisterCanId));
  return filters;
}

void SimRobot::OnFrames(std::size_t bus, std::span<const can_frame> frames, std::int64_t now_us,
                        std::vector<can_frame>* replies) {
  AdvanceAll(now_us);
  for (const can_frame& frame : frames) {
    ++totals_.frames;
    const std::uint16_t slot = MotorFor(bus, frame);
    if (slot == 0) {
      ++totals_.ignored;
      continue;
    }
    SimMotor& motor =
        slot <= motors_.size() ? motors_[slot - 1] : extras_[slot - 1 - motors_.size()];
    const auto reply = motor.OnFrame(frame, now_us);
    if (!reply) {
      ++totals_.ignored;
      continue;
    }
    can_frame out{};
    out.can_id = reply->can_id;
    out.len = reply->len;
    std::copy(reply->data.begin(), reply->data.begin() + reply->len, out.data);
    replies->push_back(out);
    ++totals_.replies;
  }
}

std::uint16_t SimRobot::MotorFor(std::size_t bus, const can_frame& frame) const {
  for (std::size_t f = 0; f < joint_by_id_[bus].size(); ++f) {
    if ((families_on_bus_[bus] & (1u << f)) == 0) continue;
    std::uint32_t id = 0;
    if (!can::Addressee(static_cast<config::MotorFamily>(f), frame, &id) || id > CAN_SFF_MASK) {
      continue;
    }
    if (const std::uint16_t slot = joint_by_id_[bus][f][id]; slot != 0) return slot;
  }
  return 0;
}

void SimRobot::AdvanceAll(std::int64_t now_us) {
  if (now_us - physics_us_ > kMaxLagUs) {
    const std::int64_t skip = now_us - kMaxLagUs - physics_us_;
    totals_.lagged_us += skip;
    physics_us_ += skip;
  }
  // A frame between steps sees the state at the last step's end, at most one step earlier.
  const std::int64_t before_us = physics_us_;
  totals_.steps += StepPhysics(*plant_, motors_, laws_, &physics_us_, now_us, records_);
  // The power at the last step stands for the whole interval (a frame or a timer's: ≤ 5 ms).
  battery_.Drain(MechanicalPowerW(), static_cast<double>(physics_us_ - before_us) * 1e-6);
}

double SimRobot::MechanicalPowerW() const {
  double watts = 0;
  for (std::size_t i = 0; i < plant_->motor_count(); ++i) {
    const ShaftState s = plant_->shaft(i);
    watts += std::max(0.0, s.torque_nm * s.velocity_rad_s);
  }
  return watts;
}

std::string SimRobot::ExecuteBattery(const ControlCommand& c) {
  if (!has_bms()) return "error: no simulated BMS (battery.source is not can)";
  if (c.verb == ControlVerb::kBattery) {
    battery_.SetEnabled(c.on);
  } else {
    battery_.SetPercent(c.percent);
  }
  return "ok";
}

std::string SimRobot::Execute(const ControlCommand& c, std::int64_t now_us) {
  const bool joint_verb = c.verb == ControlVerb::kTemp || c.verb == ControlVerb::kTempRelease ||
                          c.verb == ControlVerb::kSilence || c.verb == ControlVerb::kFault ||
                          c.verb == ControlVerb::kMount || c.verb == ControlVerb::kGet;
  if (joint_verb && c.joint >= motors_.size()) return "error: no joint " + std::to_string(c.joint);
  AdvanceAll(now_us);
  SimMotor* m = joint_verb ? &motors_[c.joint] : nullptr;
  switch (c.verb) {
    case ControlVerb::kTemp: m->PinTemperature(c.celsius); return "ok";
    case ControlVerb::kTempRelease: m->ReleaseTemperature(); return "ok";
    case ControlVerb::kSilence: m->SetSilenced(c.on); return "ok";
    case ControlVerb::kFault: m->SetErrorCode(c.code); return "ok";
    case ControlVerb::kMount: {
      config::JointTransform mounting = m->params().mounting;
      mounting.offset_rad = static_cast<float>(c.offset_rad);
      mounting.direction = static_cast<float>(c.direction);
      m->SetMounting(mounting);
      return "ok";
    }
    case ControlVerb::kGet: return GetLine(c.joint);
    case ControlVerb::kTilt:
      if (kinematic_ == nullptr) {
        return std::string("error: tilt sets the kinematic backend's IMU; in ") + plant_->name() +
               " push the robot over instead";
      }
      kinematic_->SetTilt(c.roll_deg, c.pitch_deg);
      return "ok";
    case ControlVerb::kGantry:
      return plant_->SetGantry(c.on ? std::optional<double>(c.height_m) : std::nullopt);
    case ControlVerb::kPush: return plant_->Push(c.body, c.force_n, c.seconds);
    case ControlVerb::kTruth: return TruthLine();
    case ControlVerb::kRecord: return RecordLine();
    case ControlVerb::kQpos: return QposLine();
    case ControlVerb::kImu: imu_.SetEnabled(c.on); return "ok";
    case ControlVerb::kBattery:
    case ControlVerb::kBatteryCharge: return ExecuteBattery(c);
    case ControlVerb::kStatus: return "ok " + StatusLine();
    case ControlVerb::kHelp: return std::string("ok ") + kControlHelp;
    case ControlVerb::kBusOff:
    case ControlVerb::kRestarted:
    case ControlVerb::kLink: break;
  }
  return "error: not a robot command";
}

std::string SimRobot::GetLine(std::size_t joint) const {
  const SimMotorState s = motors_[joint].state();
  char line[360];
  std::snprintf(line, sizeof(line),
                "ok joint=%s position_rad=%.4f velocity_rad_s=%.4f torque_nm=%.3f "
                "temperature_c=%.2f motor_mode=%d active=%d error=%u commands=%llu replies=%llu "
                "silenced=%d pinned=%d joint_position_rad=%.4f can_timeout_ms=%lld",
                joint_names_[joint].c_str(), s.position_rad, s.velocity_rad_s, s.torque_nm,
                s.temperature_c, s.motor_mode ? 1 : 0, s.active ? 1 : 0,
                static_cast<unsigned>(s.error_code), static_cast<unsigned long long>(s.commands),
                static_cast<unsigned long long>(s.replies), s.silenced ? 1 : 0,
                s.temperature_pinned ? 1 : 0, s.joint_position_rad,
                static_cast<long long>(s.can_timeout_us / 1000));
  return line;
}

std::string SimRobot::TruthLine() const {
  const std::optional<GroundTruth> t = plant_->truth();
  if (!t) return std::string("error: no ground truth in the ") + plant_->name() + " backend";
  char line[400];
  std::snprintf(line, sizeof(line),
                "ok base=%.4f,%.4f,%.4f quat=%.4f,%.4f,%.4f,%.4f vel=%.4f,%.4f,%.4f "
                "angvel=%.4f,%.4f,%.4f torso_height=%.4f tilt=%.2f contacts=%d feet=%d "
                "time=%.4f",
                t->base_position_m[0], t->base_position_m[1], t->base_position_m[2],
                t->base_quaternion[0], t->base_quaternion[1], t->base_quaternion[2],
                t->base_quaternion[3], t->base_velocity_m_s[0], t->base_velocity_m_s[1],
                t->base_velocity_m_s[2], t->base_angular_velocity_rad_s[0],
                t->base_angular_velocity_rad_s[1], t->base_angular_velocity_rad_s[2],
                t->torso_height_m, t->tilt_deg, t->contacts, t->foot_contacts, t->time_s);
  return line;
}

std::string SimRobot::QposLine() const {
  const std::span<const double> q = plant_->generalized_positions();
  if (q.empty()) {
    return std::string("error: no generalized positions in the ") + plant_->name() + " backend";
  }
  std::string line = "ok";
  char number[32];
  for (const double v : q) {
    std::snprintf(number, sizeof(number), " %.6g", v);
    line += number;
  }
  return line;
}

std::string SimRobot::RecordLine() {
  std::string line = "ok";
  char field[96];
  for (std::size_t j = 0; j < records_.size(); ++j) {
    std::snprintf(field, sizeof(field), " %s=%.2f/%u", joint_names_[j].c_str(),
                  records_[j].peak_torque_nm, records_[j].limit_hits);
    line += field;
    records_[j].Restart();
  }
  return line;
}

void SimRobot::UpdateRates(std::int64_t now_us) {
  const double seconds = static_cast<double>(now_us - rate_base_us_) * 1e-6;
  if (seconds <= 0) return;
  commands_per_s_ = static_cast<double>(totals_.frames - rate_base_.frames) / seconds;
  replies_per_s_ = static_cast<double>(totals_.replies - rate_base_.replies) / seconds;
  rate_base_ = totals_;
  rate_base_us_ = now_us;
}

std::string SimRobot::StatusLine() const {
  std::size_t motor_mode = 0, active = 0, silenced = 0, faults = 0, hottest = 0;
  double hottest_c = -1e9;
  for (std::size_t j = 0; j < motors_.size(); ++j) {
    const SimMotorState s = motors_[j].state();
    motor_mode += s.motor_mode ? 1 : 0;
    active += s.active ? 1 : 0;
    silenced += s.silenced ? 1 : 0;
    faults += s.error_code != 0 ? 1 : 0;
    if (s.temperature_c > hottest_c) hottest_c = s.temperature_c, hottest = j;
  }
  char battery[16] = "none";
  if (has_bms() && !battery_.enabled()) {
    std::snprintf(battery, sizeof(battery), "off");
  } else if (has_bms()) {
    std::snprintf(battery, sizeof(battery), "%.1f%%", battery_.percent());
  }
  char line[360];
  std::snprintf(
      line, sizeof(line),
      "motor_mode=%zu/%zu active=%zu silenced=%zu faults=%zu frames/s=%.0f replies/s=%.0f "
      "hottest=%s:%.1fC imu=%s tilt=%.1f physics=%s lagged_ms=%.0f battery=%s",
      motor_mode, motors_.size(), active, silenced, faults, commands_per_s_, replies_per_s_,
      motors_.empty() ? "-" : joint_names_[hottest].c_str(), hottest_c,
      imu_.enabled() ? "on" : "off", TiltFromUprightDeg(plant_->imu().quaternion), plant_->name(),
      static_cast<double>(totals_.lagged_us) * 1e-3, battery);
  return line;
}

}  // namespace robot_edge::sim
