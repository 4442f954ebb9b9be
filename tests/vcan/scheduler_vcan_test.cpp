// The motor scheduler on the robot's five real buses (one SocketCanTransport, the daemon's set-up):
// what a third-party tool (candump) sees on the wire, replies and IMU frames through the kernel
// filter, a down bus in a tick, and the cost of a tick in system calls. Also libsocketcan's view
// of a vcan interface. Runs only inside tests/vcan/run (see vcan_main.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <asio/io_context.hpp>
#include <cstdio>
#include <map>
#include <sstream>
#include <thread>

#include "can/imu_codec.hpp"
#include "can/motor_scheduler.hpp"
#include "can/socketcan/link_supervisor.hpp"
#include "can/socketcan/socketcan_transport.hpp"
#include "config/config.hpp"
#include "config/library_options.hpp"
#include "syscall_count.hpp"
#include "vcan_util.hpp"

namespace robot_edge::can {
namespace {

using std::chrono::milliseconds;
using vcan::DataFrame;
using vcan::Eventually;
using vcan::IpLink;
using vcan::RawSocket;

constexpr int kBuses = 5;

std::vector<std::string> Interfaces(const config::Config& config) {
  std::vector<std::string> names;
  for (const auto& bus : config.buses) names.push_back(bus.interface);
  return names;
}

SocketCanOptions Options(std::vector<std::string> interfaces, std::vector<can_filter> filters) {
  SocketCanOptions options;
  options.interfaces = std::move(interfaces);
  options.filters = std::move(filters);
  return options;
}

// The daemon's side: the default configuration, one transport with ReceiveFilters(), the
// scheduler; and the robot's side: a transport on the same interfaces receiving everything.
struct Robot {
  explicit Robot(asio::io_context& io)
      : config(config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG)),
        transport(io, Options(Interfaces(config), ReceiveFilters(config::WiringOf(config)))),
        scheduler(config::WiringOf(config), transport),
        motors(io, Options(Interfaces(config), {can_filter{0, 0}})) {}

  // Every frame the motors' side receives within the patience, until `count`.
  std::vector<BusFrame> MotorsReceive(std::size_t count) {
    std::vector<BusFrame> got;
    BusFrame buffer[256];
    Eventually([&] {
      const std::size_t n = motors.Receive(buffer);
      got.insert(got.end(), buffer, buffer + n);
      return got.size() >= count;
    });
    return got;
  }

  config::Config config;
  SocketCanTransport transport;
  MotorScheduler scheduler;
  SocketCanTransport motors;
};

class SchedulerVcanTest : public ::testing::Test {
 protected:
  void TearDown() override {
    vcan::WatchDescriptor(-1);
    vcan::RestoreBuses(kBuses);
  }
  asio::io_context io_;  // hosts the sockets; never run (as in the daemon)
};

std::string UpperHex(const std::uint8_t* data, std::size_t len) {
  std::string out;
  char byte[3];
  for (std::size_t i = 0; i < len; ++i) {
    std::snprintf(byte, sizeof(byte), "%02X", data[i]);
    out += byte;
  }
  return out;
}

// candump -L line: "(1700000000.123456) vcan0 001#FFFFFFFFFFFFFFFC" -> {"vcan0", "001#FF..FC"}.
std::optional<std::pair<std::string, std::string>> ParseCandumpLine(const std::string& line) {
  std::istringstream in(line);
  std::string stamp, interface, frame;
  if (!(in >> stamp >> interface >> frame) || stamp.front() != '(') return std::nullopt;
  return std::make_pair(interface, frame);
}

std::vector<MitCommand> DistinctTargets(std::size_t joints) {
  std::vector<MitCommand> targets(joints);
  for (std::size_t j = 0; j < targets.size(); ++j) {
    const float x = static_cast<float>(j);
    targets[j] = {0.05f * x - 0.6f, 1.5f - 0.1f * x, 5.0f * x, 0.2f + 0.1f * x, 0.3f * x - 3.0f};
  }
  return targets;
}

// A third-party tool sees exactly the frames of one scheduler start-up and tick: FC to every
// motor, then one command each, on the right interface, with the codec's bytes.
TEST_F(SchedulerVcanTest, CandumpSeesExactlyWhatTheSchedulerSent) {
  Robot robot(io_);
  std::vector<std::string> argv = {"candump", "-L"};
  for (const auto& bus : robot.config.buses) argv.push_back(bus.interface);
  vcan::Subprocess candump(argv);
  ASSERT_TRUE(candump.started()) << "cannot run candump (install can-utils)";

  // candump is listening once it shows our 0x7FF sync frame on every interface.
  std::vector<BusFrame> sync;
  for (std::uint32_t b = 0; b < robot.config.buses.size(); ++b) {
    sync.push_back({b, DataFrame(0x7FF, {})});
  }
  const auto synced = [&] {
    std::size_t seen = 0;
    for (const auto& bus : robot.config.buses) {
      seen += std::any_of(candump.lines().begin(), candump.lines().end(), [&](const auto& l) {
        const auto parsed = ParseCandumpLine(l);
        return parsed && parsed->first == bus.interface && parsed->second == "7FF#";
      });
    }
    return seen == robot.config.buses.size();
  };
  ASSERT_TRUE(Eventually([&] {
    robot.transport.Send(sync);
    candump.ReadFor(milliseconds(50));
    return synced();
  })) << "candump printed nothing usable; its output:\n"
      << (candump.lines().empty() ? "(none)" : candump.lines().front());
  candump.ReadFor(milliseconds(200));  // late sync lines
  const std::size_t skip = candump.lines().size();

  const std::vector<MitCommand> targets = DistinctTargets(robot.config.joints.size());
  robot.scheduler.EnterMotorMode(0);
  robot.scheduler.Send(targets, 2'000);  // commands only: an FC retry is not due yet

  std::map<std::string, std::vector<std::string>> expected;
  for (std::size_t pass = 0; pass < 2; ++pass) {
    for (std::size_t j = 0; j < robot.config.joints.size(); ++j) {
      const auto& joint = robot.config.joints[j];
      char id[8];
      std::snprintf(id, sizeof(id), "%03X#", joint.can_id);
      const Payload bytes =
          pass == 0 ? EncodeSpecial(SpecialCommand::kEnterMotorMode)
                    : EncodeCommand(targets[j], ProtocolOf(robot.config.motor_of(j)).ranges);
      expected[robot.config.buses[joint.bus].interface].push_back(id + UpperHex(bytes.data(), 8));
    }
  }
  const std::size_t total = 2 * robot.config.joints.size();
  std::map<std::string, std::vector<std::string>> seen;
  const auto count_seen = [&] {
    seen.clear();
    std::size_t n = 0;
    for (std::size_t i = skip; i < candump.lines().size(); ++i) {
      const auto parsed = ParseCandumpLine(candump.lines()[i]);
      if (!parsed || parsed->second == "7FF#") continue;
      seen[parsed->first].push_back(parsed->second);
      ++n;
    }
    return n;
  };
  EXPECT_TRUE(Eventually([&] {
    candump.ReadFor(milliseconds(20));
    return count_seen() >= total;
  })) << count_seen()
      << " of " << total << " frames";
  candump.ReadFor(milliseconds(300));  // nothing more may come
  EXPECT_EQ(count_seen(), total);
  for (const auto& [interface, frames] : expected) {
    EXPECT_EQ(seen[interface], frames) << interface;
  }
  EXPECT_EQ(seen.size(), expected.size());
}

// Motor replies and IMU frames written by other sockets reach the scheduler's feedback through
// the kernel filter of ReceiveFilters() and the transport's per-interface attribution.
TEST_F(SchedulerVcanTest, SchedulerTakesRepliesAndImuFramesFromTheKernel) {
  Robot robot(io_);
  RawSocket motor("vcan1");  // right_leg
  RawSocket imu("vcan4");    // waist_neck
  ASSERT_TRUE(motor.ok() && imu.ok());
  Payload reply;
  EncodeReply({4, 0.5f, 1.0f, -2.0f, 45, 0}, ProtocolOf(robot.config.motors[0]).ranges,
              ReplyLayout::kAk8Byte, &reply);
  ASSERT_TRUE(motor.Write(DataFrame(0, {reply.begin(), reply.end()})));
  const Payload wrong_bus_quat = EncodeImuQuaternion({0.0f, 0.0f, 1.0f, 0.0f});
  ASSERT_TRUE(motor.Write(DataFrame(0x101, {wrong_bus_quat.begin(), wrong_bus_quat.end()})));
  const Payload quat = EncodeImuQuaternion({0.0f, 1.0f, 0.0f, 0.0f});
  ASSERT_TRUE(imu.Write(DataFrame(0x101, {quat.begin(), quat.end()})));
  std::int64_t now_us = 0;
  EXPECT_TRUE(Eventually([&] {
    robot.scheduler.Receive(++now_us);
    return robot.scheduler.motors()[9].replies == 1 && robot.scheduler.imu().last_quat_us >= 0;
  }));
  const MotorFeedback& knee = robot.scheduler.motors()[9];  // R_Knee: right_leg, id 4
  EXPECT_NEAR(knee.position_rad, 0.5f, 25.0f / 65535);
  EXPECT_NEAR(knee.torque_nm, -2.0f, 36.0f / 4095);
  EXPECT_EQ(knee.temperature_c, 45.0f);
  std::this_thread::sleep_for(milliseconds(100));  // the wrong-bus quaternion, had it counted
  robot.scheduler.Receive(++now_us);
  EXPECT_FLOAT_EQ(robot.scheduler.imu().quat_wxyz[1], 1.0f) << "only vcan4's IMU frame counts";
  EXPECT_FLOAT_EQ(robot.scheduler.imu().quat_wxyz[2], 0.0f);
  EXPECT_EQ(robot.scheduler.motors()[3].replies, 0u) << "L_Knee (left_leg, id 4) got nothing";
}

// A tick with right_leg's interface down: its six commands fail, the other 19 go out in the same
// Send(), on their interfaces.
TEST_F(SchedulerVcanTest, TickWithADownBusStillReachesTheOtherBuses) {
  Robot robot(io_);
  const std::vector<MitCommand> targets = DistinctTargets(robot.config.joints.size());
  robot.scheduler.EnterMotorMode(0);  // so that the tick sends commands only (no FC retry due)
  ASSERT_EQ(robot.MotorsReceive(robot.config.joints.size()).size(), robot.config.joints.size());
  ASSERT_EQ(IpLink("set vcan1 down"), 0);
  robot.scheduler.Send(targets, 2'000);
  EXPECT_EQ(robot.transport.counters(1).send_failures.load(), 6u);
  EXPECT_FALSE(robot.transport.counters(1).link_up.load());
  const std::vector<BusFrame> got = robot.MotorsReceive(robot.config.joints.size() - 6);
  ASSERT_EQ(got.size(), robot.config.joints.size() - 6);
  std::map<std::uint32_t, std::vector<can_frame>> by_bus;
  for (const BusFrame& f : got) by_bus[f.bus].push_back(f.frame);
  EXPECT_EQ(by_bus.count(1), 0u);
  for (std::size_t j = 0; j < robot.config.joints.size(); ++j) {
    const auto& joint = robot.config.joints[j];
    if (joint.bus == 1) continue;
    auto& frames = by_bus[static_cast<std::uint32_t>(joint.bus)];
    const Payload want = EncodeCommand(targets[j], ProtocolOf(robot.config.motor_of(j)).ranges);
    ASSERT_FALSE(frames.empty()) << joint.name;
    EXPECT_EQ(frames.front().can_id, joint.can_id) << joint.name;
    EXPECT_TRUE(std::equal(want.begin(), want.end(), frames.front().data)) << joint.name;
    frames.erase(frames.begin());
  }
}

// What the single socket is for: a control tick (Receive the replies of every bus, Send the
// commands of every bus) is one recvmmsg and one sendmmsg, nothing else; shutdown is two
// sendmmsg (DAMP, then FD). Counted in this process by syscall_count.cpp.
TEST_F(SchedulerVcanTest, TickIsOneRecvmmsgAndOneSendmmsgForAllFiveBuses) {
  Robot robot(io_);
  const int fd = robot.transport.socket().native_handle();
  const std::size_t joints = robot.config.joints.size();

  vcan::WatchDescriptor(fd);
  robot.scheduler.EnterMotorMode(0);
  vcan::SyscallCounts counts = vcan::Counts();
  EXPECT_EQ(counts.sendmmsg, 1u);
  EXPECT_EQ(counts.other_sends, 0u);
  ASSERT_EQ(robot.MotorsReceive(joints).size(), joints);

  // Every motor's reply, and the IMU's, waiting on the five interfaces.
  std::vector<BusFrame> replies;
  for (std::size_t j = 0; j < joints; ++j) {
    const auto& joint = robot.config.joints[j];
    Payload payload;
    EncodeReply({static_cast<std::uint8_t>(joint.can_id), 0.1f, 0, 0, 40, 0},
                ProtocolOf(robot.config.motor_of(j)).ranges, ReplyLayout::kAk8Byte, &payload);
    replies.push_back(
        {static_cast<std::uint32_t>(joint.bus),
         DataFrame(robot.config.buses[joint.bus].master_id, {payload.begin(), payload.end()})});
  }
  const Payload quat = EncodeImuQuaternion({1, 0, 0, 0});
  replies.push_back({static_cast<std::uint32_t>(robot.config.imu.bus),
                     DataFrame(robot.config.imu.quat_id, {quat.begin(), quat.end()})});
  ASSERT_EQ(robot.motors.Send(replies), replies.size());
  std::this_thread::sleep_for(milliseconds(300));  // all of them queued at the daemon's socket

  vcan::WatchDescriptor(fd);
  robot.scheduler.Receive(2'000);
  robot.scheduler.Send(std::vector<MitCommand>(joints), 2'000);
  counts = vcan::Counts();
  EXPECT_EQ(counts.recvmmsg, 1u);
  EXPECT_EQ(counts.sendmmsg, 1u);
  EXPECT_EQ(counts.other_sends, 0u);
  for (std::size_t j = 0; j < joints; ++j) {
    EXPECT_EQ(robot.scheduler.motors()[j].replies, 1u) << robot.config.joints[j].name;
  }
  EXPECT_EQ(robot.scheduler.imu().last_quat_us, 2'000);
  EXPECT_EQ(robot.MotorsReceive(joints).size(), joints);

  vcan::WatchDescriptor(fd);
  robot.scheduler.SendDampThenExit(std::vector<MitCommand>(joints));
  counts = vcan::Counts();
  EXPECT_EQ(counts.sendmmsg, 2u);
  EXPECT_EQ(counts.other_sends, 0u);
  EXPECT_EQ(robot.MotorsReceive(2 * joints).size(), 2 * joints);
}

// libsocketcan on vcan: no CAN controller attributes. Detected once, no start-up error.
TEST_F(SchedulerVcanTest, ControllerOnVcanIsUnsupportedNotAnError) {
  EXPECT_EQ(LibSocketCan().Probe("vcan0"), CanNetlink::Link::kNotCan);
  EXPECT_EQ(LibSocketCan().Probe("vcan9"), CanNetlink::Link::kAbsent);
  config::BusConfig bus;
  bus.interface = "vcan0";
  bus.bitrate = 1'000'000;
  bus.restart_ms = 0;
  CanLink controller("vcan0", bus);
  EXPECT_EQ(controller.Configure(), CanLink::ConfigureResult::kUnsupported);
  EXPECT_EQ(controller.support(), ControllerSupport::kUnsupported);
  EXPECT_FALSE(controller.Poll().has_value());
  EXPECT_EQ(controller.MaybeRestart(0), CanLink::RestartResult::kNotNeeded);
  // The bus itself is untouched: still up, still carrying frames.
  SocketCanTransport a(io_, Options({"vcan0"}, {}));
  SocketCanTransport b(io_, Options({"vcan0"}, {can_filter{0, 0}}));
  ASSERT_EQ(a.Send(std::vector<BusFrame>{{0, DataFrame(0x5, {5})}}), 1u);
  BusFrame got[4];
  EXPECT_TRUE(Eventually([&] { return b.Receive(got) == 1; }));

  CanLink absent("vcan9", bus);
  EXPECT_THROW(absent.Configure(), std::system_error);
  EXPECT_EQ(absent.support(), ControllerSupport::kAbsent);
}

}  // namespace
}  // namespace robot_edge::can
