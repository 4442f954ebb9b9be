// MotorScheduler over a five-bus FakeTransport with the robot's default configuration: what goes
// on which bus with which bytes and in which batch, what replies, IMU and BMS frames do, and the
// motor-mode retry schedule. Time is a parameter (µs); the tests advance it by hand.
#include "can/motor_scheduler.hpp"

#include <gtest/gtest.h>
#include <linux/can/error.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <stdexcept>
#include <vector>

#include "can/bms_codec.hpp"
#include "can/fake_transport.hpp"
#include "can/imu_codec.hpp"
#include "config/library_options.hpp"
#include "hex.hpp"
#include "test_config.hpp"

namespace robot_edge::can {
namespace {

using test::DefaultConfig;
using test::Hexify;

constexpr std::size_t kBuses = 5;
constexpr std::size_t kJoints = 25;
constexpr std::size_t kWaistNeck = 4;  // the IMU's bus, and the BMS's
constexpr canid_t kBmsId = 0x180;
constexpr std::int64_t kMs = 1000;  // µs
constexpr std::int64_t kPeriodUs = 2 * kMs;

// The reference encoding, written from the protocol layout in mit_codec.hpp (not from its code):
// each field clamped, scaled at span / (2^n - 1) per step, rounded to nearest, packed big-endian.
std::uint32_t Field(double x, double lo, double hi, int bits) {
  const double steps = std::ldexp(1.0, bits) - 1;
  return static_cast<std::uint32_t>(std::lround((std::clamp(x, lo, hi) - lo) * steps / (hi - lo)));
}

std::string ReferenceCommandHex(const MitCommand& c, const config::MotorModel& m) {
  const std::uint32_t p = Field(c.position_rad, -m.p_max_rad, m.p_max_rad, 16);
  const std::uint32_t v = Field(c.velocity_rad_s, -m.v_max_rad_s, m.v_max_rad_s, 12);
  const std::uint32_t kp = Field(c.kp, 0, m.kp_max, 12);
  const std::uint32_t kd = Field(c.kd, 0, m.kd_max, 12);
  const std::uint32_t t = Field(c.torque_nm, -m.t_max_nm, m.t_max_nm, 12);
  const std::uint8_t bytes[8] = {static_cast<std::uint8_t>(p >> 8),
                                 static_cast<std::uint8_t>(p),
                                 static_cast<std::uint8_t>(v >> 4),
                                 static_cast<std::uint8_t>((v << 4) | (kp >> 8)),
                                 static_cast<std::uint8_t>(kp),
                                 static_cast<std::uint8_t>(kd >> 4),
                                 static_cast<std::uint8_t>((kd << 4) | (t >> 8)),
                                 static_cast<std::uint8_t>(t)};
  return Hexify(bytes);
}

std::string DataHex(const can_frame& frame) { return Hexify(std::span(frame.data, frame.len)); }

can_frame Frame(canid_t id, std::span<const std::uint8_t> data) {
  can_frame frame{};
  frame.can_id = id;
  frame.len = static_cast<std::uint8_t>(data.size());
  std::copy(data.begin(), data.end(), frame.data);
  return frame;
}

// A distinct target per joint, away from rounding ties.
std::vector<MitCommand> DistinctTargets() {
  std::vector<MitCommand> targets;
  for (std::size_t j = 0; j < kJoints; ++j) {
    const float x = static_cast<float>(j);
    targets.push_back({-1.01f + 0.073f * x, -3.03f + 0.41f * x, 10.3f + 3.1f * x, 0.13f * x + 0.01f,
                       -2.02f + 0.29f * x});
  }
  return targets;
}

std::vector<std::string> Interfaces(const config::Config& config) {
  std::vector<std::string> names;
  for (const auto& bus : config.buses) names.push_back(bus.interface);
  return names;
}

// Records every batch the scheduler hands to the transport (which bus each frame is for, in
// which order, in which call), and passes it on to a FakeTransport.
class BatchRecorder final : public Transport {
 public:
  explicit BatchRecorder(FakeTransport& inner) : inner_(inner) {}
  std::size_t bus_count() const override { return inner_.bus_count(); }
  std::size_t Send(std::span<const BusFrame> frames) override {
    batches_.emplace_back(frames.begin(), frames.end());
    return inner_.Send(frames);
  }
  std::size_t Receive(std::span<BusFrame> out) override { return inner_.Receive(out); }
  const BusCounters& counters(std::size_t bus) const override { return inner_.counters(bus); }
  const std::string& interface(std::size_t bus) const override { return inner_.interface(bus); }

  const std::vector<std::vector<BusFrame>>& batches() const { return batches_; }
  void Clear() { batches_.clear(); }

 private:
  FakeTransport& inner_;
  std::vector<std::vector<BusFrame>> batches_;
};

class SchedulerTest : public ::testing::Test {
 protected:
  explicit SchedulerTest(const config::Config& config = DefaultConfig())
      : config_(config),
        fake_(Interfaces(config_)),
        recorder_(fake_),
        scheduler_(std::make_unique<MotorScheduler>(config::WiringOf(config_), recorder_)) {}

  void ClearSent() {
    fake_.ClearSent();
    recorder_.Clear();
  }
  // An AK reply of joint j's motor on its bus, to its bus's master id.
  void Reply(std::size_t j, float position_rad, float velocity_rad_s, float torque_nm,
             std::uint8_t temperature_c = 40) {
    const auto& joint = config_.joints[j];
    Payload payload;
    const std::uint8_t id = static_cast<std::uint8_t>(joint.can_id);
    EncodeReply({id, position_rad, velocity_rad_s, torque_nm, temperature_c, 0},
                ProtocolOf(config_.motor_of(j)).ranges, ReplyLayout::kAk8Byte, &payload);
    Inject(joint.bus, Frame(config_.buses[joint.bus].master_id, payload));
  }
  void Inject(std::size_t bus, const can_frame& frame) {
    fake_.Inject(static_cast<std::uint32_t>(bus), frame);
  }
  const std::vector<can_frame>& Sent(std::size_t bus) const { return fake_.sent(bus); }
  // One tick as the control thread runs it: take the replies, then send the next commands.
  void Tick(std::int64_t now_us) {
    scheduler_->Receive(now_us);
    scheduler_->Send(targets_, now_us);
  }
  std::size_t FcFramesTo(std::size_t j) {
    const auto& joint = config_.joints[j];
    std::size_t n = 0;
    for (const can_frame& f : Sent(joint.bus)) {
      n += f.can_id == joint.can_id && DataHex(f) == "fffffffffffffffc";
    }
    return n;
  }

  const config::Config config_;
  FakeTransport fake_;
  BatchRecorder recorder_;
  std::unique_ptr<MotorScheduler> scheduler_;
  std::vector<MitCommand> targets_ = std::vector<MitCommand>(kJoints);
};

TEST_F(SchedulerTest, DefaultConfigHasTheRobotsLayout) {
  ASSERT_EQ(config_.joints.size(), kJoints);
  ASSERT_EQ(config_.buses.size(), kBuses);
  EXPECT_EQ(config_.imu.bus, kWaistNeck);
  EXPECT_EQ(scheduler_->bus_count(), kBuses);
  EXPECT_EQ(scheduler_->motors().size(), kJoints);
}

TEST_F(SchedulerTest, BusCountMustMatchTheConfig) {
  FakeTransport four({"vcan0", "vcan1", "vcan2", "vcan3"});
  EXPECT_THROW(MotorScheduler(config::WiringOf(config_), four), std::invalid_argument);
  FakeTransport six({"vcan0", "vcan1", "vcan2", "vcan3", "vcan4", "vcan5"});
  EXPECT_THROW(MotorScheduler(config::WiringOf(config_), six), std::invalid_argument);
}

TEST_F(SchedulerTest, EnterMotorModeSendsFcToEveryMotorOnItsBusInOneBatch) {
  scheduler_->EnterMotorMode(0);
  EXPECT_EQ(fake_.send_calls(), 1u) << "one Send() for every bus";
  ASSERT_EQ(recorder_.batches().size(), 1u);
  EXPECT_EQ(recorder_.batches()[0].size(), kJoints);
  const std::size_t expected_per_bus[kBuses] = {6, 6, 5, 5, 3};
  std::size_t total = 0;
  for (std::size_t b = 0; b < kBuses; ++b) {
    const auto& sent = Sent(b);
    ASSERT_EQ(sent.size(), expected_per_bus[b]) << "bus " << b;
    std::size_t i = 0;
    for (std::size_t j = 0; j < kJoints; ++j) {  // firmware order within the bus
      if (config_.joints[j].bus != b) continue;
      EXPECT_EQ(sent[i].can_id, config_.joints[j].can_id) << config_.joints[j].name;
      EXPECT_EQ(sent[i].len, 8);
      EXPECT_EQ(DataHex(sent[i]), "fffffffffffffffc") << config_.joints[j].name;
      ++i;
    }
    total += sent.size();
  }
  EXPECT_EQ(total, kJoints);
}

TEST_F(SchedulerTest, SendPutsOneCommandPerMotorOnTheJointsBusWithExactBytes) {
  scheduler_->EnterMotorMode(0);
  ClearSent();
  targets_ = DistinctTargets();
  scheduler_->Send(targets_, kPeriodUs);  // before any retry is due: commands only
  EXPECT_EQ(fake_.send_calls(), 2u) << "EnterMotorMode() and Send(): one Send() each";
  std::size_t cursor[kBuses] = {};
  for (std::size_t j = 0; j < kJoints; ++j) {
    const auto& joint = config_.joints[j];
    const auto& sent = Sent(joint.bus);
    ASSERT_LT(cursor[joint.bus], sent.size()) << joint.name;
    const can_frame& frame = sent[cursor[joint.bus]++];
    EXPECT_EQ(frame.can_id, joint.can_id) << joint.name;
    EXPECT_EQ(frame.len, 8) << joint.name;
    EXPECT_EQ(DataHex(frame), ReferenceCommandHex(targets_[j], config_.motor_of(j))) << joint.name;
  }
  for (std::size_t b = 0; b < kBuses; ++b) {
    EXPECT_EQ(Sent(b).size(), cursor[b]) << "bus " << b << ": one frame per motor";
  }
}

// The point of the Transport: a tick is one Send() call (one sendmmsg in SocketCanTransport)
// carrying the frames of every bus, each frame tagged with its joint's bus.
TEST_F(SchedulerTest, EachSendIsOneBatchWithTheFramesOfEveryBus) {
  scheduler_->EnterMotorMode(0);
  targets_ = DistinctTargets();
  for (std::int64_t now = kPeriodUs; now <= 10 * kPeriodUs; now += kPeriodUs) {
    ClearSent();
    const std::size_t calls_before = fake_.send_calls();
    for (std::size_t j = 0; j < kJoints; ++j) Reply(j, 0, 0, 0);
    Tick(now);
    EXPECT_EQ(fake_.send_calls(), calls_before + 1) << now;
    ASSERT_EQ(recorder_.batches().size(), 1u) << now;
    const std::vector<BusFrame>& batch = recorder_.batches()[0];
    ASSERT_EQ(batch.size(), kJoints) << now;
    for (std::size_t j = 0; j < kJoints; ++j) {  // firmware order
      const auto& joint = config_.joints[j];
      EXPECT_EQ(batch[j].bus, joint.bus) << joint.name;
      EXPECT_EQ(batch[j].frame.can_id, joint.can_id) << joint.name;
      EXPECT_EQ(DataHex(batch[j].frame), ReferenceCommandHex(targets_[j], config_.motor_of(j)))
          << joint.name;
    }
    for (std::size_t b = 0; b < kBuses; ++b) EXPECT_FALSE(Sent(b).empty()) << "bus " << b;
  }
}

TEST_F(SchedulerTest, SendGoldenFrame) {
  targets_[9] = {1.0f, -2.0f, 100.0f, 2.5f, 1.5f};  // R_Knee: right_leg, id 4
  scheduler_->EnterMotorMode(0);
  ClearSent();
  scheduler_->Send(targets_, kPeriodUs);
  const auto& sent = Sent(1);
  ASSERT_EQ(sent.size(), 6u);
  EXPECT_EQ(sent[3].can_id, 4u);
  EXPECT_EQ(DataHex(sent[3]), "8a3d7ae3338008aa");
  EXPECT_EQ(DataHex(sent[0]), "8000800000000800");  // a zero target
}

TEST_F(SchedulerTest, ReplyUpdatesTheJointOfThatIdOnThatBus) {
  // Motor 3 on right_leg is R_Hip_Yaw (joint 8); motor 3 on left_leg (joint 2) must not change.
  const std::uint8_t golden[8] = {0x03, 0x85, 0x1e, 0x82, 0x87, 0x1c, 0x2d, 0x00};  // p 0.5,
  Inject(1, Frame(0, golden));  // v 1.0, t -2.0, 45 °C (see mit_codec_test)
  scheduler_->Receive(123'456);
  const MotorFeedback& fb = scheduler_->motors()[8];
  EXPECT_NEAR(fb.position_rad, 0.5f, 25.0f / 65535);
  EXPECT_NEAR(fb.velocity_rad_s, 1.0f, 100.0f / 4095);
  EXPECT_NEAR(fb.torque_nm, -2.0f, 36.0f / 4095);
  EXPECT_EQ(fb.temperature_c, 45.0f);
  EXPECT_EQ(fb.error_code, 0);
  EXPECT_EQ(fb.last_reply_us, 123'456);
  EXPECT_EQ(fb.replies, 1u);
  for (std::size_t j = 0; j < kJoints; ++j) {
    if (j == 8) continue;
    EXPECT_EQ(scheduler_->motors()[j].last_reply_us, -1) << config_.joints[j].name;
    EXPECT_EQ(scheduler_->motors()[j].replies, 0u) << config_.joints[j].name;
  }
}

TEST_F(SchedulerTest, EveryJointGetsItsOwnReply) {
  for (std::size_t j = 0; j < kJoints; ++j) {
    Reply(j, 0.1f * static_cast<float>(j) - 1.2f, 0.5f, -0.25f * static_cast<float>(j), 30 + j);
  }
  scheduler_->Receive(7 * kMs);
  for (std::size_t j = 0; j < kJoints; ++j) {
    const MotorFeedback& fb = scheduler_->motors()[j];
    EXPECT_NEAR(fb.position_rad, 0.1f * static_cast<float>(j) - 1.2f, 25.0f / 65535) << j;
    EXPECT_NEAR(fb.torque_nm, -0.25f * static_cast<float>(j), 36.0f / 4095) << j;
    EXPECT_EQ(fb.temperature_c, static_cast<float>(30 + j)) << j;
    EXPECT_EQ(fb.last_reply_us, 7 * kMs) << j;
  }
}

TEST_F(SchedulerTest, ErrorCodeOfTheReplyIsKept) {
  Payload payload;
  EncodeReply({2, 0, 0, 0, 85, static_cast<std::uint8_t>(MotorError::kOvertemp)},
              ProtocolOf(config_.motors[0]).ranges, ReplyLayout::kAk8Byte, &payload);
  Inject(0, Frame(0, payload));
  scheduler_->Receive(1);
  EXPECT_EQ(scheduler_->motors()[1].error_code, static_cast<std::uint8_t>(MotorError::kOvertemp));
  EXPECT_EQ(scheduler_->motors()[1].temperature_c, 85.0f);
}

TEST_F(SchedulerTest, FramesFromUnknownIdsOrNotToTheMasterAreIgnored) {
  const std::uint8_t reply_of_9[8] = {0x09, 0x85, 0x1e, 0x82, 0x87, 0x1c, 0x2d, 0x00};
  const std::uint8_t reply_of_3[8] = {0x03, 0x85, 0x1e, 0x82, 0x87, 0x1c, 0x2d, 0x00};
  Inject(1, Frame(0, reply_of_9));                      // no motor 9 on right_leg
  Inject(4, Frame(0, std::span(reply_of_9).first(8)));  // nor on waist_neck (1..3)
  Inject(1, Frame(0x7, reply_of_3));                    // not the master id
  Inject(1, Frame(0x3, reply_of_3));                    // a command id, not a reply
  Inject(1, Frame(0 | CAN_EFF_FLAG, reply_of_3));       // extended frame with id 0
  Inject(1, Frame(0 | CAN_RTR_FLAG, reply_of_3));       // remote frame
  Inject(1, Frame(0, std::span(reply_of_3).first(6)));  // an AK reply needs 8 bytes
  Inject(1, Frame(0, {}));                              // empty
  scheduler_->Receive(5 * kMs);
  for (std::size_t j = 0; j < kJoints; ++j) {
    EXPECT_EQ(scheduler_->motors()[j].replies, 0u) << config_.joints[j].name;
  }
  Inject(1, Frame(0, reply_of_3));  // the control: this one counts
  scheduler_->Receive(6 * kMs);
  EXPECT_EQ(scheduler_->motors()[8].replies, 1u);
}

TEST_F(SchedulerTest, ImuFramesOnTheImuBusUpdateImu) {
  const Payload quat = EncodeImuQuaternion({0.8f, 0.0f, 0.48f, -0.36f});
  const Payload gyro = EncodeImuGyro({1.0f, -2.5f, 0.0f});
  // On another bus they are nobody's frames.
  Inject(0, Frame(0x101, quat));
  Inject(0, Frame(0x102, std::span(gyro).first(6)));
  scheduler_->Receive(1 * kMs);
  EXPECT_EQ(scheduler_->imu().last_quat_us, -1);
  EXPECT_EQ(scheduler_->imu().last_gyro_us, -1);

  Inject(kWaistNeck, Frame(0x101, quat));
  scheduler_->Receive(2 * kMs);
  EXPECT_EQ(scheduler_->imu().last_quat_us, 2 * kMs);
  EXPECT_EQ(scheduler_->imu().last_gyro_us, -1);
  EXPECT_NEAR(scheduler_->imu().quat_wxyz[0], 0.8f, 1.0f / 32767);
  EXPECT_NEAR(scheduler_->imu().quat_wxyz[2], 0.48f, 1.0f / 32767);
  EXPECT_NEAR(scheduler_->imu().quat_wxyz[3], -0.36f, 1.0f / 32767);

  Inject(kWaistNeck, Frame(0x102, std::span(gyro).first(6)));
  scheduler_->Receive(3 * kMs);
  EXPECT_EQ(scheduler_->imu().last_gyro_us, 3 * kMs);
  EXPECT_FLOAT_EQ(scheduler_->imu().gyro_rad_s[0], 1.0f);
  EXPECT_FLOAT_EQ(scheduler_->imu().gyro_rad_s[1], -2.5f);
  EXPECT_EQ(scheduler_->imu().last_quat_us, 2 * kMs);
  for (const MotorFeedback& fb : scheduler_->motors()) EXPECT_EQ(fb.replies, 0u);
}

TEST_F(SchedulerTest, ShortImuFramesAreIgnored) {
  const Payload quat = EncodeImuQuaternion({0.0f, 1.0f, 0.0f, 0.0f});
  Inject(kWaistNeck, Frame(0x101, std::span(quat).first(7)));
  scheduler_->Receive(1 * kMs);
  EXPECT_EQ(scheduler_->imu().last_quat_us, -1);
  EXPECT_FLOAT_EQ(scheduler_->imu().quat_wxyz[0], 1.0f);  // still identity
}

TEST_F(SchedulerTest, MissedRepliesCountMotorsSilentUntilTheNextSend) {
  scheduler_->EnterMotorMode(0);
  scheduler_->Send(targets_, kPeriodUs);
  for (std::size_t b = 0; b < kBuses; ++b) EXPECT_EQ(scheduler_->missed_replies(b), 0u);
  for (std::size_t j = 0; j < kJoints; ++j) {
    if (j != 1 && j != 4) Reply(j, 0, 0, 0);  // L_Hip_Roll and L_Ankle_A (left_leg) stay silent
  }
  Tick(2 * kPeriodUs);
  EXPECT_EQ(scheduler_->missed_replies(0), 2u);
  for (std::size_t b = 1; b < kBuses; ++b) EXPECT_EQ(scheduler_->missed_replies(b), 0u) << b;
  Tick(3 * kPeriodUs);  // nobody replied
  EXPECT_EQ(scheduler_->missed_replies(0), 2u + 6u);
  EXPECT_EQ(scheduler_->missed_replies(1), 6u);
  EXPECT_EQ(scheduler_->missed_replies(kWaistNeck), 3u);
}

// A motor replies for a second, then goes silent at t = 1 s. Spec: no FC while its last reply is
// within the reply timeout (50 ms); FC at the first tick past it; then at most every
// kMotorModeRetryUs (100 ms) while it stays silent. Motors that reply never get FC again.
TEST_F(SchedulerTest, SilentMotorGetsFcAfterItsTimeoutThenEveryRetryInterval) {
  constexpr std::size_t kSilent = 15;  // L_Elbow, left_arm
  const std::int64_t timeout_us = config_.control.motor_reply_timeout_ms * kMs;
  ASSERT_EQ(timeout_us, 50 * kMs);
  scheduler_->EnterMotorMode(0);
  std::int64_t now = 0;
  std::int64_t last_reply = 0;
  std::vector<std::int64_t> fc_times;
  for (; now <= 1'500 * kMs; now += kPeriodUs) {
    for (std::size_t j = 0; j < kJoints; ++j) {
      if (j != kSilent || now <= 1'000 * kMs) Reply(j, 0, 0, 0);
    }
    if (now <= 1'000 * kMs) last_reply = now;
    ClearSent();
    Tick(now);
    if (FcFramesTo(kSilent) > 0) fc_times.push_back(now);
    for (std::size_t j = 0; j < kJoints; ++j) {
      if (j != kSilent) {
        ASSERT_EQ(FcFramesTo(j), 0u) << config_.joints[j].name << " at " << now;
      }
    }
  }
  // Replies are taken by the Receive of the same tick, so the last one is stamped 1.000 s.
  ASSERT_FALSE(fc_times.empty());
  EXPECT_GT(fc_times[0], last_reply + timeout_us);
  EXPECT_LE(fc_times[0], last_reply + timeout_us + kPeriodUs);
  for (std::size_t i = 1; i < fc_times.size(); ++i) {
    EXPECT_EQ(fc_times[i] - fc_times[i - 1], MotorScheduler::kMotorModeRetryUs) << i;
  }
  EXPECT_EQ(fc_times.size(), 5u);  // 1.052, 1.152, 1.252, 1.352, 1.452 s
  // The FC goes out with the command, before it, in the same batch.
  for (std::size_t j = 0; j < kJoints; ++j) {
    if (j != kSilent) Reply(j, 0, 0, 0);
  }
  ClearSent();
  Tick(now + MotorScheduler::kMotorModeRetryUs);
  const auto& sent = Sent(2);
  ASSERT_EQ(sent.size(), 6u);  // five commands and one FC
  EXPECT_EQ(sent[3].can_id, 4u);
  EXPECT_EQ(DataHex(sent[3]), "fffffffffffffffc");
  EXPECT_EQ(sent[4].can_id, 4u);
  EXPECT_EQ(DataHex(sent[4]), "8000800000000800");
  ASSERT_EQ(recorder_.batches().size(), 1u);
  const std::vector<BusFrame>& batch = recorder_.batches()[0];
  ASSERT_EQ(batch.size(), kJoints + 1);
  EXPECT_EQ(batch[kSilent].bus, 2u);
  EXPECT_EQ(DataHex(batch[kSilent].frame), "fffffffffffffffc");
  EXPECT_EQ(DataHex(batch[kSilent + 1].frame), "8000800000000800");
  EXPECT_EQ(batch[kSilent + 1].frame.can_id, 4u);
}

TEST_F(SchedulerTest, MotorThatNeverRepliedGetsFcEveryRetryInterval) {
  scheduler_->EnterMotorMode(0);
  std::vector<std::int64_t> fc_times;
  for (std::int64_t now = kPeriodUs; now <= 350 * kMs; now += kPeriodUs) {
    ClearSent();
    Tick(now);
    if (FcFramesTo(0) > 0) fc_times.push_back(now);
  }
  EXPECT_EQ(fc_times, (std::vector<std::int64_t>{100 * kMs, 200 * kMs, 300 * kMs}));
}

TEST_F(SchedulerTest, SendDampThenExitSendsDampThenFdToEveryMotor) {
  std::vector<MitCommand> damp(kJoints);
  for (std::size_t j = 0; j < kJoints; ++j) {
    damp[j] = {0, 0, 0, static_cast<float>(config_.joints[j].damp_kd), 0};
  }
  scheduler_->SendDampThenExit(damp);
  // Two batches: every motor's DAMP, then every motor's FD (no motor leaves motor mode before
  // every motor has its DAMP command).
  EXPECT_EQ(fake_.send_calls(), 2u);
  ASSERT_EQ(recorder_.batches().size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    const std::vector<BusFrame>& batch = recorder_.batches()[k];
    ASSERT_EQ(batch.size(), kJoints) << "batch " << k;
    for (std::size_t j = 0; j < kJoints; ++j) {
      EXPECT_EQ(batch[j].bus, config_.joints[j].bus) << config_.joints[j].name;
      EXPECT_EQ(batch[j].frame.can_id, config_.joints[j].can_id) << config_.joints[j].name;
      EXPECT_EQ(DataHex(batch[j].frame),
                k == 0 ? ReferenceCommandHex(damp[j], config_.motor_of(j)) : "fffffffffffffffd")
          << config_.joints[j].name << " batch " << k;
    }
  }
  for (std::size_t b = 0; b < kBuses; ++b) {
    std::vector<std::size_t> joints;
    for (std::size_t j = 0; j < kJoints; ++j) {
      if (config_.joints[j].bus == b) joints.push_back(j);
    }
    const auto& sent = Sent(b);
    ASSERT_EQ(sent.size(), 2 * joints.size()) << "bus " << b;
    for (std::size_t i = 0; i < joints.size(); ++i) {
      const std::size_t j = joints[i];
      EXPECT_EQ(sent[i].can_id, config_.joints[j].can_id);
      EXPECT_EQ(DataHex(sent[i]), ReferenceCommandHex(damp[j], config_.motor_of(j)))
          << config_.joints[j].name;
      EXPECT_EQ(sent[joints.size() + i].can_id, config_.joints[j].can_id);
      EXPECT_EQ(DataHex(sent[joints.size() + i]), "fffffffffffffffd") << config_.joints[j].name;
    }
  }
  // damp_kd 1.5 of L_Hip_Pitch: kd field round(1.5 / 5 * 4095) = 1229 = 0x4cd.
  EXPECT_EQ(DataHex(Sent(0)[0]), "80008000004cd800");
}

TEST_F(SchedulerTest, FramesTheBusRefusesCountAsSendFailures) {
  // The first tick asks every motor (silent, never asked) to enter motor mode, then commands
  // it: two frames per motor; the second tick, one.
  fake_.set_send_limit(0, 2);
  scheduler_->Send(targets_, kPeriodUs);
  EXPECT_EQ(Sent(0).size(), 2u);
  EXPECT_EQ(fake_.counters(0).frames_sent.load(), 2u);
  EXPECT_EQ(fake_.counters(0).send_failures.load(), 2u * 6u - 2u);
  EXPECT_EQ(fake_.counters(1).send_failures.load(), 0u);
  EXPECT_EQ(fake_.counters(1).frames_sent.load(), 2u * 6u);

  fake_.set_link_up(3, false);
  scheduler_->Send(targets_, 2 * kPeriodUs);
  EXPECT_EQ(fake_.counters(3).send_failures.load(), 5u);
  EXPECT_EQ(fake_.counters(3).frames_sent.load(), 2u * 5u);  // the first tick's
  // A bus that refuses frames does not hold back the others in the same batch.
  EXPECT_EQ(fake_.send_calls(), 2u);
  EXPECT_EQ(fake_.counters(4).frames_sent.load(), 3u * 3u);
  EXPECT_EQ(fake_.counters(2).frames_sent.load(), 3u * 5u);
}

TEST_F(SchedulerTest, ErrorFramesAreCountedByTheBusNotTakenAsReplies) {
  can_frame error{};
  error.can_id = CAN_ERR_FLAG | CAN_ERR_BUSOFF;
  error.len = CAN_ERR_DLC;
  error.data[0] = 3;  // would be "motor 3" if it were taken as a reply
  Inject(1, error);
  scheduler_->Receive(1 * kMs);
  EXPECT_EQ(fake_.counters(1).error_frames.load(), 1u);
  EXPECT_EQ(fake_.counters(1).bus_off_count.load(), 1u);
  EXPECT_TRUE(fake_.counters(1).bus_off.load());
  EXPECT_EQ(scheduler_->motors()[8].replies, 0u);
  Reply(8, 0, 0, 0);  // the bus works again
  scheduler_->Receive(2 * kMs);
  EXPECT_FALSE(fake_.counters(1).bus_off.load());
  EXPECT_EQ(scheduler_->motors()[8].replies, 1u);
}

TEST_F(SchedulerTest, ReceiveTakesMoreThanOneBatch) {
  // 3 x kReceiveBatch replies waiting: all are taken in one Receive().
  for (std::size_t i = 0; i < 3 * MotorScheduler::kReceiveBatch; ++i) Reply(0, 0, 0, 0);
  Reply(5, 0, 0, 0);  // the last one in the queue
  scheduler_->Receive(1 * kMs);
  EXPECT_EQ(scheduler_->motors()[0].replies, 3 * MotorScheduler::kReceiveBatch);
  EXPECT_EQ(scheduler_->motors()[5].replies, 1u);
}

TEST(ProtocolOf, CopiesTheMotorModelsRanges) {
  config::MotorModel m;
  m.p_max_rad = 4.0;
  m.v_max_rad_s = 30.0;
  m.t_max_nm = 9.0;
  m.kp_max = 200.0;
  m.kd_max = 3.0;
  const MitRanges r = ProtocolOf(m).ranges;
  EXPECT_FLOAT_EQ(r.p_max, 4.0f);
  EXPECT_FLOAT_EQ(r.v_max, 30.0f);
  EXPECT_FLOAT_EQ(r.t_max, 9.0f);
  EXPECT_FLOAT_EQ(r.kp_max, 200.0f);
  EXPECT_FLOAT_EQ(r.kd_max, 3.0f);
}

// The default config's accel_id is 0x103.
TEST_F(SchedulerTest, TheAccelerometerFrameUpdatesImu) {
  const Payload accel = EncodeImuAccel({0.5f, -1.25f, 9.81f});
  Inject(0, Frame(0x103, std::span(accel).first(6)));  // not the IMU's bus
  scheduler_->Receive(1 * kMs);
  EXPECT_EQ(scheduler_->imu().last_accel_us, -1);

  Inject(kWaistNeck, Frame(0x103, std::span(accel).first(6)));
  scheduler_->Receive(2 * kMs);
  EXPECT_EQ(scheduler_->imu().last_accel_us, 2 * kMs);
  EXPECT_FLOAT_EQ(scheduler_->imu().accel_m_s2[0], 0.5f);
  EXPECT_FLOAT_EQ(scheduler_->imu().accel_m_s2[1], -1.25f);
  EXPECT_FLOAT_EQ(scheduler_->imu().accel_m_s2[2], 9.81f);
  EXPECT_EQ(scheduler_->imu().last_quat_us, -1);
  EXPECT_EQ(scheduler_->imu().last_gyro_us, -1);

  // A short frame is dropped: value and time stay.
  const Payload other = EncodeImuAccel({1, 1, 1});
  Inject(kWaistNeck, Frame(0x103, std::span(other).first(5)));
  scheduler_->Receive(3 * kMs);
  EXPECT_EQ(scheduler_->imu().last_accel_us, 2 * kMs);
  EXPECT_FLOAT_EQ(scheduler_->imu().accel_m_s2[2], 9.81f);
  for (const MotorFeedback& fb : scheduler_->motors()) {
    EXPECT_EQ(fb.replies, 0u);
    EXPECT_EQ(fb.malformed_replies, 0u);
  }
}

// The default config's battery: source can, the BMS frame 0x180 on waist_neck.
TEST_F(SchedulerTest, TheBmsFrameOnTheBatteryBusUpdatesBattery) {
  ASSERT_EQ(config_.battery.source, config::BatteryConfig::Source::kCan);
  const Payload bms = EncodeBms({48.6f, 12.34f, 80.0f, 30.0f, 1});
  EXPECT_EQ(scheduler_->battery().last_update_us, -1);
  Inject(0, Frame(kBmsId, bms));  // not the battery's bus
  scheduler_->Receive(1 * kMs);
  EXPECT_EQ(scheduler_->battery().last_update_us, -1);

  Inject(kWaistNeck, Frame(kBmsId, bms));
  scheduler_->Receive(2 * kMs);
  const BatteryFeedback& b = scheduler_->battery();
  EXPECT_EQ(b.last_update_us, 2 * kMs);
  EXPECT_FLOAT_EQ(b.reading.voltage_v, 48.6f);
  EXPECT_FLOAT_EQ(b.reading.current_a, 12.34f);
  EXPECT_FLOAT_EQ(b.reading.percent, 80.0f);
  EXPECT_FLOAT_EQ(b.reading.temperature_c, 30.0f);
  EXPECT_EQ(b.reading.status, 1u);
  EXPECT_EQ(scheduler_->imu().last_quat_us, -1);
  for (const MotorFeedback& fb : scheduler_->motors()) EXPECT_EQ(fb.replies, 0u);
  for (std::size_t bus = 0; bus < kBuses; ++bus) EXPECT_TRUE(scheduler_->strays(bus).empty());
}

TEST_F(SchedulerTest, AGarbledBmsFrameIsDroppedAndTheLastReadingKept) {
  Inject(kWaistNeck, Frame(kBmsId, EncodeBms({48.6f, 12.34f, 80.0f, 30.0f, 1})));
  scheduler_->Receive(1 * kMs);
  Payload garbled = EncodeBms({40.0f, 1.0f, 10.0f, 20.0f, 1});
  garbled[4] = 150;  // no such state of charge
  Inject(kWaistNeck, Frame(kBmsId, garbled));
  const Payload short_frame = EncodeBms({40.0f, 1.0f, 10.0f, 20.0f, 1});
  Inject(kWaistNeck, Frame(kBmsId, std::span(short_frame).first(6)));
  scheduler_->Receive(2 * kMs);
  EXPECT_EQ(scheduler_->battery().last_update_us, 1 * kMs);
  EXPECT_FLOAT_EQ(scheduler_->battery().reading.percent, 80.0f);
  EXPECT_FLOAT_EQ(scheduler_->battery().reading.voltage_v, 48.6f);
  for (const MotorFeedback& fb : scheduler_->motors()) EXPECT_EQ(fb.malformed_replies, 0u);
}

// battery.source none or sysfs: the BMS id is nobody's frame.
class NoBmsTest : public SchedulerTest {
 protected:
  NoBmsTest() : SchedulerTest(WithSource(config::BatteryConfig::Source::kSysfs)) {}
  static config::Config WithSource(config::BatteryConfig::Source source) {
    config::Config c = DefaultConfig();
    c.battery.source = source;
    return c;
  }
};

TEST_F(NoBmsTest, TheBmsFrameIsNotTaken) {
  Inject(kWaistNeck, Frame(kBmsId, EncodeBms({48.6f, 12.34f, 80.0f, 30.0f, 1})));
  Reply(22, 0.1f, 0, 0);  // Waist_Yaw: the bus works
  scheduler_->Receive(1 * kMs);
  EXPECT_EQ(scheduler_->battery().last_update_us, -1);
  EXPECT_EQ(scheduler_->motors()[22].replies, 1u);
}

// The BMS on another bus than the IMU, at an id the IMU has there (allowed: another bus).
class BmsOnLeftLegTest : public SchedulerTest {
 protected:
  BmsOnLeftLegTest() : SchedulerTest(OnLeftLeg()) {}
  static config::Config OnLeftLeg() {
    config::Config c = DefaultConfig();
    c.battery.bus = 0;
    c.battery.bus_name = c.buses[0].name;
    c.battery.can_id = 0x102;
    return c;
  }
};

TEST_F(BmsOnLeftLegTest, EachFrameGoesToItsOwnBus) {
  const Payload gyro = EncodeImuGyro({1.0f, -2.5f, 0.0f});
  Inject(0, Frame(0x102, EncodeBms({50.0f, -3.0f, 99.0f, 25.0f, 2})));
  Inject(kWaistNeck, Frame(0x102, std::span(gyro).first(6)));
  scheduler_->Receive(1 * kMs);
  EXPECT_EQ(scheduler_->battery().last_update_us, 1 * kMs);
  EXPECT_FLOAT_EQ(scheduler_->battery().reading.current_a, -3.0f);
  EXPECT_EQ(scheduler_->battery().reading.status, 2u);
  EXPECT_EQ(scheduler_->imu().last_gyro_us, 1 * kMs);
  EXPECT_FLOAT_EQ(scheduler_->imu().gyro_rad_s[1], -2.5f);
}

// accel_id 0: no accelerometer. Id 0 stays the master id motor replies go to.
class NoAccelerometerTest : public SchedulerTest {
 protected:
  NoAccelerometerTest() : SchedulerTest(WithoutAccel()) {}
  static config::Config WithoutAccel() {
    config::Config c = DefaultConfig();
    c.imu.accel_id = 0;
    return c;
  }
};

TEST_F(NoAccelerometerTest, NoFrameIsTakenForIt) {
  ASSERT_EQ(config_.buses[kWaistNeck].master_id, 0u);
  const Payload accel = EncodeImuAccel({0, 0, 9.81f});
  Inject(kWaistNeck, Frame(0x103, std::span(accel).first(6)));
  Reply(22, 0.1f, 0, 0);  // Waist_Yaw, to master id 0 on the IMU's bus
  scheduler_->Receive(1 * kMs);
  EXPECT_EQ(scheduler_->imu().last_accel_us, -1);
  EXPECT_EQ(scheduler_->motors()[22].replies, 1u);
}

TEST(ProtocolOf, FollowsTheReplyFormat) {
  config::MotorModel m;
  m.reply = config::ReplyFormat::kAk8Byte;
  EXPECT_EQ(ProtocolOf(m).layout, ReplyLayout::kAk8Byte);
  m.reply = config::ReplyFormat::kClassic6Byte;
  EXPECT_EQ(ProtocolOf(m).layout, ReplyLayout::kClassic6Byte);
}

constexpr canid_t kExactMask = CAN_SFF_MASK | CAN_EFF_FLAG | CAN_RTR_FLAG;

// One kernel filter for the one socket of every bus: the union of the buses' master ids, the
// IMU's ids and the BMS's, each exactly once (the scheduler routes by bus; the kernel cannot).
TEST(ReceiveFilters, UnionOfMasterIdsImuIdsAndTheBms) {
  const std::vector<can_filter> f = ReceiveFilters(config::WiringOf(DefaultConfig()));
  ASSERT_EQ(f.size(), 5u) << "master id 0 on five buses is one filter";
  EXPECT_EQ(f[0].can_id, 0u);
  EXPECT_EQ(f[1].can_id, 0x101u);
  EXPECT_EQ(f[2].can_id, 0x102u);
  EXPECT_EQ(f[3].can_id, 0x103u);
  EXPECT_EQ(f[4].can_id, 0x180u);
  for (const can_filter& filter : f) EXPECT_EQ(filter.can_mask, kExactMask);
}

TEST(ReceiveFilters, FollowsTheConfiguredIds) {
  config::Config c = DefaultConfig();
  c.buses[2].master_id = 0x7F;
  c.buses[3].master_id = 0x7E;
  c.imu.bus = 2;
  c.imu.quat_id = 0x201;
  c.imu.gyro_id = 0x202;
  c.imu.accel_id = 0x203;
  const auto ids = [](const config::Config& config) {
    std::vector<canid_t> out;
    for (const can_filter& filter : ReceiveFilters(config::WiringOf(config))) {
      out.push_back(filter.can_id);
      EXPECT_EQ(filter.can_mask, kExactMask) << filter.can_id;
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  c.battery.can_id = 0x1F0;
  EXPECT_EQ(ids(c), (std::vector<canid_t>{0x000, 0x07E, 0x07F, 0x1F0, 0x201, 0x202, 0x203}));
  c.imu.accel_id = 0;  // none: no filter for it
  EXPECT_EQ(ids(c), (std::vector<canid_t>{0x000, 0x07E, 0x07F, 0x1F0, 0x201, 0x202}));
  c.battery.source = config::BatteryConfig::Source::kSysfs;  // no BMS frame either
  EXPECT_EQ(ids(c), (std::vector<canid_t>{0x000, 0x07E, 0x07F, 0x201, 0x202}));
  c.battery.source = config::BatteryConfig::Source::kNone;
  EXPECT_EQ(ids(c), (std::vector<canid_t>{0x000, 0x07E, 0x07F, 0x201, 0x202}));
}

// The kernel filter lets every bus's master id through on every bus: the scheduler must take a
// reply only from the bus whose master id it is addressed to.
class DistinctMasterIdsTest : public SchedulerTest {
 protected:
  DistinctMasterIdsTest() : SchedulerTest(WithMasterIds()) {}
  static config::Config WithMasterIds() {
    config::Config c = DefaultConfig();
    for (std::size_t b = 0; b < c.buses.size(); ++b) {
      c.buses[b].master_id = static_cast<std::uint32_t>(0x10 + b);
    }
    return c;
  }
};

TEST_F(DistinctMasterIdsTest, ReplyCountsOnlyOnTheBusOfItsMasterId) {
  const std::uint8_t reply_of_3[8] = {0x03, 0x85, 0x1e, 0x82, 0x87, 0x1c, 0x2d, 0x00};
  Inject(1, Frame(0x10, reply_of_3));  // bus 0's master id, arriving on bus 1
  Inject(0, Frame(0x11, reply_of_3));  // bus 1's master id, arriving on bus 0
  Inject(1, Frame(0x00, reply_of_3));  // the default master id, no longer bus 1's
  scheduler_->Receive(1 * kMs);
  for (std::size_t j = 0; j < kJoints; ++j) {
    EXPECT_EQ(scheduler_->motors()[j].replies, 0u) << config_.joints[j].name;
  }
  Inject(1, Frame(0x11, reply_of_3));  // R_Hip_Yaw's reply to its own master
  Inject(0, Frame(0x10, reply_of_3));  // L_Hip_Yaw's
  scheduler_->Receive(2 * kMs);
  EXPECT_EQ(scheduler_->motors()[8].replies, 1u);
  EXPECT_EQ(scheduler_->motors()[2].replies, 1u);
}

// ---- Motor families, mounting, strays, scans (bring-up) ----

// Bus 0 mixes an AK, a Damiao and a Robstride motor; the Damiao one is reversed with an offset,
// the Robstride one sits behind a 2:1 reduction.
const config::Config& MixedConfig() {
  static const config::Config c = [] {
    config::Config parsed = config::ParseConfig(R"(
motors:
  ak: {family: ak, p_max: 12.5, v_max: 50, t_max: 18, kp_max: 500, kd_max: 5, can_timeout_ms: 100}
  dm: {family: damiao, p_max: 12.5, v_max: 30, t_max: 10, kp_max: 500, kd_max: 5, can_timeout_ms: 100}
  rs: {family: robstride, p_max: 12.57, v_max: 30, t_max: 12, kp_max: 500, kd_max: 5, can_timeout_ms: 100}
buses:
  - {name: leg, interface: vcan0, master_id: 0}
joints:
  - {name: Hip, bus: leg, can_id: 1, motor: ak, min: -1, max: 1, kp: 50, kd: 1, stand: 0}
  - {name: Knee, bus: leg, can_id: 2, motor: dm, min: -1, max: 1, kp: 50, kd: 1, stand: 0, direction: -1, offset: 0.25}
  - {name: Ankle, bus: leg, can_id: 3, motor: rs, min: -1, max: 1, kp: 50, kd: 1, stand: 0, gear_ratio: 0.5}
imu: {bus: leg}
)",
                                                "mixed.yaml");
    const auto problems = config::Validate(parsed);
    if (!problems.empty()) throw std::runtime_error(problems.front());
    return parsed;
  }();
  return c;
}

class MixedSchedulerTest : public SchedulerTest {
 protected:
  MixedSchedulerTest() : SchedulerTest(MixedConfig()) { targets_.resize(3); }
  // Joint j's reply, as its motor would send it (motor space).
  void ReplyFromMotor(std::size_t j, float motor_position, MotorError error = MotorError::kNone) {
    const auto& joint = config_.joints[j];
    MotorReply r;
    r.motor_id = joint.can_id;
    r.position_rad = motor_position;
    r.temperature_c = 41;
    r.error = error;
    Inject(0, EncodeReplyFrame(ProtocolOf(config_.motor_of(j)), 0, r));
  }
};

TEST_F(MixedSchedulerTest, EachMotorIsCommandedInItsFamilysFormatAndInMotorSpace) {
  targets_[0] = {0.5f, 0, 50, 1, 0};
  targets_[1] = {0.5f, 0, 50, 1, 0};  // damiao: -(0.5 - 0.25) = -0.25 in motor space
  targets_[2] = {0.5f, 0, 40, 1, 0};  // robstride: 0.5 / 0.5 = 1.0, kp 40 · 0.25 = 10
  scheduler_->Send(targets_, 0);
  MitCommand sent[3];
  std::size_t found = 0;
  for (const can_frame& f : Sent(0)) {
    HostFrame host;
    for (std::size_t j = 0; j < 3; ++j) {
      std::uint32_t id = 0;
      const MotorProtocol p = ProtocolOf(config_.motor_of(j));
      if (Addressee(p.family, f, &id) && id == config_.joints[j].can_id &&
          DecodeHostFrame(p, f, &host) && host.is_command) {
        sent[j] = host.command;
        ++found;
      }
    }
  }
  ASSERT_EQ(found, 3u);
  EXPECT_NEAR(sent[0].position_rad, 0.5f, 1e-3f);
  EXPECT_NEAR(sent[1].position_rad, -0.25f, 1e-3f);
  EXPECT_NEAR(sent[2].position_rad, 1.0f, 1e-3f);
  EXPECT_NEAR(sent[2].kp, 10.0f, 0.02f);
  EXPECT_NE(Sent(0).back().can_id & CAN_EFF_FLAG, 0u) << "robstride commands are 29-bit frames";
}

TEST_F(MixedSchedulerTest, RepliesOfEveryFamilyLandInJointSpace) {
  ReplyFromMotor(0, 0.3f);
  ReplyFromMotor(1, -0.25f);                       // damiao: -(-0.25) + 0.25 = 0.5 at the joint
  ReplyFromMotor(2, 1.0f, MotorError::kOvertemp);  // robstride: 1.0 · 0.5 = 0.5, overtemperature
  scheduler_->Receive(7);
  const auto m = scheduler_->motors();
  EXPECT_NEAR(m[0].position_rad, 0.3f, 1e-3f);
  EXPECT_NEAR(m[1].position_rad, 0.5f, 1e-3f);
  EXPECT_NEAR(m[2].position_rad, 0.5f, 1e-3f);
  EXPECT_EQ(m[2].error_code, static_cast<std::uint8_t>(MotorError::kOvertemp));
  EXPECT_NEAR(m[1].temperature_c, 41.0f, 0.01f);
  for (const auto& fb : m) EXPECT_EQ(fb.last_reply_us, 7);
}

TEST_F(MixedSchedulerTest, AReplyInAnotherLayoutIsCountedAsMalformedNotDecoded) {
  can_frame f{};
  f.can_id = 0;      // the master id
  f.len = 6;         // a classic AK reply from the Damiao's id: too short for its family
  f.data[0] = 0x12;  // state 1, id 2
  Inject(0, f);
  scheduler_->Receive(1);
  EXPECT_EQ(scheduler_->motors()[1].malformed_replies, 1u);
  EXPECT_EQ(scheduler_->motors()[1].replies, 0u);
}

TEST_F(MixedSchedulerTest, AnAnswerFromAnIdNoJointHasIsAStray) {
  MotorReply r;
  r.motor_id = 9;
  Inject(0, EncodeReplyFrame(ProtocolOf(config_.motor_of(0)), 0, r));  // an AK motor, id 9
  scheduler_->Receive(1);
  ASSERT_EQ(scheduler_->strays(0).size(), 1u);
  EXPECT_EQ(scheduler_->strays(0)[0].motor_id, 9u);
  EXPECT_EQ(scheduler_->strays(0)[0].family, config::MotorFamily::kAk);
}

TEST_F(MixedSchedulerTest, AScanProbesEveryUnconfiguredIdInBothShapesAFewPerTick) {
  scheduler_->StartScan(8);
  std::set<std::uint32_t> standard, extended;
  int ticks = 0;
  while (scheduler_->scanning() && ticks < 100) {
    ClearSent();
    scheduler_->Send(targets_, ticks * 2000);
    std::size_t probes = 0;
    for (const can_frame& f : Sent(0)) {
      HostFrame host;
      const bool eff = (f.can_id & CAN_EFF_FLAG) != 0;
      MotorProtocol p;
      p.family = eff ? config::MotorFamily::kRobstride : config::MotorFamily::kAk;
      std::uint32_t id = 0;
      if (!Addressee(p.family, f, &id) || !DecodeHostFrame(p, f, &host) || host.is_command ||
          host.request != MotorRequest::kDisable) {
        continue;  // commands, and the first tick's enables
      }
      (eff ? extended : standard).insert(id);
      ++probes;
    }
    EXPECT_LE(probes, MotorScheduler::kProbesPerBus);
    ++ticks;
  }
  EXPECT_FALSE(scheduler_->scanning());
  // Ids 1..8 minus the configured ones: 1 (ak) and 2 (damiao) as standard frames, 3 (robstride)
  // as 29-bit ones.
  EXPECT_EQ(standard, (std::set<std::uint32_t>{3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(extended, (std::set<std::uint32_t>{1, 2, 4, 5, 6, 7, 8}));
}

TEST_F(MixedSchedulerTest, SetZeroGoesOutOnceWithTheNextSend) {
  scheduler_->RequestSpecial(2, MotorRequest::kSetZero);
  scheduler_->Send(targets_, 0);
  const MotorProtocol rs = ProtocolOf(config_.motor_of(2));
  auto zeros = [&] {
    int n = 0;
    for (const can_frame& f : Sent(0)) {
      HostFrame host;
      n += DecodeHostFrame(rs, f, &host) && !host.is_command &&
           host.request == MotorRequest::kSetZero;
    }
    return n;
  };
  EXPECT_EQ(zeros(), 1);
  ClearSent();
  scheduler_->Send(targets_, 2000);
  EXPECT_EQ(zeros(), 0);
}

// Damiao (joint 1) and Robstride (joint 2): clear-fault, then enable, in that order, once; the
// joint's command follows in the same batch.
TEST_F(MixedSchedulerTest, ClearFaultIsFollowedByEnableOnceWithTheNextSend) {
  for (std::size_t j : {1u, 2u}) {
    ReplyFromMotor(j, 0.0f, MotorError::kOvercurrent);  // it answers: no enable retry due
    scheduler_->Receive(1000);
    ClearSent();
    scheduler_->RequestSpecial(j, MotorRequest::kClearFault);
    scheduler_->Send(targets_, 1000);
    const MotorProtocol p = ProtocolOf(config_.motor_of(j));
    std::vector<MotorRequest> requests;
    bool command_after = false;
    for (const can_frame& f : Sent(0)) {
      std::uint32_t id = 0;
      HostFrame host;
      if (!Addressee(p.family, f, &id) || id != config_.joints[j].can_id ||
          !DecodeHostFrame(p, f, &host)) {
        continue;
      }
      if (host.is_command) {
        command_after = !requests.empty();
      } else {
        requests.push_back(host.request);
      }
    }
    EXPECT_EQ(requests,
              (std::vector<MotorRequest>{MotorRequest::kClearFault, MotorRequest::kEnable}))
        << "joint " << j;
    EXPECT_TRUE(command_after) << "joint " << j;
    ReplyFromMotor(j, 0.0f);
    scheduler_->Receive(2000);
    ClearSent();
    scheduler_->Send(targets_, 2000);
    for (const can_frame& f : Sent(0)) {
      std::uint32_t id = 0;
      HostFrame host;
      EXPECT_FALSE(Addressee(p.family, f, &id) && id == config_.joints[j].can_id &&
                   DecodeHostFrame(p, f, &host) && !host.is_command)
          << "sent again";
    }
  }
}

}  // namespace
}  // namespace robot_edge::can
