#include "sim/canned_replies.hpp"

#include <algorithm>

#include <stdexcept>
#include "can/imu_codec.hpp"

#include "can/motor_protocol.hpp"

namespace robot_edge::sim {
namespace {

can::BusFrame FrameOn(std::size_t bus, canid_t id, std::span<const std::uint8_t> data) {
  can::BusFrame f{};
  f.bus = static_cast<std::uint32_t>(bus);
  f.frame.can_id = id;
  f.frame.len = static_cast<std::uint8_t>(data.size());
  std::copy(data.begin(), data.end(), f.frame.data);
  return f;
}

}  // namespace

CannedReplies::CannedReplies(const config::Config& config) : index_(config.buses.size()) {
  for (auto& ids : index_) ids.fill(-1);
  for (std::size_t j = 0; j < config.joints.size(); ++j) {
    const config::JointConfig& joint = config.joints[j];
    const config::MotorModel& model = config.motor_of(j);
    if (model.family != config::MotorFamily::kAk || joint.offset_rad != 0 || joint.direction != 1 ||
        joint.gear_ratio != 1) {
      throw std::invalid_argument("CannedReplies: joint " + joint.name +
                                  " is not an ak motor mounted as its joint (use SimRobot)");
    }
    motors_.push_back({{static_cast<std::uint8_t>(joint.can_id),
                        static_cast<float>(joint.stand_rad), 0.0f, 0.0f, 30, 0},
                       can::ProtocolOf(model).ranges,
                       can::ProtocolOf(model).layout});
    index_[joint.bus][joint.can_id & CAN_SFF_MASK] = static_cast<std::int16_t>(j);
    frames_.push_back(FrameOn(joint.bus, config.buses[joint.bus].master_id, {}));
    Encode(j);
  }
  const auto quat = can::EncodeImuQuaternion({1, 0, 0, 0});
  frames_.push_back(FrameOn(config.imu.bus, config.imu.quat_id, quat));
  const auto gyro = can::EncodeImuGyro({0, 0, 0});
  frames_.push_back(FrameOn(config.imu.bus, config.imu.gyro_id, std::span(gyro.data(), 6)));
  if (config.imu.accel_id != 0) {
    const auto accel = can::EncodeImuAccel({0, 0, 9.81f});  // specific force, upright at rest
    frames_.push_back(FrameOn(config.imu.bus, config.imu.accel_id, std::span(accel.data(), 6)));
  }
}

const can::BusFrame* CannedReplies::ReplyTo(std::size_t bus, canid_t id) const {
  if (bus >= index_.size() || (id & ~CAN_SFF_MASK) != 0) return nullptr;
  const std::int16_t j = index_[bus][id];
  return j < 0 ? nullptr : &frames_[static_cast<std::size_t>(j)];
}

void CannedReplies::SetTemperature(std::size_t joint, std::uint8_t celsius) {
  motors_[joint].reply.temperature_c = celsius;
  Encode(joint);
}

void CannedReplies::Encode(std::size_t joint) {
  const Motor& m = motors_[joint];
  can::Payload out;
  const std::uint8_t len = can::EncodeReply(m.reply, m.ranges, m.layout, &out);
  can_frame& f = frames_[joint].frame;
  f.len = len;
  std::copy(out.begin(), out.begin() + len, f.data);
}

}  // namespace robot_edge::sim
