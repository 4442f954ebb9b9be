// ClassifyErrorFrame, and what a Bus does with error frames and refused frames (FakeBus: the
// same CountErrorFrame path SocketCanBus uses; the vcan tests check SocketCanBus on a kernel).
#include "can/fake_bus.hpp"

#include <gtest/gtest.h>
#include <linux/can/error.h>

#include "can/error_frame.hpp"

namespace robot_edge::can {
namespace {

can_frame ErrorFrame(canid_t classes) {
  can_frame frame{};
  frame.can_id = CAN_ERR_FLAG | classes;
  frame.len = CAN_ERR_DLC;
  return frame;
}

can_frame DataFrame(canid_t id) {
  can_frame frame{};
  frame.can_id = id;
  frame.len = 8;
  return frame;
}

TEST(ClassifyErrorFrame, BusOff) {
  const ErrorFrameInfo info = ClassifyErrorFrame(ErrorFrame(CAN_ERR_BUSOFF));
  EXPECT_TRUE(info.bus_off);
  EXPECT_FALSE(info.restarted);
  EXPECT_FALSE(info.controller_problem);
  EXPECT_FALSE(info.protocol_or_bus_error);
}

TEST(ClassifyErrorFrame, Restarted) {
  const ErrorFrameInfo info = ClassifyErrorFrame(ErrorFrame(CAN_ERR_RESTARTED));
  EXPECT_TRUE(info.restarted);
  EXPECT_FALSE(info.bus_off);
}

TEST(ClassifyErrorFrame, ControllerProblem) {
  can_frame frame = ErrorFrame(CAN_ERR_CRTL);
  frame.data[1] = CAN_ERR_CRTL_RX_PASSIVE;
  const ErrorFrameInfo info = ClassifyErrorFrame(frame);
  EXPECT_TRUE(info.controller_problem);
  EXPECT_FALSE(info.bus_off);
  EXPECT_FALSE(info.protocol_or_bus_error);
}

TEST(ClassifyErrorFrame, EveryProtocolOrBusErrorClass) {
  for (canid_t c : {CAN_ERR_PROT, CAN_ERR_BUSERROR, CAN_ERR_ACK, CAN_ERR_TRX, CAN_ERR_LOSTARB,
                    CAN_ERR_TX_TIMEOUT}) {
    const ErrorFrameInfo info = ClassifyErrorFrame(ErrorFrame(c));
    EXPECT_TRUE(info.protocol_or_bus_error) << std::hex << c;
    EXPECT_FALSE(info.bus_off) << std::hex << c;
    EXPECT_FALSE(info.controller_problem) << std::hex << c;
    EXPECT_FALSE(info.restarted) << std::hex << c;
  }
}

TEST(ClassifyErrorFrame, SeveralClassesInOneFrame) {
  const ErrorFrameInfo info = ClassifyErrorFrame(ErrorFrame(CAN_ERR_BUSOFF | CAN_ERR_CRTL));
  EXPECT_TRUE(info.bus_off);
  EXPECT_TRUE(info.controller_problem);
  EXPECT_FALSE(info.restarted);
}

TEST(IsErrorFrame, OnlyTheErrorFlagCounts) {
  EXPECT_TRUE(IsErrorFrame(ErrorFrame(CAN_ERR_BUSOFF)));
  EXPECT_FALSE(IsErrorFrame(DataFrame(0x7FF)));
  EXPECT_FALSE(IsErrorFrame(DataFrame(CAN_EFF_FLAG | 0x1FFFFFFF)));
}

TEST(FakeBus, BusOffErrorFrameCountsAndSetsBusOffUntilRestarted) {
  FakeBus bus;
  can_frame out[4];
  bus.Inject(ErrorFrame(CAN_ERR_BUSOFF));
  EXPECT_EQ(bus.Receive(out), 0u) << "error frames are not handed to the caller";
  EXPECT_EQ(bus.counters().error_frames.load(), 1u);
  EXPECT_EQ(bus.counters().bus_off_count.load(), 1u);
  EXPECT_TRUE(bus.counters().bus_off.load());
  EXPECT_EQ(bus.counters().frames_received.load(), 0u);

  bus.Inject(ErrorFrame(CAN_ERR_RESTARTED));
  EXPECT_EQ(bus.Receive(out), 0u);
  EXPECT_EQ(bus.counters().error_frames.load(), 2u);
  EXPECT_EQ(bus.counters().bus_off_count.load(), 1u);
  EXPECT_FALSE(bus.counters().bus_off.load());
}

TEST(FakeBus, NextDataFrameClearsBusOff) {
  FakeBus bus;
  can_frame out[4];
  bus.Inject(ErrorFrame(CAN_ERR_BUSOFF));
  bus.Inject(ErrorFrame(CAN_ERR_BUSOFF));
  bus.Receive(out);
  EXPECT_EQ(bus.counters().bus_off_count.load(), 2u);
  EXPECT_TRUE(bus.counters().bus_off.load());
  bus.Inject(DataFrame(0x12));
  ASSERT_EQ(bus.Receive(out), 1u);
  EXPECT_EQ(out[0].can_id, 0x12u);
  EXPECT_FALSE(bus.counters().bus_off.load());
  EXPECT_EQ(bus.counters().frames_received.load(), 1u);
}

TEST(FakeBus, OtherErrorFramesCountButLeaveBusOffAlone) {
  FakeBus bus;
  can_frame out[4];
  bus.Inject(ErrorFrame(CAN_ERR_CRTL));
  bus.Inject(ErrorFrame(CAN_ERR_ACK));
  bus.Receive(out);
  EXPECT_EQ(bus.counters().error_frames.load(), 2u);
  EXPECT_EQ(bus.counters().bus_off_count.load(), 0u);
  EXPECT_FALSE(bus.counters().bus_off.load());
}

TEST(FakeBus, ErrorFramesBetweenDataFramesKeepTheOrder) {
  FakeBus bus;
  can_frame out[4];
  bus.Inject(DataFrame(1));
  bus.Inject(ErrorFrame(CAN_ERR_BUSOFF));
  bus.Inject(DataFrame(2));
  ASSERT_EQ(bus.Receive(out), 2u);
  EXPECT_EQ(out[0].can_id, 1u);
  EXPECT_EQ(out[1].can_id, 2u);
  EXPECT_EQ(bus.counters().bus_off_count.load(), 1u);
  EXPECT_FALSE(bus.counters().bus_off.load()) << "data frame 2 came after the bus-off";
}

TEST(FakeBus, ReceiveTakesAtMostOutSize) {
  FakeBus bus;
  for (canid_t id = 1; id <= 5; ++id) bus.Inject(DataFrame(id));
  can_frame out[2];
  EXPECT_EQ(bus.Receive(out), 2u);
  EXPECT_EQ(out[1].can_id, 2u);
  EXPECT_EQ(bus.Receive(out), 2u);
  EXPECT_EQ(out[0].can_id, 3u);
  EXPECT_EQ(bus.Receive(out), 1u);
  EXPECT_EQ(out[0].can_id, 5u);
  EXPECT_EQ(bus.Receive(out), 0u);
}

TEST(FakeBus, SendLimitCountsTheRestAsSendFailures) {
  FakeBus bus;
  const can_frame frames[5] = {DataFrame(1), DataFrame(2), DataFrame(3), DataFrame(4),
                               DataFrame(5)};
  bus.set_send_limit(3);
  EXPECT_EQ(bus.Send(frames), 3u);
  ASSERT_EQ(bus.sent().size(), 3u);
  EXPECT_EQ(bus.sent()[2].can_id, 3u);
  EXPECT_EQ(bus.counters().frames_sent.load(), 3u);
  EXPECT_EQ(bus.counters().send_failures.load(), 2u);
}

TEST(FakeBus, LinkDownRefusesEverything) {
  FakeBus bus;
  const can_frame frames[2] = {DataFrame(1), DataFrame(2)};
  bus.set_link_up(false);
  EXPECT_EQ(bus.Send(frames), 0u);
  EXPECT_TRUE(bus.sent().empty());
  EXPECT_EQ(bus.counters().send_failures.load(), 2u);
  bus.set_link_up(true);
  EXPECT_EQ(bus.Send(frames), 2u);
  EXPECT_EQ(bus.counters().frames_sent.load(), 2u);
}

}  // namespace
}  // namespace robot_edge::can
