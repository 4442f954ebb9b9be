// The CAN layer on real Linux vcan interfaces (kernel CAN_RAW, filters, error frames, link
// changes, drop counting), and what a third-party tool (candump) sees on the wire. Runs only
// inside tests/vcan/run, which provides vcan0..vcan4 in a private network (a network namespace
// or a user-mode Linux kernel); anywhere else it fails and says so.
#include <gtest/gtest.h>
#include <linux/can/error.h>

#include <algorithm>
#include <asio/io_context.hpp>
#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include "can/controller.hpp"
#include "can/imu_codec.hpp"
#include "can/motor_scheduler.hpp"
#include "can/socketcan_bus.hpp"
#include "config/config.hpp"
#include "vcan_util.hpp"

namespace robot_edge::can {
namespace {

using std::chrono::milliseconds;
using vcan::Clock;
using vcan::DataFrame;
using vcan::ErrorFrame;
using vcan::Eventually;
using vcan::IpLink;
using vcan::RawSocket;

constexpr int kBuses = 5;

can_filter AcceptAll() { return can_filter{0, 0}; }

SocketCanOptions Options(std::string interface, std::vector<can_filter> filters) {
  SocketCanOptions options;
  options.interface = std::move(interface);
  options.filters = std::move(filters);
  return options;
}

std::string Describe(const can_frame& f) {
  char text[64];
  std::snprintf(text, sizeof(text), "%08x [%u]", f.can_id, f.len);
  std::string out = text;
  for (int i = 0; i < f.len; ++i) {
    std::snprintf(text, sizeof(text), " %02x", f.data[i]);
    out += text;
  }
  return out;
}

bool SameFrame(const can_frame& a, const can_frame& b) {
  return a.can_id == b.can_id && a.len == b.len && std::equal(a.data, a.data + a.len, b.data);
}

class VcanTest : public ::testing::Test {
 protected:
  void TearDown() override { vcan::RestoreBuses(kBuses); }

  // Takes frames from `bus` until `count` have arrived or the patience runs out.
  static std::vector<can_frame> ReceiveFrames(Bus& bus, std::size_t count,
                                              milliseconds patience = vcan::kPatience) {
    std::vector<can_frame> got;
    can_frame buffer[256];
    Eventually(
        [&] {
          const std::size_t n = bus.Receive(buffer);
          got.insert(got.end(), buffer, buffer + n);
          return got.size() >= count;
        },
        patience);
    return got;
  }

  asio::io_context io_;  // hosts the sockets; never run (as in the daemon)
};

std::vector<can_frame> NumberedFrames(std::size_t count, canid_t first_id) {
  std::vector<can_frame> frames;
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<std::uint8_t> data(i % 9);
    for (std::size_t k = 0; k < data.size(); ++k) data[k] = static_cast<std::uint8_t>(i + k);
    frames.push_back(DataFrame(first_id + static_cast<canid_t>(i), data));
  }
  return frames;
}

// 200 frames in one Send(): several sendmmsg batches of kMaxBatch (64); the receiver takes them
// in order with batched recvmmsg, more than one batch per Receive() call.
TEST_F(VcanTest, BatchesCrossTheKernelInOrderBothWays) {
  SocketCanBus a(io_, Options("vcan0", {AcceptAll()}));
  SocketCanBus b(io_, Options("vcan0", {AcceptAll()}));
  const std::vector<can_frame> to_b = NumberedFrames(200, 0x100);
  ASSERT_GT(to_b.size(), 3 * SocketCanBus::kMaxBatch);
  EXPECT_EQ(a.Send(to_b), to_b.size());
  EXPECT_EQ(a.counters().frames_sent.load(), 200u);
  EXPECT_EQ(a.counters().send_failures.load(), 0u);

  std::this_thread::sleep_for(milliseconds(200));  // all of them queued at b
  can_frame first_call[256];
  const std::size_t n = b.Receive(first_call);
  EXPECT_EQ(n, 200u) << "one Receive() takes every waiting frame, over several recvmmsg calls";
  std::vector<can_frame> got(first_call, first_call + n);
  const std::vector<can_frame> rest = ReceiveFrames(b, 200 - n);
  got.insert(got.end(), rest.begin(), rest.end());
  ASSERT_EQ(got.size(), to_b.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(SameFrame(got[i], to_b[i]))
        << i << ": " << Describe(got[i]) << " sent " << Describe(to_b[i]);
  }
  EXPECT_EQ(b.counters().frames_received.load(), 200u);
  can_frame none[4];
  EXPECT_EQ(a.Receive(none), 0u) << "a socket does not receive its own frames";

  const std::vector<can_frame> to_a = NumberedFrames(150, 0x400);
  EXPECT_EQ(b.Send(to_a), to_a.size());
  const std::vector<can_frame> back = ReceiveFrames(a, to_a.size());
  ASSERT_EQ(back.size(), to_a.size());
  for (std::size_t i = 0; i < back.size(); ++i) {
    ASSERT_TRUE(SameFrame(back[i], to_a[i])) << i << ": " << Describe(back[i]);
  }
}

TEST_F(VcanTest, KernelFilterDropsIdsNotAskedFor) {
  SocketCanBus rx(io_, Options("vcan0", {ExactStandardId(0x000), ExactStandardId(0x101)}));
  SocketCanBus nothing(io_, Options("vcan0", {}));  // empty filter: no data frames at all
  SocketCanBus tx(io_, Options("vcan0", {}));
  const std::vector<can_frame> frames = {
      DataFrame(0x000, {1}),
      DataFrame(0x001, {2}),
      DataFrame(0x101, {3}),
      DataFrame(0x102, {4}),
      DataFrame(0x100, {5}),
      DataFrame(CAN_EFF_FLAG | 0x101, {6}),  // extended id with the same number
      DataFrame(CAN_EFF_FLAG | 0x000, {7}),
      DataFrame(CAN_RTR_FLAG | 0x101, {}),  // remote frame
      DataFrame(0x000, {0xEE}),             // the last one
  };
  ASSERT_EQ(tx.Send(frames), frames.size());
  std::vector<can_frame> got = ReceiveFrames(rx, 3);
  std::this_thread::sleep_for(milliseconds(100));  // anything else that might come
  const std::vector<can_frame> more = ReceiveFrames(rx, 1, milliseconds(0));
  got.insert(got.end(), more.begin(), more.end());
  ASSERT_EQ(got.size(), 3u);
  EXPECT_TRUE(SameFrame(got[0], frames[0])) << Describe(got[0]);
  EXPECT_TRUE(SameFrame(got[1], frames[2])) << Describe(got[1]);
  EXPECT_TRUE(SameFrame(got[2], frames[8])) << Describe(got[2]);
  can_frame none[16];
  EXPECT_EQ(nothing.Receive(none), 0u);
  EXPECT_EQ(nothing.counters().frames_received.load(), 0u);
}

TEST_F(VcanTest, BusOffErrorFrameIsCountedAndRestartedFrameClearsIt) {
  SocketCanBus bus(io_, Options("vcan0", {ExactStandardId(0)}));
  SocketCanOptions deaf_options = Options("vcan0", {ExactStandardId(0)});
  deaf_options.receive_errors = false;
  SocketCanBus deaf(io_, deaf_options);
  RawSocket controller("vcan0");  // plays the CAN controller's driver
  ASSERT_TRUE(controller.ok());
  can_frame buffer[8];
  const auto drain = [&](Bus& b) { return b.Receive(buffer); };

  ASSERT_TRUE(controller.Write(ErrorFrame(CAN_ERR_BUSOFF)));
  EXPECT_TRUE(Eventually([&] {
    drain(bus);
    return bus.counters().error_frames.load() == 1;
  }));
  EXPECT_EQ(bus.counters().bus_off_count.load(), 1u);
  EXPECT_TRUE(bus.counters().bus_off.load());
  EXPECT_EQ(bus.counters().frames_received.load(), 0u) << "error frames are not data";

  ASSERT_TRUE(controller.Write(ErrorFrame(CAN_ERR_RESTARTED)));
  EXPECT_TRUE(Eventually([&] {
    drain(bus);
    return bus.counters().error_frames.load() == 2;
  }));
  EXPECT_FALSE(bus.counters().bus_off.load());
  EXPECT_EQ(bus.counters().bus_off_count.load(), 1u);

  // Bus-off again, then a data frame: the bus works, bus_off clears.
  ASSERT_TRUE(controller.Write(ErrorFrame(CAN_ERR_BUSOFF | CAN_ERR_CRTL)));
  ASSERT_TRUE(Eventually([&] {
    drain(bus);
    return bus.counters().bus_off.load();
  }));
  EXPECT_EQ(bus.counters().bus_off_count.load(), 2u);
  ASSERT_TRUE(controller.Write(DataFrame(0, {0x42})));
  EXPECT_TRUE(Eventually([&] { return drain(bus) == 1; }));
  EXPECT_EQ(buffer[0].data[0], 0x42);
  EXPECT_FALSE(bus.counters().bus_off.load());

  drain(deaf);
  EXPECT_EQ(deaf.counters().error_frames.load(), 0u) << "CAN_RAW_ERR_FILTER 0: no error frames";
  EXPECT_FALSE(deaf.counters().bus_off.load());
}

TEST_F(VcanTest, LinkDownCountsSendFailuresAndLinkUpRecovers) {
  SocketCanBus tx(io_, Options("vcan1", {}));
  SocketCanBus rx(io_, Options("vcan1", {AcceptAll()}));
  const std::vector<can_frame> frames = NumberedFrames(3, 0x10);
  ASSERT_EQ(tx.Send(frames), 3u);
  ASSERT_EQ(ReceiveFrames(rx, 3).size(), 3u);
  EXPECT_TRUE(tx.counters().link_up.load());

  ASSERT_EQ(IpLink("set vcan1 down"), 0);
  EXPECT_EQ(tx.Send(frames), 0u);
  EXPECT_EQ(tx.counters().send_failures.load(), 3u);
  EXPECT_FALSE(tx.counters().link_up.load());
  EXPECT_EQ(tx.counters().link_down_count.load(), 1u);
  EXPECT_EQ(tx.Send(frames), 0u);
  EXPECT_EQ(tx.counters().send_failures.load(), 6u);
  EXPECT_EQ(tx.counters().link_down_count.load(), 1u) << "one transition, not one per Send()";

  ASSERT_EQ(IpLink("set vcan1 up"), 0);
  EXPECT_EQ(tx.Send(frames), 3u);
  EXPECT_TRUE(tx.counters().link_up.load());
  EXPECT_EQ(tx.counters().send_failures.load(), 6u);
  EXPECT_EQ(tx.counters().frames_sent.load(), 6u);
  const std::vector<can_frame> got = ReceiveFrames(rx, 3);
  ASSERT_EQ(got.size(), 3u) << "the receiver's socket stays bound across down/up";
  EXPECT_TRUE(SameFrame(got[2], frames[2]));
}

// The interface goes away and comes back (a USB adapter replugged): the bus rebinds on its own,
// trying at most every 500 ms (SocketCanBus' reopen interval), and works again both ways. While
// the interface is gone, Send() stays quick: no reopen attempt may block the control thread.
TEST_F(VcanTest, DeletedAndRecreatedInterfaceIsReboundAfterTheReopenInterval) {
  SocketCanBus bus(io_, Options("vcan2", {AcceptAll()}));
  const std::vector<can_frame> frame = {DataFrame(0x22, {1, 2, 3})};
  ASSERT_EQ(bus.Send(frame), 1u);

  ASSERT_EQ(IpLink("del vcan2"), 0);
  EXPECT_EQ(bus.Send(frame), 0u);  // ENXIO: the socket lost its interface
  EXPECT_FALSE(bus.counters().link_up.load());
  const auto first_attempt = Clock::now();
  Clock::duration slowest{};
  for (int i = 0; i < 6; ++i) {  // 750 ms: the first reopen attempt and the next one
    const auto start = Clock::now();
    EXPECT_EQ(bus.Send(frame), 0u);
    slowest = std::max(slowest, Clock::now() - start);
    std::this_thread::sleep_for(milliseconds(150));
  }
  EXPECT_LT(slowest, milliseconds(100)) << "a Send() while the interface is gone blocked";
  EXPECT_EQ(bus.counters().send_failures.load(), 7u);

  ASSERT_EQ(IpLink("add dev vcan2 type vcan"), 0);
  ASSERT_EQ(IpLink("set up vcan2"), 0);
  const auto recreated = Clock::now();
  RawSocket peer("vcan2");
  ASSERT_TRUE(peer.ok());
  std::optional<can_frame> seen;
  ASSERT_TRUE(Eventually([&] {
    if (bus.Send(frame) == 1) seen = peer.Read(milliseconds(500));
    return seen.has_value();
  })) << "the bus never rebound to the new vcan2";
  EXPECT_GE(Clock::now() - first_attempt, milliseconds(500)) << "reopen attempts are 500 ms apart";
  EXPECT_LT(Clock::now() - recreated, milliseconds(3000));
  EXPECT_TRUE(SameFrame(*seen, frame[0]));
  EXPECT_TRUE(bus.counters().link_up.load());

  ASSERT_TRUE(peer.Write(DataFrame(0x33, {9})));
  const std::vector<can_frame> got = ReceiveFrames(bus, 1);
  ASSERT_EQ(got.size(), 1u) << "the rebound socket receives too";
  EXPECT_EQ(got[0].can_id, 0x33u);
}

// The kernel drops frames for a socket whose receive buffer is full, and tells the next frame it
// queues how many (SO_RXQ_OVFL): flood a small buffer, drain it, send one more.
TEST_F(VcanTest, RxOverflowsAreCounted) {
  SocketCanOptions small = Options("vcan3", {AcceptAll()});
  small.receive_buffer_bytes = 1;  // the kernel rounds up to its minimum (a few frames)
  SocketCanBus rx(io_, small);
  SocketCanBus tx(io_, Options("vcan3", {}));
  const std::vector<can_frame> burst = NumberedFrames(64, 0x200);
  for (int i = 0; i < 20; ++i) tx.Send(burst);
  ASSERT_GT(tx.counters().frames_sent.load(), 1000u);
  ReceiveFrames(rx, 1'000'000, milliseconds(300));  // drain what was kept
  EXPECT_LT(rx.counters().frames_received.load(), tx.counters().frames_sent.load());

  ASSERT_EQ(tx.Send(std::span(burst).first(1)), 1u);
  const std::uint64_t received_before = rx.counters().frames_received.load();
  ASSERT_EQ(ReceiveFrames(rx, 1).size(), 1u);
  EXPECT_GT(rx.counters().rx_overflows.load(), 0u);
  // Every frame sent was either received or counted as dropped.
  EXPECT_EQ(rx.counters().rx_overflows.load() + received_before + 1,
            tx.counters().frames_sent.load());
}

// --- the motor scheduler on five real buses ----------------------------------------------------

struct Robot {
  explicit Robot(asio::io_context& io)
      : config(config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG)), scheduler(Make(io)) {}

  MotorScheduler Make(asio::io_context& io) {
    for (std::size_t b = 0; b < config.buses.size(); ++b) {
      sockets.push_back(std::make_unique<SocketCanBus>(
          io, Options(config.buses[b].interface, ReceiveFiltersFor(config, b))));
      buses.push_back(sockets.back().get());
    }
    return MotorScheduler(config, buses);
  }

  config::Config config;
  std::vector<std::unique_ptr<SocketCanBus>> sockets;
  std::vector<Bus*> buses;
  MotorScheduler scheduler;
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

// A third-party tool sees exactly the frames of one scheduler start-up and tick: FC to every
// motor, then one command each, on the right interface, with EncodeCommand's bytes.
TEST_F(VcanTest, CandumpSeesExactlyWhatTheSchedulerSent) {
  Robot robot(io_);
  std::vector<std::string> argv = {"candump", "-L"};
  for (const auto& bus : robot.config.buses) argv.push_back(bus.interface);
  vcan::Subprocess candump(argv);
  ASSERT_TRUE(candump.started()) << "cannot run candump (install can-utils)";

  // candump is listening once it shows our 0x7FF sync frame on every interface.
  const std::vector<can_frame> sync = {DataFrame(0x7FF, {})};
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
    for (Bus* bus : robot.buses) bus->Send(sync);
    candump.ReadFor(milliseconds(50));
    return synced();
  })) << "candump printed nothing usable; its output:\n"
      << (candump.lines().empty() ? "(none)" : candump.lines().front());
  candump.ReadFor(milliseconds(200));  // late sync lines
  const std::size_t skip = candump.lines().size();

  std::vector<MitCommand> targets(robot.config.joints.size());
  for (std::size_t j = 0; j < targets.size(); ++j) {
    const float x = static_cast<float>(j);
    targets[j] = {0.05f * x - 0.6f, 1.5f - 0.1f * x, 5.0f * x, 0.2f + 0.1f * x, 0.3f * x - 3.0f};
  }
  robot.scheduler.EnterMotorMode(0);
  robot.scheduler.Send(targets, 2'000);  // commands only: an FC retry is not due yet

  std::map<std::string, std::vector<std::string>> expected;
  for (std::size_t pass = 0; pass < 2; ++pass) {
    for (std::size_t j = 0; j < robot.config.joints.size(); ++j) {
      const auto& joint = robot.config.joints[j];
      char id[8];
      std::snprintf(id, sizeof(id), "%03X#", joint.can_id);
      const Payload bytes = pass == 0
                                ? EncodeSpecial(SpecialCommand::kEnterMotorMode)
                                : EncodeCommand(targets[j], RangesOf(robot.config.motor_of(j)));
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
// the kernel filters of ReceiveFiltersFor().
TEST_F(VcanTest, SchedulerTakesRepliesAndImuFramesFromTheKernel) {
  Robot robot(io_);
  RawSocket motor("vcan1");  // right_leg
  RawSocket imu("vcan4");    // waist_neck
  ASSERT_TRUE(motor.ok() && imu.ok());
  Payload reply;
  EncodeReply({4, 0.5f, 1.0f, -2.0f, 45, 0}, RangesOf(robot.config.motors[0]),
              ReplyLayout::kAk8Byte, &reply);
  ASSERT_TRUE(motor.Write(DataFrame(0, {reply.begin(), reply.end()})));
  ASSERT_TRUE(motor.Write(DataFrame(0x101, {reply.begin(), reply.end()})));  // IMU id, wrong bus
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
  EXPECT_FLOAT_EQ(robot.scheduler.imu().quat_wxyz[1], 1.0f);
  EXPECT_EQ(robot.scheduler.motors()[3].replies, 0u) << "L_Knee (left_leg, id 4) got nothing";
}

// libsocketcan on vcan: no CAN controller attributes. Detected once, no start-up error.
TEST_F(VcanTest, ControllerOnVcanIsUnsupportedNotAnError) {
  EXPECT_EQ(LibSocketCan().Probe("vcan0"), CanNetlink::Link::kNotCan);
  EXPECT_EQ(LibSocketCan().Probe("vcan9"), CanNetlink::Link::kAbsent);
  config::BusConfig bus;
  bus.interface = "vcan0";
  bus.bitrate = 1'000'000;
  bus.restart_ms = 0;
  CanController controller("vcan0", bus);
  EXPECT_EQ(controller.Configure(), CanController::ConfigureResult::kUnsupported);
  EXPECT_EQ(controller.support(), ControllerSupport::kUnsupported);
  EXPECT_FALSE(controller.Poll().has_value());
  EXPECT_EQ(controller.MaybeRestart(0), CanController::RestartResult::kNotNeeded);
  // The bus itself is untouched: still up, still carrying frames.
  SocketCanBus a(io_, Options("vcan0", {}));
  SocketCanBus b(io_, Options("vcan0", {AcceptAll()}));
  ASSERT_EQ(a.Send(std::vector<can_frame>{DataFrame(0x5, {5})}), 1u);
  EXPECT_EQ(ReceiveFrames(b, 1).size(), 1u);

  CanController absent("vcan9", bus);
  EXPECT_THROW(absent.Configure(), std::system_error);
  EXPECT_EQ(absent.support(), ControllerSupport::kAbsent);
}

}  // namespace
}  // namespace robot_edge::can

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!::testing::GTEST_FLAG(list_tests)) {
    const std::string problem = robot_edge::can::vcan::VcanProblem(robot_edge::can::kBuses);
    if (!problem.empty()) {
      std::fprintf(stderr, "can_vcan_test: FAILED: %s\n", problem.c_str());
      return 1;
    }
  }
  return RUN_ALL_TESTS();
}
