// ClassifyErrorFrame, and what a Transport does with error frames and refused frames, bus by bus
// (FakeTransport: the same CountErrorFrame path SocketCanTransport uses; the vcan tests check
// SocketCanTransport on a kernel).
#include "can/fake_transport.hpp"

#include <gtest/gtest.h>
#include <linux/can/error.h>

#include <vector>

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

BusFrame On(std::uint32_t bus, canid_t id) { return {bus, DataFrame(id)}; }

FakeTransport ThreeBuses() { return FakeTransport({"vcan0", "vcan1", "vcan2"}); }

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

TEST(FakeTransport, NamesItsBuses) {
  const FakeTransport t = ThreeBuses();
  ASSERT_EQ(t.bus_count(), 3u);
  EXPECT_EQ(t.interface(0), "vcan0");
  EXPECT_EQ(t.interface(2), "vcan2");
}

TEST(FakeTransport, BusOffErrorFrameCountsOnItsBusAndSetsBusOffUntilRestarted) {
  FakeTransport t = ThreeBuses();
  BusFrame out[4];
  t.Inject(1, ErrorFrame(CAN_ERR_BUSOFF));
  EXPECT_EQ(t.Receive(out), 0u) << "error frames are not handed to the caller";
  EXPECT_EQ(t.counters(1).error_frames.load(), 1u);
  EXPECT_EQ(t.counters(1).bus_off_count.load(), 1u);
  EXPECT_TRUE(t.counters(1).bus_off.load());
  EXPECT_EQ(t.counters(1).frames_received.load(), 0u);
  for (std::size_t other : {0u, 2u}) {
    EXPECT_EQ(t.counters(other).error_frames.load(), 0u) << other;
    EXPECT_EQ(t.counters(other).bus_off_count.load(), 0u) << other;
    EXPECT_FALSE(t.counters(other).bus_off.load()) << other;
  }

  t.Inject(1, ErrorFrame(CAN_ERR_RESTARTED));
  EXPECT_EQ(t.Receive(out), 0u);
  EXPECT_EQ(t.counters(1).error_frames.load(), 2u);
  EXPECT_EQ(t.counters(1).bus_off_count.load(), 1u);
  EXPECT_FALSE(t.counters(1).bus_off.load());
}

TEST(FakeTransport, NextDataFrameOnTheSameBusClearsBusOff) {
  FakeTransport t = ThreeBuses();
  BusFrame out[4];
  t.Inject(2, ErrorFrame(CAN_ERR_BUSOFF));
  t.Inject(2, ErrorFrame(CAN_ERR_BUSOFF));
  t.Receive(out);
  EXPECT_EQ(t.counters(2).bus_off_count.load(), 2u);
  EXPECT_TRUE(t.counters(2).bus_off.load());
  t.Inject(0, DataFrame(0x11));  // another bus working says nothing about bus 2
  ASSERT_EQ(t.Receive(out), 1u);
  EXPECT_TRUE(t.counters(2).bus_off.load());
  t.Inject(2, DataFrame(0x12));
  ASSERT_EQ(t.Receive(out), 1u);
  EXPECT_EQ(out[0].bus, 2u);
  EXPECT_EQ(out[0].frame.can_id, 0x12u);
  EXPECT_FALSE(t.counters(2).bus_off.load());
  EXPECT_EQ(t.counters(2).frames_received.load(), 1u);
  EXPECT_EQ(t.counters(0).frames_received.load(), 1u);
}

TEST(FakeTransport, OtherErrorFramesCountButLeaveBusOffAlone) {
  FakeTransport t = ThreeBuses();
  BusFrame out[4];
  t.Inject(0, ErrorFrame(CAN_ERR_CRTL));
  t.Inject(0, ErrorFrame(CAN_ERR_ACK));
  t.Receive(out);
  EXPECT_EQ(t.counters(0).error_frames.load(), 2u);
  EXPECT_EQ(t.counters(0).bus_off_count.load(), 0u);
  EXPECT_FALSE(t.counters(0).bus_off.load());
}

TEST(FakeTransport, FramesKeepTheirBusAndOrderAcrossBusesAndErrorFrames) {
  FakeTransport t = ThreeBuses();
  BusFrame out[8];
  t.Inject(2, DataFrame(1));
  t.Inject(0, DataFrame(2));
  t.Inject(0, ErrorFrame(CAN_ERR_BUSOFF));
  t.Inject(1, DataFrame(3));
  t.Inject(0, DataFrame(4));
  ASSERT_EQ(t.Receive(out), 4u);
  const std::uint32_t buses[] = {2, 0, 1, 0};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(out[i].frame.can_id, i + 1) << i;
    EXPECT_EQ(out[i].bus, buses[i]) << i;
  }
  EXPECT_EQ(t.counters(0).bus_off_count.load(), 1u);
  EXPECT_FALSE(t.counters(0).bus_off.load()) << "data frame 4 came after the bus-off";
  EXPECT_EQ(t.counters(0).frames_received.load(), 2u);
}

TEST(FakeTransport, ReceiveTakesAtMostOutSize) {
  FakeTransport t = ThreeBuses();
  for (canid_t id = 1; id <= 5; ++id) t.Inject(id % 3, DataFrame(id));
  BusFrame out[2];
  EXPECT_EQ(t.Receive(out), 2u);
  EXPECT_EQ(out[1].frame.can_id, 2u);
  EXPECT_EQ(t.Receive(out), 2u);
  EXPECT_EQ(out[0].frame.can_id, 3u);
  EXPECT_EQ(out[0].bus, 0u);
  EXPECT_EQ(t.Receive(out), 1u);
  EXPECT_EQ(out[0].frame.can_id, 5u);
  EXPECT_EQ(t.Receive(out), 0u);
}

TEST(FakeTransport, SendPutsEachFrameOnItsBusInOrder) {
  FakeTransport t = ThreeBuses();
  const BusFrame frames[] = {On(2, 1), On(0, 2), On(2, 3), On(1, 4), On(0, 5)};
  EXPECT_EQ(t.Send(frames), 5u);
  EXPECT_EQ(t.send_calls(), 1u);
  EXPECT_EQ(t.sent_count(), 5u);
  ASSERT_EQ(t.sent(0).size(), 2u);
  EXPECT_EQ(t.sent(0)[0].can_id, 2u);
  EXPECT_EQ(t.sent(0)[1].can_id, 5u);
  ASSERT_EQ(t.sent(1).size(), 1u);
  EXPECT_EQ(t.sent(1)[0].can_id, 4u);
  ASSERT_EQ(t.sent(2).size(), 2u);
  EXPECT_EQ(t.sent(2)[0].can_id, 1u);
  EXPECT_EQ(t.sent(2)[1].can_id, 3u);
  EXPECT_EQ(t.counters(0).frames_sent.load(), 2u);
  EXPECT_EQ(t.counters(1).frames_sent.load(), 1u);
  EXPECT_EQ(t.counters(2).frames_sent.load(), 2u);
  t.ClearSent();
  EXPECT_EQ(t.sent_count(), 0u);
  EXPECT_EQ(t.counters(0).frames_sent.load(), 2u) << "ClearSent() is the test's, not a counter";
  EXPECT_EQ(t.Send({}), 0u);
  EXPECT_EQ(t.send_calls(), 2u) << "an empty batch is still a call";
}

TEST(FakeTransport, SendLimitIsPerBusAndPerCallTheRestAreSendFailures) {
  FakeTransport t = ThreeBuses();
  const BusFrame frames[] = {On(0, 1), On(1, 2), On(0, 3), On(0, 4), On(1, 5), On(0, 5)};
  t.set_send_limit(0, 2);
  EXPECT_EQ(t.Send(frames), 4u);
  ASSERT_EQ(t.sent(0).size(), 2u);
  EXPECT_EQ(t.sent(0)[1].can_id, 3u);
  EXPECT_EQ(t.sent(1).size(), 2u) << "another bus is not limited";
  EXPECT_EQ(t.counters(0).frames_sent.load(), 2u);
  EXPECT_EQ(t.counters(0).send_failures.load(), 2u);
  EXPECT_EQ(t.counters(1).send_failures.load(), 0u);
  EXPECT_EQ(t.Send(frames), 4u) << "the limit starts again with each call";
  EXPECT_EQ(t.counters(0).send_failures.load(), 4u);
}

TEST(FakeTransport, LinkDownRefusesEveryFrameOfThatBusOnly) {
  FakeTransport t = ThreeBuses();
  const BusFrame frames[] = {On(1, 1), On(0, 2), On(1, 3), On(2, 4)};
  t.set_link_up(1, false);
  EXPECT_EQ(t.Send(frames), 2u);
  EXPECT_TRUE(t.sent(1).empty());
  EXPECT_EQ(t.counters(1).send_failures.load(), 2u);
  EXPECT_EQ(t.sent(0).size(), 1u);
  EXPECT_EQ(t.sent(2).size(), 1u);
  t.set_link_up(1, true);
  EXPECT_EQ(t.Send(frames), 4u);
  EXPECT_EQ(t.counters(1).frames_sent.load(), 2u);
}

}  // namespace
}  // namespace robot_edge::can
