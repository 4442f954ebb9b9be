// A minimal robot behind a FakeTransport for control-loop unit tests: every motor in motor mode answers
// each command with a reply whose position is the commanded one, and the IMU reports upright.
// Logic only — the real simulator on vcan is tested by the vcan suites.
#pragma once

#include <memory>
#include <vector>

#include "can/fake_transport.hpp"
#include "can/imu_codec.hpp"
#include "can/mit_codec.hpp"
#include "can/motor_scheduler.hpp"
#include "config/config.hpp"

namespace robot_edge::daemon::test {

class FakeRobot {
 public:
  explicit FakeRobot(const config::Config& c) : config_(c), transport_(Interfaces(c)) {
    temperature_.resize(c.joints.size(), 30);
  }

  can::FakeTransport& transport() { return transport_; }

  // Answers what was sent since the last call, and sends the IMU frames (quaternion, gyro).
  void Answer() {
    for (std::size_t b = 0; b < config_.buses.size(); ++b) {
      for (const can_frame& f : transport_.sent(b)) AnswerFrame(b, f);
    }
    transport_.ClearSent();
    can_frame q{};
    q.can_id = config_.imu.quat_id;
    q.len = 8;
    const auto payload = can::EncodeImuQuaternion({1, 0, 0, 0});
    std::copy(payload.begin(), payload.end(), q.data);
    transport_.Inject(static_cast<std::uint32_t>(config_.imu.bus), q);
    if (!send_gyro_) return;
    can_frame g{};
    g.can_id = config_.imu.gyro_id;
    g.len = 6;
    const auto gyro = can::EncodeImuGyro({0, 0, 0});
    std::copy(gyro.begin(), gyro.begin() + 6, g.data);
    transport_.Inject(static_cast<std::uint32_t>(config_.imu.bus), g);
  }

  std::vector<std::uint8_t> temperature_;
  bool send_gyro_ = true;

 private:
  void AnswerFrame(std::size_t bus, const can_frame& f) {
    for (std::size_t j = 0; j < config_.joints.size(); ++j) {
      const auto& joint = config_.joints[j];
      if (joint.bus != bus || joint.can_id != f.can_id) continue;
      const auto ranges = can::RangesOf(config_.motor_of(j));
      can::MitCommand cmd;
      if (!can::DecodeCommand(std::span(f.data, 8), ranges, &cmd)) return;  // special frame
      can::MitReply reply{static_cast<std::uint8_t>(joint.can_id), cmd.position_rad, 0.0f, 0.0f,
                          temperature_[j], 0};
      can::Payload out;
      const std::uint8_t len = can::EncodeReply(reply, ranges, can::ReplyLayout::kAk8Byte, &out);
      can_frame r{};
      r.can_id = config_.buses[bus].master_id;
      r.len = len;
      std::copy(out.begin(), out.begin() + len, r.data);
      transport_.Inject(static_cast<std::uint32_t>(bus), r);
    }
  }

  static std::vector<std::string> Interfaces(const config::Config& c) {
    std::vector<std::string> names;
    for (const auto& b : c.buses) names.push_back(b.interface);
    return names;
  }

  const config::Config& config_;
  can::FakeTransport transport_;
};

}  // namespace robot_edge::daemon::test
