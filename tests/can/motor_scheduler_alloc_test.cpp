// MotorScheduler::Send/Receive allocate nothing after construction (the control thread's
// contract). It links the counting global allocator (tests/common), so it is its own
// executable; the model is ros2_control's test_rt_allocation.cpp.
#include <gtest/gtest.h>
#include <linux/can/error.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "allocation_counter.hpp"
#include "can/bms_codec.hpp"
#include "can/fake_transport.hpp"
#include "can/imu_codec.hpp"
#include "can/motor_scheduler.hpp"
#include "config/library_options.hpp"
#include "test_config.hpp"

namespace robot_edge::can {
namespace {

using robot_edge::test::AllocationCounter;

// The counter itself works: otherwise "zero allocations" below would prove nothing.
TEST(AllocationCounter, SeesAnAllocation) {
  volatile std::size_t n = 100;
  std::size_t counted = 0;
  {
    AllocationCounter counter;
    std::vector<int> v;
    v.reserve(n);
    counted = counter.count();
  }
  EXPECT_GE(counted, 1u);
}

can_frame Frame(canid_t id, const Payload& payload, std::uint8_t len) {
  can_frame frame{};
  frame.can_id = id;
  frame.len = len;
  std::copy(payload.begin(), payload.begin() + len, frame.data);
  return frame;
}

// 10 000 ticks of the control loop as the daemon runs it: motor replies, IMU frames, BMS frames
// (good and garbled), error frames, one motor silent (its FC retries go out), one bus refusing some
// frames and another whose link is down for a while. Nothing allocates, in Send(), Receive(),
// EnterMotorMode() or SendDampThenExit().
TEST(MotorSchedulerAllocation, SendAndReceiveAllocateNothingAfterConstruction) {
  const config::Config& config = test::DefaultConfig();
  std::vector<std::string> interfaces;
  for (const auto& bus : config.buses) interfaces.push_back(bus.interface);
  FakeTransport transport(interfaces);
  MotorScheduler scheduler(config::WiringOf(config), transport);
  std::vector<MitCommand> targets(config.joints.size(), MitCommand{0.1f, 0, 50, 1, 0});
  // Replies prepared up front (the test's own work must not allocate either).
  std::vector<std::pair<std::uint32_t, can_frame>> replies;
  for (std::size_t j = 1; j < config.joints.size(); ++j) {  // joint 0 stays silent
    Payload payload;
    const auto& joint = config.joints[j];
    EncodeReply({static_cast<std::uint8_t>(joint.can_id), 0.2f, 0.1f, 0.3f, 40, 0},
                ProtocolOf(config.motor_of(j)).ranges, ReplyLayout::kAk8Byte, &payload);
    replies.emplace_back(static_cast<std::uint32_t>(joint.bus),
                         Frame(config.buses[joint.bus].master_id, payload, 8));
  }
  const can_frame quat = Frame(config.imu.quat_id, EncodeImuQuaternion({1, 0, 0, 0}), 8);
  const can_frame gyro = Frame(config.imu.gyro_id, EncodeImuGyro({0.1f, 0, 0}), 6);
  const can_frame accel = Frame(config.imu.accel_id, EncodeImuAccel({0, 0, 9.81f}), 6);
  const auto imu_bus = static_cast<std::uint32_t>(config.imu.bus);
  const can_frame bms = Frame(config.battery.can_id, EncodeBms({48.6f, 12.3f, 80, 30, 1}), 8);
  can_frame garbled_bms = bms;
  garbled_bms.data[6] = 9;  // no such status
  const auto bms_bus = static_cast<std::uint32_t>(config.battery.bus);
  can_frame bus_off{};
  bus_off.can_id = CAN_ERR_FLAG | CAN_ERR_BUSOFF;
  bus_off.len = CAN_ERR_DLC;
  transport.set_send_limit(3, 2);

  std::int64_t now_us = 0;
  scheduler.EnterMotorMode(now_us);
  std::size_t allocations = 0;
  {
    AllocationCounter counter;
    for (int tick = 0; tick < 10'000; ++tick) {
      now_us += 2'000;
      for (const auto& [bus, frame] : replies) transport.Inject(bus, frame);
      transport.Inject(imu_bus, quat);
      transport.Inject(imu_bus, gyro);
      transport.Inject(imu_bus, accel);
      if (tick % 50 == 0) transport.Inject(bms_bus, tick % 100 == 0 ? bms : garbled_bms);
      if (tick % 100 == 0) transport.Inject(1, bus_off);
      if (tick % 1000 == 0) transport.set_link_up(2, tick % 2000 == 0);
      scheduler.Receive(now_us);
      scheduler.Send(targets, now_us);
      transport.ClearSent();
    }
    scheduler.EnterMotorMode(now_us);
    scheduler.SendDampThenExit(targets);
    allocations = counter.count();
  }
  EXPECT_EQ(allocations, 0u);
  // The ticks did what they were meant to do.
  EXPECT_EQ(scheduler.motors()[1].replies, 10'000u);
  EXPECT_EQ(scheduler.motors()[0].replies, 0u);
  EXPECT_EQ(scheduler.imu().last_gyro_us, now_us);
  EXPECT_EQ(scheduler.imu().last_accel_us, now_us);
  EXPECT_EQ(scheduler.battery().last_update_us, 2'000 * 9'901);  // tick 9900's, not 9950's
  EXPECT_FLOAT_EQ(scheduler.battery().reading.percent, 80.0f);
  EXPECT_EQ(transport.counters(1).bus_off_count.load(), 100u);
  EXPECT_GT(transport.counters(3).send_failures.load(), 0u);
  EXPECT_GT(transport.counters(2).send_failures.load(), 0u);
  EXPECT_GT(scheduler.missed_replies(0), 9'000u);
  EXPECT_EQ(transport.send_calls(), 1u + 10'000u + 1u + 2u);
}

}  // namespace
}  // namespace robot_edge::can
