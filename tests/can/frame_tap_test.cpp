// can::FrameTap over FakeTransport: everything passes through unchanged; while enabled, each
// frame sent or received is copied with the batch's time and its direction; a full queue loses
// frames (counted) and never holds up the transport.
#include "can/frame_tap.hpp"

#include <gtest/gtest.h>

#include "can/fake_transport.hpp"

namespace robot_edge::can {
namespace {

std::int64_t g_now_us = 0;
std::int64_t FakeNow() { return g_now_us; }

BusFrame FrameOn(std::uint32_t bus, canid_t id, std::uint8_t first_byte) {
  BusFrame f;
  f.bus = bus;
  f.frame.can_id = id;
  f.frame.len = 2;
  f.frame.data[0] = first_byte;
  return f;
}

std::vector<TappedFrame> DrainAll(FrameTap& tap) {
  std::vector<TappedFrame> out;
  TappedFrame f;
  while (tap.frames().Pop(&f)) out.push_back(f);
  return out;
}

TEST(FrameTap, PassesEverythingThroughAndCopiesNothingUntilEnabled) {
  FakeTransport inner({"vcan0", "vcan1"});
  FrameTap tap(inner, 16, &FakeNow);
  const BusFrame out[] = {FrameOn(0, 0x01, 7), FrameOn(1, 0x02, 8)};
  EXPECT_EQ(tap.Send(out), 2u);
  EXPECT_EQ(inner.sent(1).at(0).data[0], 8);
  inner.Inject(1, FrameOn(1, 0x12, 9).frame);
  BusFrame in[4];
  ASSERT_EQ(tap.Receive(in), 1u);
  EXPECT_EQ(in[0].bus, 1u);
  EXPECT_EQ(in[0].frame.can_id, 0x12u);
  EXPECT_EQ(tap.interface(1), "vcan1");
  EXPECT_EQ(tap.bus_count(), 2u);
  EXPECT_TRUE(DrainAll(tap).empty());
}

TEST(FrameTap, CopiesEachFrameWithItsTimeAndDirection) {
  FakeTransport inner({"vcan0", "vcan1"});
  FrameTap tap(inner, 16, &FakeNow);
  tap.set_enabled(true);
  g_now_us = 1000;
  const BusFrame out[] = {FrameOn(0, 0x01, 7), FrameOn(1, 0x02 | CAN_EFF_FLAG, 8)};
  tap.Send(out);
  g_now_us = 1200;
  inner.Inject(0, FrameOn(0, 0x11, 9).frame);
  BusFrame in[4];
  tap.Receive(in);
  const std::vector<TappedFrame> got = DrainAll(tap);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_TRUE(got[0].sent);
  EXPECT_EQ(got[0].time_us, 1000);
  EXPECT_EQ(got[1].frame.bus, 1u);
  EXPECT_EQ(got[1].frame.frame.can_id, 0x02u | CAN_EFF_FLAG);
  EXPECT_EQ(got[1].frame.frame.data[0], 8);
  EXPECT_FALSE(got[2].sent);
  EXPECT_EQ(got[2].time_us, 1200);
  EXPECT_EQ(got[2].frame.frame.can_id, 0x11u);
  EXPECT_EQ(tap.lost(), 0u);
}

TEST(FrameTap, AFullQueueLosesFramesNotTraffic) {
  FakeTransport inner({"vcan0"});
  FrameTap tap(inner, 3, &FakeNow);
  tap.set_enabled(true);
  std::vector<BusFrame> out;
  for (std::uint8_t i = 0; i < 5; ++i) out.push_back(FrameOn(0, 0x01, i));
  EXPECT_EQ(tap.Send(out), 5u) << "every frame still goes to the bus";
  EXPECT_EQ(inner.sent(0).size(), 5u);
  const std::vector<TappedFrame> got = DrainAll(tap);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[2].frame.frame.data[0], 2) << "the first ones are kept";
  EXPECT_EQ(tap.lost(), 2u);
  tap.Send(out);  // room again after the drain
  EXPECT_EQ(DrainAll(tap).size(), 3u);
  EXPECT_EQ(tap.lost(), 4u);
}

}  // namespace
}  // namespace robot_edge::can
