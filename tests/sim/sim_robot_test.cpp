// SimRobot: frames routed to the motor with their id on their bus, replies to the bus's master id,
// the control commands that act on the model, the status line, and the shipped config.
#include "sim/sim_robot.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "../can/hex.hpp"
#include "can/bms_codec.hpp"
#include "can/imu_codec.hpp"
#include "sim/bus_driver.hpp"
#include "sim/canned_replies.hpp"
#include "sim/in_memory_robot.hpp"
#include "sim_test_util.hpp"

namespace robot_edge::sim {
namespace {

using can::test::Hexify;

constexpr std::int64_t kMs = 1000;

can_frame Frame(canid_t id, const can::Payload& data, std::uint8_t len = 8) {
  can_frame f{};
  f.can_id = id;
  f.len = len;
  std::copy(data.begin(), data.begin() + len, f.data);
  return f;
}

ControlCommand Command(const config::Config& config, std::string_view line) {
  const ParseResult r = ParseControlLine(line, config);
  EXPECT_TRUE(r.command.has_value()) << r.error;
  return r.command.value_or(ControlCommand{});
}

class SimRobotTest : public ::testing::Test {
 protected:
  // Every motor of bus `bus` in motor mode; replies discarded.
  void EnterMotorMode(std::size_t bus, std::int64_t now_us) {
    std::vector<can_frame> frames;
    for (const auto& joint : config_.joints) {
      if (joint.bus == bus) frames.push_back(Frame(joint.can_id, test::Fc()));
    }
    std::vector<can_frame> replies;
    robot_.OnFrames(bus, frames, now_us, &replies);
  }
  // The single reply of `frame` on `bus`.
  can_frame Exchange(std::size_t bus, const can_frame& frame, std::int64_t now_us) {
    std::vector<can_frame> replies;
    robot_.OnFrames(bus, std::span<const can_frame>(&frame, 1), now_us, &replies);
    EXPECT_EQ(replies.size(), 1u);
    return replies.empty() ? can_frame{} : replies[0];
  }
  std::string Execute(std::string_view line, std::int64_t now_us = 0) {
    return robot_.Execute(Command(config_, line), now_us);
  }

  config::Config config_ = test::SmallConfig();
  SimRobot robot_{config_};
};

TEST_F(SimRobotTest, RoutesFramesByIdAndRepliesToTheMasterId) {
  const std::vector<can_frame> frames = {Frame(2, test::Fc()), Frame(9, test::Fc()),
                                         Frame(1, test::Fc())};
  std::vector<can_frame> replies;
  robot_.OnFrames(0, frames, 0, &replies);
  ASSERT_EQ(replies.size(), 2u);  // id 9 is nobody
  EXPECT_EQ(replies[0].can_id, 0u);
  EXPECT_EQ(replies[0].data[0], 2);
  EXPECT_EQ(replies[1].data[0], 1);
  EXPECT_EQ(replies[1].len, 8);
  EXPECT_EQ(robot_.totals().frames, 3u);
  EXPECT_EQ(robot_.totals().replies, 2u);
  EXPECT_EQ(robot_.totals().ignored, 1u);
  EXPECT_TRUE(robot_.motor(0).state().motor_mode);
  EXPECT_TRUE(robot_.motor(1).state().motor_mode);
  EXPECT_FALSE(robot_.motor(2).state().motor_mode);  // id 1 on the other bus
}

TEST_F(SimRobotTest, EachBusHasItsOwnMotorsMasterIdAndLayout) {
  const can_frame reply = Exchange(1, Frame(1, test::Fc()), 0);
  EXPECT_EQ(reply.can_id, 0x7Fu);
  EXPECT_EQ(Hexify(reply.data, reply.len), "018000800800");  // Elbow: classic, 6 bytes
  EXPECT_TRUE(robot_.motor(2).state().motor_mode);
  EXPECT_FALSE(robot_.motor(0).state().motor_mode);
}

TEST_F(SimRobotTest, IgnoresExtendedRemoteAndErrorFrames) {
  std::vector<can_frame> replies;
  const std::vector<can_frame> frames = {Frame(1 | CAN_EFF_FLAG, test::Fc()),
                                         Frame(1 | CAN_RTR_FLAG, test::Fc()),
                                         Frame(1 | CAN_ERR_FLAG, test::Fc())};
  robot_.OnFrames(0, frames, 0, &replies);
  EXPECT_TRUE(replies.empty());
  EXPECT_FALSE(robot_.motor(0).state().motor_mode);
}

TEST_F(SimRobotTest, DoesNotAllocateWithReservedReplies) {
  std::vector<can_frame> replies;
  replies.reserve(64);
  const can_frame* storage = replies.data();
  const std::vector<can_frame> frames(40, Frame(1, test::Fc()));
  robot_.OnFrames(0, frames, 0, &replies);
  EXPECT_EQ(replies.size(), 40u);
  EXPECT_EQ(replies.data(), storage);
}

TEST_F(SimRobotTest, FaultInjectionShowsInTheReplies) {
  EnterMotorMode(0, 0);
  EXPECT_EQ(Execute("temp Knee 91"), "ok");
  EXPECT_EQ(Execute("fault Knee 1"), "ok");
  can_frame reply = Exchange(0, Frame(1, test::Fc()), 1 * kMs);
  EXPECT_EQ(reply.data[6], 91);
  EXPECT_EQ(reply.data[7], 1);
  EXPECT_EQ(Execute("fault 0 0"), "ok");
  EXPECT_EQ(Execute("temp 0 release"), "ok");
  reply = Exchange(0, Frame(1, test::Fc()), 2 * kMs);
  EXPECT_EQ(reply.data[7], 0);
  EXPECT_FALSE(robot_.motor(0).state().temperature_pinned);

  EXPECT_EQ(Execute("silence Hip on"), "ok");
  std::vector<can_frame> replies;
  const can_frame fc = Frame(2, test::Fc());
  robot_.OnFrames(0, std::span<const can_frame>(&fc, 1), 3 * kMs, &replies);
  EXPECT_TRUE(replies.empty());
  EXPECT_EQ(Execute("silence Hip off"), "ok");
  robot_.OnFrames(0, std::span<const can_frame>(&fc, 1), 4 * kMs, &replies);
  EXPECT_EQ(replies.size(), 1u);
}

TEST_F(SimRobotTest, TiltAndImuSwitch) {
  EXPECT_EQ(Execute("tilt 0 90"), "ok");
  EXPECT_NEAR(TiltFromUprightDeg(robot_.plant().imu().quaternion), 90, 1e-4);
  EXPECT_EQ(Hexify(robot_.ImuFrames()[0].data, 8),
            "825a0000825a0000");  // w = y = 0.7071 = 23170/32767
  EXPECT_EQ(Execute("imu off"), "ok");
  EXPECT_FALSE(robot_.imu().enabled());
  EXPECT_EQ(Execute("imu on"), "ok");
  EXPECT_TRUE(robot_.imu().enabled());
  EXPECT_EQ(robot_.imu_bus(), 1u);
}

TEST_F(SimRobotTest, GetDescribesOneMotor) {
  EnterMotorMode(0, 0);
  const can_frame cmd = Frame(1, can::EncodeCommand({0.5f, 0, 50, 1, 0}, {}));
  for (std::int64_t t = 0; t < 500 * kMs; t += 2 * kMs) Exchange(0, cmd, t);
  const std::string line = Execute("get Knee", 500 * kMs);
  EXPECT_EQ(line.rfind("ok joint=Knee position_rad=0.5", 0), 0u) << line;
  EXPECT_NE(line.find(" motor_mode=1 active=1 error=0 commands=250 replies=251 "),
            std::string::npos)
      << line;
  EXPECT_NE(line.find(" temperature_c=25."), std::string::npos) << line;
}

TEST_F(SimRobotTest, StatusLineAndRates) {
  EnterMotorMode(0, 0);  // 2 frames, 2 replies
  Execute("temp Hip 70");
  Execute("fault Elbow 3");
  Execute("silence Knee on");
  robot_.UpdateRates(500 * kMs);  // over half a second
  EXPECT_EQ(robot_.StatusLine(),
            "motor_mode=2/3 active=0 silenced=1 faults=1 frames/s=4 replies/s=4 "
            "hottest=Hip:70.0C imu=on tilt=0.0 physics=kinematic lagged_ms=0 battery=none");
  robot_.UpdateRates(1500 * kMs);  // nothing since
  EXPECT_NE(robot_.StatusLine().find(" frames/s=0 replies/s=0 "), std::string::npos);
  EXPECT_EQ(Execute("status").rfind("ok motor_mode=2/3 ", 0), 0u);
}

TEST_F(SimRobotTest, RecordReportsPeakTorqueAndLimitHitsThenStartsAnew) {
  EnterMotorMode(0, 0);
  // Knee (limits -1..2 rad) driven past its upper limit, back, and past it again.
  std::int64_t t = 0;
  for (const float target : {2.3f, 0.0f, 2.3f}) {
    const can_frame cmd = Frame(1, can::EncodeCommand({target, 0, 5, 1, 0}, {}));
    for (const std::int64_t end = t + 3000 * kMs; t < end; t += 2 * kMs) Exchange(0, cmd, t);
  }
  const std::string line = Execute("record", t);
  // The first command's torque: about kp 5 × 2.3 rad = 11.5 N·m (not clamped: t_max 18), less
  // what the knee moved in the step before the torque is read; two entries into the limit.
  EXPECT_EQ(line.rfind("ok Knee=11.", 0), 0u) << line;
  EXPECT_NE(line.find("/2 Hip=0.00/0 Elbow=0.00/0"), std::string::npos) << line;
  // Resting at the limit is not a new hit; the peak counts from the previous record.
  const std::string again = Execute("record", t + 100 * kMs);
  EXPECT_EQ(again.rfind("ok Knee=", 0), 0u) << again;
  EXPECT_NE(again.find("/0 Hip="), std::string::npos) << again;
  EXPECT_LT(std::stod(again.substr(8)), 2.0) << again;
}

TEST_F(SimRobotTest, PhysicsCommandsNeedThePhysicsBackend) {
  EXPECT_EQ(Execute("gantry 1.0"),
            "error: the gantry needs the physics backend (this one is kinematic)");
  EXPECT_EQ(Execute("push torso 100 0 0 0.1"),
            "error: push needs the physics backend (this one is kinematic)");
  EXPECT_EQ(Execute("truth"), "error: no ground truth in the kinematic backend");
  EXPECT_EQ(Execute("qpos"), "error: no generalized positions in the kinematic backend");
}

TEST_F(SimRobotTest, PhysicsThatFallsBehindSkipsAheadAndCountsIt) {
  robot_.AdvanceAll(10 * kMs);
  EXPECT_EQ(robot_.totals().steps, 20u);  // 0.5 ms steps
  EXPECT_EQ(robot_.totals().lagged_us, 0);
  robot_.AdvanceAll(1010 * kMs);  // a second without a call: only the last kMaxLagUs is stepped
  EXPECT_EQ(robot_.totals().lagged_us, 1000 * kMs - SimRobot::kMaxLagUs);
  EXPECT_EQ(robot_.totals().steps, 20u + SimRobot::kMaxLagUs / 500);
}

TEST_F(SimRobotTest, HelpAndBusCommands) {
  EXPECT_EQ(Execute("help").rfind("ok commands: temp JOINT", 0), 0u);
  // Bus commands are executed by the simulator, which owns the sockets.
  EXPECT_EQ(Execute("busoff leg"), "error: not a robot command");
}

TEST_F(SimRobotTest, AMotorMountedElsewhereReadsItsOwnPositionNotTheJoints) {
  EnterMotorMode(0, 0);
  // Knee's motor reversed with a 0.3 rad offset: at the joint's true 0 it reads -(0 - 0.3) = 0.3.
  EXPECT_EQ(Execute("mount Knee 0.3 -1", 1 * kMs), "ok");
  const can_frame reply = Exchange(0, Frame(1, test::Fc()), 2 * kMs);
  can::MitReply r;
  ASSERT_TRUE(can::DecodeReply(std::span<const std::uint8_t>(reply.data, reply.len),
                               robot_.motor(0).params().protocol.ranges, can::ReplyLayout::kAk8Byte,
                               &r));
  EXPECT_NEAR(r.position_rad, 0.3f, 1e-3f);
  EXPECT_NEAR(robot_.motor(0).state().joint_position_rad, 0.0, 1e-9);
  EXPECT_NE(Execute("get Knee").find("joint_position_rad=0.0000"), std::string::npos);
}

// The IMU's frames with imu.accel_id (the shipped config's 0x103) and without (SmallConfig).
TEST(SimRobotImu, TheAccelerometerFrameIsSentWhenConfigured) {
  EXPECT_EQ(SimRobot(test::SmallConfig()).ImuFrames().size(), 2u);

  const config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  ASSERT_EQ(c.imu.accel_id, 0x103u);
  SimRobot robot(c);
  const ImuFrameSet frames = robot.ImuFrames();
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[2].can_id, 0x103u);
  std::array<float, 3> accel{};
  ASSERT_TRUE(can::DecodeImuAccel(std::span(frames[2].data, frames[2].len), &accel));
  EXPECT_FLOAT_EQ(accel[0], 0.0f);
  EXPECT_FLOAT_EQ(accel[1], 0.0f);
  EXPECT_FLOAT_EQ(accel[2], 9.81f) << "upright at rest";
}

// The robot doubles of the daemon's tests and benchmarks send it too, on the IMU's bus.
TEST(SimRobotImu, TheRobotDoublesSendTheAccelerometerFrame) {
  const config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  InMemoryRobot in_memory(c);
  in_memory.Answer(0);
  std::vector<can::BusFrame> received(64);
  received.resize(in_memory.transport().Receive(received));
  std::vector<canid_t> imu_ids;
  for (const can::BusFrame& f : received) {
    if (f.bus == c.imu.bus && f.frame.can_id != c.battery.can_id) {
      imu_ids.push_back(f.frame.can_id);
    }
  }
  EXPECT_EQ(imu_ids, (std::vector<canid_t>{0x101, 0x102, 0x103}));

  const CannedReplies canned(c);
  ASSERT_EQ(canned.imu().size(), 3u);
  const can::BusFrame& accel = canned.imu()[2];
  EXPECT_EQ(accel.bus, c.imu.bus);
  EXPECT_EQ(accel.frame.can_id, 0x103u);
  EXPECT_EQ(Hexify(std::span(accel.frame.data, accel.frame.len)), "00000000d503");
  EXPECT_EQ(CannedReplies(test::SmallConfig()).imu().size(), 2u);
}

// ---- The battery's BMS (battery.source can) ----

// SmallConfig with a BMS on the leg bus.
config::Config WithBms() {
  config::Config c = test::SmallConfig();
  c.battery.source = config::BatteryConfig::Source::kCan;
  c.battery.bus_name = "leg";
  c.battery.bus = 0;
  c.battery.can_id = 0x180;
  EXPECT_TRUE(config::Validate(c).empty());
  return c;
}

can::BmsReading DecodeBms(const can_frame& f) {
  can::BmsReading r;
  EXPECT_TRUE(can::DecodeBms(std::span<const std::uint8_t>(f.data, f.len), &r));
  return r;
}

TEST_F(SimRobotTest, WithoutABmsTheBatteryCommandsAreRefused) {
  EXPECT_FALSE(robot_.has_bms());
  EXPECT_EQ(Execute("battery 50"), "error: no simulated BMS (battery.source is not can)");
  EXPECT_EQ(Execute("battery off"), "error: no simulated BMS (battery.source is not can)");
}

TEST(SimRobotBattery, TheShippedConfigHasABmsOnTheWaistNeckBus) {
  const config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  const SimRobot robot(c);
  ASSERT_TRUE(robot.has_bms());
  EXPECT_EQ(robot.battery_bus(), 4u);
  const can_frame f = robot.BatteryFrame();
  EXPECT_EQ(f.can_id, 0x180u);
  const can::BmsReading r = DecodeBms(f);
  EXPECT_FLOAT_EQ(r.percent, 80.0f);
  EXPECT_NEAR(r.voltage_v, 48.72f, 0.005f);
  EXPECT_NE(robot.StatusLine().find(" battery=80.0%"), std::string::npos) << robot.StatusLine();
}

TEST(SimRobotBattery, FaultInjectionSetsTheChargeAndStopsTheFrames) {
  const config::Config c = WithBms();
  SimRobot robot(c);
  EXPECT_EQ(robot.Execute(Command(c, "battery 15"), 0), "ok");
  EXPECT_FLOAT_EQ(DecodeBms(robot.BatteryFrame()).percent, 15.0f);
  EXPECT_NE(robot.StatusLine().find(" battery=15.0%"), std::string::npos);
  EXPECT_EQ(robot.Execute(Command(c, "battery off"), 0), "ok");
  EXPECT_FALSE(robot.battery().enabled());
  EXPECT_NE(robot.StatusLine().find(" battery=off"), std::string::npos);
  EXPECT_EQ(robot.Execute(Command(c, "battery on"), 0), "ok");
  EXPECT_TRUE(robot.battery().enabled());
}

// The pack drains by the idle current over physics time, and faster when a motor works.
TEST(SimRobotBattery, WorkingMotorsDrainThePackFaster) {
  const config::Config c = WithBms();
  SimRobot idle(c), working(c);
  std::vector<can_frame> replies;
  replies.reserve(8);
  const can_frame fc = Frame(1, test::Fc());
  working.OnFrames(0, std::span<const can_frame>(&fc, 1), 0, &replies);
  // Knee swung between ±0.8 rad against friction: positive mechanical work every swing.
  for (std::int64_t t = 0; t < 60'000 * kMs; t += 2 * kMs) {
    const float target = (t / (500 * kMs)) % 2 ? 0.8f : -0.8f;
    const can_frame cmd = Frame(1, can::EncodeCommand({target, 0, 100, 1, 0}, {}));
    replies.clear();
    working.OnFrames(0, std::span<const can_frame>(&cmd, 1), t, &replies);
    idle.AdvanceAll(t);  // (in steps: physics more than kMaxLagUs behind is skipped)
  }
  // A minute idle: 1.5 A × ~48.7 V = 73 W, 1.22 Wh of 1000: 0.122 %.
  EXPECT_NEAR(idle.battery().percent(), 80.0 - 0.122, 0.002);
  EXPECT_LT(working.battery().percent(), idle.battery().percent() - 0.001)
      << "working " << working.battery().percent() << " idle " << idle.battery().percent();
}

// The in-memory robot of the daemon's tests sends the BMS frame at 10 Hz on the battery's bus.
TEST(SimRobotBattery, TheInMemoryRobotSendsTheBmsFrameEvery100Ms) {
  const config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  InMemoryRobot in_memory(c);
  std::vector<can::BusFrame> received(64);
  std::vector<std::int64_t> at_us;
  for (std::int64_t t = 0; t < 300 * kMs; t += 2 * kMs) {
    in_memory.Answer(t);
    const std::size_t n = in_memory.transport().Receive(received);
    for (std::size_t i = 0; i < n; ++i) {
      if (received[i].frame.can_id == 0x180) {
        EXPECT_EQ(received[i].bus, c.battery.bus);
        at_us.push_back(t);
      }
    }
  }
  EXPECT_EQ(at_us, (std::vector<std::int64_t>{0, 100 * kMs, 200 * kMs}));
  in_memory.robot().Execute(Command(c, "battery off"), 300 * kMs);
  in_memory.Answer(300 * kMs);
  const std::size_t n = in_memory.transport().Receive(received);
  for (std::size_t i = 0; i < n; ++i) EXPECT_NE(received[i].frame.can_id, 0x180u);
}

TEST(SimRobotMissingAndExtra, AMissingMotorIsSilentAndAnExtraOneAnswers) {
  config::Config c = test::SmallConfig();
  c.sim.missing = {"Hip"};
  c.sim.extra_motors.push_back({"leg", 0, "ak", 0, 7});
  SimRobot robot(c);
  std::vector<can_frame> replies;
  const std::vector<can_frame> frames = {Frame(2, test::Fc()), Frame(7, test::Fc()),
                                         Frame(1, test::Fc())};
  robot.OnFrames(0, frames, 0, &replies);
  ASSERT_EQ(replies.size(), 2u);  // Hip (id 2) is absent
  EXPECT_EQ(replies[0].data[0], 7);
  EXPECT_EQ(replies[1].data[0], 1);
  bool passes_7 = false;
  for (const can_filter& f : robot.ReceiveFilters())
    passes_7 |= (7 & f.can_mask) == (f.can_id & f.can_mask);
  EXPECT_TRUE(passes_7) << "the kernel filter must let the extra motor's frames through";
}

TEST(SimRobotDefaultConfig, StartsAtRestInsideEveryJointLimit) {
  const config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  SimRobot robot(c);
  ASSERT_EQ(robot.joint_count(), 25u);
  robot.AdvanceAll(1'000'000);
  for (std::size_t j = 0; j < c.joints.size(); ++j) {
    const SimMotorState s = robot.motor(j).state();
    EXPECT_EQ(s.position_rad, 0.0) << c.joints[j].name;
    EXPECT_GE(s.position_rad, c.joints[j].min_rad) << c.joints[j].name;
    EXPECT_LE(s.position_rad, c.joints[j].max_rad) << c.joints[j].name;
    EXPECT_EQ(s.velocity_rad_s, 0.0);
    EXPECT_DOUBLE_EQ(s.temperature_c, c.sim.ambient_c);
    EXPECT_FALSE(s.motor_mode);
  }
  // One exact standard-id filter per motor id in use on any bus: ids 1..6.
  std::vector<std::uint32_t> ids;
  for (const can_filter& f : robot.ReceiveFilters()) ids.push_back(f.can_id);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::uint32_t>{1, 2, 3, 4, 5, 6}));
}

TEST(BusDriver, StandsEveryMotorThroughItsFramesAndCountsTheReplies) {
  const config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  BusDriver d(c, std::make_unique<KinematicPlant>(c));
  EXPECT_EQ(d.replies(), c.joints.size());  // motor mode, each motor answering
  d.Run(3'000'000);
  EXPECT_EQ(d.now_us(), 3'000'000);
  EXPECT_EQ(d.replies(), c.joints.size() * (1 + 1500));
  for (std::size_t j = 0; j < c.joints.size(); ++j) {
    EXPECT_NEAR(d.robot().motor(j).state().position_rad, c.joints[j].stand_rad, 0.02)
        << c.joints[j].name;
  }
  d.Damp();
  d.Run(10 * kMs);
  EXPECT_EQ(d.Execute("bogus").rfind("error: unknown command", 0), 0u);
  EXPECT_EQ(d.Execute("get 0").rfind("ok joint=", 0), 0u);
}

}  // namespace
}  // namespace robot_edge::sim
