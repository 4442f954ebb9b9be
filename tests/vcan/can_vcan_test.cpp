// SocketCanTransport on real Linux vcan interfaces: one socket for vcan0..vcan4, each frame on its
// own interface and each received frame attributed to the interface it came from, kernel filters,
// error frames, link down/up, an interface deleted and re-created, drop counting. The peer is a
// second transport on the same five interfaces, and plain CAN_RAW sockets bound to one interface
// each check what really went out where. Runs only inside tests/vcan/run (see vcan_main.cpp).
#include <gtest/gtest.h>
#include <linux/can/error.h>

#include <algorithm>
#include <asio/io_context.hpp>
#include <map>
#include <memory>
#include <system_error>
#include <thread>

#include "allocation_counter.hpp"
#include "can/socketcan/socketcan_transport.hpp"
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

constexpr std::uint32_t kBuses = 5;

can_filter AcceptAll() { return can_filter{0, 0}; }

std::vector<std::string> AllBuses() {
  std::vector<std::string> names;
  for (std::uint32_t b = 0; b < kBuses; ++b) names.push_back("vcan" + std::to_string(b));
  return names;
}

SocketCanOptions Options(std::vector<std::string> interfaces, std::vector<can_filter> filters) {
  SocketCanOptions options;
  options.interfaces = std::move(interfaces);
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

// `count` frames with distinct ids and contents, on buses 0, 1, ..., kBuses-1, 0, 1, ... (or all
// on `only_bus`): interleaved, so that a transport that sends or attributes frames by position in
// the batch rather than by their bus gets them wrong.
std::vector<BusFrame> NumberedFrames(std::size_t count, canid_t first_id, int only_bus = -1) {
  std::vector<BusFrame> frames;
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<std::uint8_t> data(i % 9);
    for (std::size_t k = 0; k < data.size(); ++k) data[k] = static_cast<std::uint8_t>(i + k);
    const auto bus = only_bus >= 0 ? static_cast<std::uint32_t>(only_bus)
                                   : static_cast<std::uint32_t>(i % kBuses);
    frames.push_back({bus, DataFrame(first_id + static_cast<canid_t>(i), data)});
  }
  return frames;
}

// The frames of each bus, in order.
std::map<std::uint32_t, std::vector<can_frame>> ByBus(const std::vector<BusFrame>& frames) {
  std::map<std::uint32_t, std::vector<can_frame>> by_bus;
  for (const BusFrame& f : frames) by_bus[f.bus].push_back(f.frame);
  return by_bus;
}

// Expects `got` to hold exactly the frames of `want`, each on its bus, in order on each bus
// (the kernel keeps the order of one interface; across interfaces it promises nothing).
void ExpectSameFramesOnSameBuses(const std::vector<BusFrame>& got,
                                 const std::vector<BusFrame>& want) {
  const auto got_by_bus = ByBus(got);
  const auto want_by_bus = ByBus(want);
  for (std::uint32_t b = 0; b < kBuses; ++b) {
    const auto g = got_by_bus.find(b);
    const auto w = want_by_bus.find(b);
    const std::size_t got_n = g == got_by_bus.end() ? 0 : g->second.size();
    const std::size_t want_n = w == want_by_bus.end() ? 0 : w->second.size();
    ASSERT_EQ(got_n, want_n) << "frames on bus " << b;
    for (std::size_t i = 0; i < got_n; ++i) {
      ASSERT_TRUE(SameFrame(g->second[i], w->second[i]))
          << "bus " << b << " #" << i << ": got " << Describe(g->second[i]) << ", sent "
          << Describe(w->second[i]);
    }
  }
  EXPECT_EQ(got.size(), want.size());
}

class VcanTest : public ::testing::Test {
 protected:
  void TearDown() override { vcan::RestoreBuses(kBuses); }

  // Takes frames from `t` until `count` have arrived or the patience runs out.
  static std::vector<BusFrame> ReceiveFrames(Transport& t, std::size_t count,
                                             milliseconds patience = vcan::kPatience) {
    std::vector<BusFrame> got;
    BusFrame buffer[256];
    Eventually(
        [&] {
          const std::size_t n = t.Receive(buffer);
          got.insert(got.end(), buffer, buffer + n);
          return got.size() >= count;
        },
        patience);
    return got;
  }
  // Whatever else arrives within `wait` (to check that nothing more does).
  static std::vector<BusFrame> Leftovers(Transport& t, milliseconds wait = milliseconds(150)) {
    std::this_thread::sleep_for(wait);
    return ReceiveFrames(t, 1'000'000, milliseconds(0));
  }
  // Every frame `socket` received within `wait`.
  static std::vector<can_frame> ReadAll(RawSocket& socket, milliseconds wait) {
    std::vector<can_frame> got;
    const auto deadline = Clock::now() + wait;
    while (
        auto frame = socket.Read(std::max(
            milliseconds(0), std::chrono::duration_cast<milliseconds>(deadline - Clock::now())))) {
      got.push_back(*frame);
    }
    return got;
  }

  asio::io_context io_;  // hosts the sockets; never run (as in the daemon)
};

TEST_F(VcanTest, MissingOrNonCanInterfaceFailsAtStartUpNamingIt) {
  try {
    SocketCanTransport t(io_, Options({"vcan0", "vcan9"}, {}));
    ADD_FAILURE() << "no exception for vcan9";
  } catch (const std::system_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("vcan9: ", 0), 0u) << e.what();
  }
  // lo exists but is not a CAN interface: a configuration naming it must not start either.
  try {
    SocketCanTransport t(io_, Options({"vcan0", "lo"}, {}));
    ADD_FAILURE() << "no exception for lo";
  } catch (const std::system_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("lo: ", 0), 0u) << e.what();
  }
}

// Each frame of one Send() leaves on its own bus's interface: the peer transport attributes it
// to that bus, and a socket bound to one interface sees exactly that interface's frames. The
// sender does not receive its own frames. Then the other way round.
TEST_F(VcanTest, EachFrameGoesOutOnItsInterfaceAndComesInAttributedToIt) {
  SocketCanTransport dut(io_, Options(AllBuses(), {AcceptAll()}));
  SocketCanTransport peer(io_, Options(AllBuses(), {AcceptAll()}));
  ASSERT_EQ(dut.bus_count(), kBuses);
  EXPECT_EQ(dut.interface(3), "vcan3");
  std::vector<std::unique_ptr<RawSocket>> wires;
  for (const std::string& name : AllBuses()) {
    wires.push_back(std::make_unique<RawSocket>(name));
    ASSERT_TRUE(wires.back()->ok()) << name;
  }

  const std::vector<BusFrame> frames = NumberedFrames(4 * kBuses + 3, 0x100);
  EXPECT_EQ(dut.Send(frames), frames.size());
  const auto want = ByBus(frames);
  for (std::uint32_t b = 0; b < kBuses; ++b) {
    EXPECT_EQ(dut.counters(b).frames_sent.load(), want.at(b).size()) << b;
    EXPECT_EQ(dut.counters(b).send_failures.load(), 0u) << b;
    EXPECT_TRUE(dut.counters(b).link_up.load()) << b;
  }
  const std::vector<BusFrame> got = ReceiveFrames(peer, frames.size());
  ExpectSameFramesOnSameBuses(got, frames);
  EXPECT_TRUE(Leftovers(peer).empty());
  for (std::uint32_t b = 0; b < kBuses; ++b) {
    EXPECT_EQ(peer.counters(b).frames_received.load(), want.at(b).size()) << b;
    const std::vector<can_frame> on_wire = ReadAll(*wires[b], milliseconds(100));
    ASSERT_EQ(on_wire.size(), want.at(b).size()) << "frames on vcan" << b;
    for (std::size_t i = 0; i < on_wire.size(); ++i) {
      EXPECT_TRUE(SameFrame(on_wire[i], want.at(b)[i]))
          << "vcan" << b << " #" << i << ": " << Describe(on_wire[i]);
    }
  }
  EXPECT_TRUE(Leftovers(dut, milliseconds(0)).empty()) << "a socket receives not its own frames";

  const std::vector<BusFrame> back = NumberedFrames(2 * kBuses + 1, 0x400);
  EXPECT_EQ(peer.Send(back), back.size());
  ExpectSameFramesOnSameBuses(ReceiveFrames(dut, back.size()), back);
}

// A frame written by another program on one interface reaches the transport as that bus's frame,
// whichever interface it is and whatever its index; bus i is interfaces[i], not vcan<i>.
TEST_F(VcanTest, BusIndexFollowsTheInterfaceListNotTheInterfaceNumber) {
  SocketCanTransport t(io_, Options({"vcan3", "vcan1"}, {AcceptAll()}));
  RawSocket vcan1("vcan1");
  RawSocket vcan3("vcan3");
  ASSERT_TRUE(vcan1.ok() && vcan3.ok());
  ASSERT_TRUE(vcan3.Write(DataFrame(0x33, {3})));
  ASSERT_TRUE(vcan1.Write(DataFrame(0x11, {1})));
  std::vector<BusFrame> got = ReceiveFrames(t, 2);
  ASSERT_EQ(got.size(), 2u);
  std::sort(got.begin(), got.end(),
            [](auto& a, auto& b) { return a.frame.can_id < b.frame.can_id; });
  EXPECT_EQ(got[0].frame.can_id, 0x11u);
  EXPECT_EQ(got[0].bus, 1u) << "vcan1 is bus 1";
  EXPECT_EQ(got[1].frame.can_id, 0x33u);
  EXPECT_EQ(got[1].bus, 0u) << "vcan3 is bus 0";

  const std::vector<BusFrame> out = {{0, DataFrame(0x30, {})}, {1, DataFrame(0x10, {})}};
  ASSERT_EQ(t.Send(out), 2u);
  const auto on3 = vcan3.Read(vcan::kPatience);
  const auto on1 = vcan1.Read(vcan::kPatience);
  ASSERT_TRUE(on3.has_value() && on1.has_value());
  EXPECT_EQ(on3->can_id, 0x30u);
  EXPECT_EQ(on1->can_id, 0x10u);
}

// The socket is bound to every CAN interface of the machine: frames (data and error) from the
// ones that are not the transport's buses must not be taken as any bus's.
TEST_F(VcanTest, FramesFromInterfacesNotInTheTransportAreDiscarded) {
  SocketCanTransport t(io_, Options({"vcan1", "vcan3"}, {AcceptAll()}));
  std::vector<std::unique_ptr<RawSocket>> wires;
  for (const std::string& name : AllBuses()) wires.push_back(std::make_unique<RawSocket>(name));
  for (std::uint32_t b = 0; b < kBuses; ++b) {
    ASSERT_TRUE(wires[b]->ok());
    ASSERT_TRUE(wires[b]->Write(DataFrame(0x10 + b, {static_cast<std::uint8_t>(b)})));
  }
  ASSERT_TRUE(wires[0]->Write(ErrorFrame(CAN_ERR_BUSOFF)));
  ASSERT_TRUE(wires[4]->Write(ErrorFrame(CAN_ERR_BUSOFF)));
  ASSERT_TRUE(wires[3]->Write(DataFrame(0x7FF, {})));  // written last: when it is in, all are
  std::vector<BusFrame> got = ReceiveFrames(t, 3);
  const std::vector<BusFrame> more = Leftovers(t);
  got.insert(got.end(), more.begin(), more.end());
  ASSERT_EQ(got.size(), 3u);
  std::sort(got.begin(), got.end(),
            [](auto& a, auto& b) { return a.frame.can_id < b.frame.can_id; });
  EXPECT_EQ(got[0].frame.can_id, 0x11u);
  EXPECT_EQ(got[0].bus, 0u);
  EXPECT_EQ(got[1].frame.can_id, 0x13u);
  EXPECT_EQ(got[1].bus, 1u);
  EXPECT_EQ(got[2].frame.can_id, 0x7FFu);
  EXPECT_EQ(got[2].bus, 1u);
  for (std::uint32_t b = 0; b < 2; ++b) {
    EXPECT_EQ(t.counters(b).error_frames.load(), 0u) << "error frames of vcan0/vcan4 are not ours";
    EXPECT_FALSE(t.counters(b).bus_off.load());
  }
  EXPECT_EQ(t.counters(0).frames_received.load(), 1u);
  EXPECT_EQ(t.counters(1).frames_received.load(), 2u);
}

// 200 frames in one Send(): several sendmmsg batches of kMaxBatch (64); the receiver takes them
// with batched recvmmsg, more than one batch per Receive() call, each on its bus, in order.
TEST_F(VcanTest, BatchesLargerThanOneSystemCallCrossTheKernelBothWays) {
  SocketCanTransport a(io_, Options(AllBuses(), {AcceptAll()}));
  SocketCanTransport b(io_, Options(AllBuses(), {AcceptAll()}));
  const std::vector<BusFrame> to_b = NumberedFrames(200, 0x100);
  ASSERT_GT(to_b.size(), 3 * SocketCanTransport::kMaxBatch);
  EXPECT_EQ(a.Send(to_b), to_b.size());
  std::uint64_t sent = 0;
  for (std::uint32_t bus = 0; bus < kBuses; ++bus) {
    sent += a.counters(bus).frames_sent.load();
    EXPECT_EQ(a.counters(bus).send_failures.load(), 0u);
  }
  EXPECT_EQ(sent, 200u);

  std::this_thread::sleep_for(milliseconds(200));  // all of them queued at b
  BusFrame first_call[256];
  const std::size_t n = b.Receive(first_call);
  EXPECT_EQ(n, 200u) << "one Receive() takes every waiting frame, over several recvmmsg calls";
  std::vector<BusFrame> got(first_call, first_call + n);
  const std::vector<BusFrame> rest = ReceiveFrames(b, 200 - n);
  got.insert(got.end(), rest.begin(), rest.end());
  ExpectSameFramesOnSameBuses(got, to_b);
  // A Receive() smaller than what is waiting takes exactly what fits, and the rest stays.
  const std::vector<BusFrame> again = NumberedFrames(70, 0x300);
  ASSERT_EQ(a.Send(again), again.size());
  std::this_thread::sleep_for(milliseconds(200));
  BusFrame small[65];
  EXPECT_EQ(b.Receive(std::span(small, 65)), 65u);
  std::vector<BusFrame> got_again(small, small + 65);
  const std::vector<BusFrame> tail = ReceiveFrames(b, 5);
  got_again.insert(got_again.end(), tail.begin(), tail.end());
  ExpectSameFramesOnSameBuses(got_again, again);

  const std::vector<BusFrame> to_a = NumberedFrames(150, 0x400);
  EXPECT_EQ(b.Send(to_a), to_a.size());
  ExpectSameFramesOnSameBuses(ReceiveFrames(a, to_a.size()), to_a);
}

TEST_F(VcanTest, KernelFilterDropsIdsNotAskedForOnEveryBus) {
  SocketCanTransport rx(io_, Options(AllBuses(), {ExactStandardId(0x000), ExactStandardId(0x101)}));
  SocketCanTransport nothing(io_, Options(AllBuses(), {}));  // empty filter: no data frames
  SocketCanTransport tx(io_, Options(AllBuses(), {}));
  const std::vector<BusFrame> frames = {
      {0, DataFrame(0x000, {1})},
      {1, DataFrame(0x001, {2})},
      {4, DataFrame(0x101, {3})},
      {2, DataFrame(0x102, {4})},
      {3, DataFrame(0x100, {5})},
      {4, DataFrame(CAN_EFF_FLAG | 0x101, {6})},  // extended id with the same number
      {0, DataFrame(CAN_EFF_FLAG | 0x000, {7})},
      {1, DataFrame(CAN_RTR_FLAG | 0x101, {})},  // remote frame
      {3, DataFrame(0x000, {0xEE})},
      {2, DataFrame(0x101, {0xDD})},
  };
  ASSERT_EQ(tx.Send(frames), frames.size());
  std::vector<BusFrame> got = ReceiveFrames(rx, 4);
  const std::vector<BusFrame> more = Leftovers(rx);
  got.insert(got.end(), more.begin(), more.end());
  ExpectSameFramesOnSameBuses(got, {frames[0], frames[2], frames[8], frames[9]});
  EXPECT_TRUE(Leftovers(nothing, milliseconds(0)).empty());
  for (std::uint32_t b = 0; b < kBuses; ++b) {
    EXPECT_EQ(nothing.counters(b).frames_received.load(), 0u);
  }
}

// An error frame counts on the bus it arrived on, and only there.
TEST_F(VcanTest, BusOffErrorFrameCountsOnItsBusOnlyAndRestartedFrameClearsIt) {
  SocketCanTransport t(io_, Options(AllBuses(), {ExactStandardId(0)}));
  SocketCanOptions deaf_options = Options(AllBuses(), {ExactStandardId(0)});
  deaf_options.receive_errors = false;
  SocketCanTransport deaf(io_, deaf_options);
  RawSocket controller2("vcan2");  // plays vcan2's CAN controller driver
  RawSocket other3("vcan3");
  ASSERT_TRUE(controller2.ok() && other3.ok());
  BusFrame buffer[8];
  const auto drain = [&](Transport& x) { return x.Receive(buffer); };
  const auto others_untouched = [&] {
    for (std::uint32_t b = 0; b < kBuses; ++b) {
      if (b == 2) continue;
      EXPECT_EQ(t.counters(b).error_frames.load(), 0u) << "bus " << b;
      EXPECT_EQ(t.counters(b).bus_off_count.load(), 0u) << "bus " << b;
      EXPECT_FALSE(t.counters(b).bus_off.load()) << "bus " << b;
    }
  };

  ASSERT_TRUE(controller2.Write(ErrorFrame(CAN_ERR_BUSOFF)));
  EXPECT_TRUE(Eventually([&] {
    drain(t);
    return t.counters(2).error_frames.load() == 1;
  }));
  EXPECT_EQ(t.counters(2).bus_off_count.load(), 1u);
  EXPECT_TRUE(t.counters(2).bus_off.load());
  EXPECT_EQ(t.counters(2).frames_received.load(), 0u) << "error frames are not data";
  others_untouched();

  // A data frame on another bus says nothing about vcan2.
  ASSERT_TRUE(other3.Write(DataFrame(0, {0x33})));
  EXPECT_TRUE(Eventually([&] { return drain(t) == 1; }));
  EXPECT_EQ(buffer[0].bus, 3u);
  EXPECT_TRUE(t.counters(2).bus_off.load());

  ASSERT_TRUE(controller2.Write(ErrorFrame(CAN_ERR_RESTARTED)));
  EXPECT_TRUE(Eventually([&] {
    drain(t);
    return t.counters(2).error_frames.load() == 2;
  }));
  EXPECT_FALSE(t.counters(2).bus_off.load());
  EXPECT_EQ(t.counters(2).bus_off_count.load(), 1u);

  // Bus-off again, then a data frame on vcan2: the bus works, bus_off clears.
  ASSERT_TRUE(controller2.Write(ErrorFrame(CAN_ERR_BUSOFF | CAN_ERR_CRTL)));
  ASSERT_TRUE(Eventually([&] {
    drain(t);
    return t.counters(2).bus_off.load();
  }));
  EXPECT_EQ(t.counters(2).bus_off_count.load(), 2u);
  ASSERT_TRUE(controller2.Write(DataFrame(0, {0x42})));
  EXPECT_TRUE(Eventually([&] { return drain(t) == 1; }));
  EXPECT_EQ(buffer[0].bus, 2u);
  EXPECT_EQ(buffer[0].frame.data[0], 0x42);
  EXPECT_FALSE(t.counters(2).bus_off.load());
  others_untouched();

  drain(deaf);
  for (std::uint32_t b = 0; b < kBuses; ++b) {
    EXPECT_EQ(deaf.counters(b).error_frames.load(), 0u) << "CAN_RAW_ERR_FILTER 0: no error frames";
    EXPECT_FALSE(deaf.counters(b).bus_off.load());
  }
}

// One bus's interface goes down: its frames are counted as send failures (once each), its link
// is reported down (one transition), and the frames of every other bus in the same Send() still
// go out. Up again: everything flows.
TEST_F(VcanTest, DownBusCountsSendFailuresAndDoesNotBlockTheOthers) {
  SocketCanTransport tx(io_, Options(AllBuses(), {}));
  SocketCanTransport rx(io_, Options(AllBuses(), {AcceptAll()}));
  const std::vector<BusFrame> frames = NumberedFrames(3 * kBuses, 0x10);  // interleaved
  ASSERT_EQ(tx.Send(frames), frames.size());
  ExpectSameFramesOnSameBuses(ReceiveFrames(rx, frames.size()), frames);
  EXPECT_TRUE(tx.counters(1).link_up.load());

  std::vector<BusFrame> without_1;
  std::copy_if(frames.begin(), frames.end(), std::back_inserter(without_1),
               [](const BusFrame& f) { return f.bus != 1; });
  ASSERT_EQ(IpLink("set vcan1 down"), 0);
  EXPECT_EQ(tx.Send(frames), without_1.size());
  EXPECT_EQ(tx.counters(1).send_failures.load(), 3u);
  EXPECT_FALSE(tx.counters(1).link_up.load());
  EXPECT_EQ(tx.counters(1).link_down_count.load(), 1u);
  ExpectSameFramesOnSameBuses(ReceiveFrames(rx, without_1.size()), without_1);
  EXPECT_TRUE(Leftovers(rx).empty());
  EXPECT_EQ(tx.Send(frames), without_1.size());
  EXPECT_EQ(tx.counters(1).send_failures.load(), 6u);
  EXPECT_EQ(tx.counters(1).link_down_count.load(), 1u) << "one transition, not one per Send()";
  ExpectSameFramesOnSameBuses(ReceiveFrames(rx, without_1.size()), without_1);
  for (std::uint32_t b : {0u, 2u, 3u, 4u}) {
    EXPECT_EQ(tx.counters(b).send_failures.load(), 0u) << b;
    EXPECT_EQ(tx.counters(b).frames_sent.load(), 3u * 3u) << b;
    EXPECT_TRUE(tx.counters(b).link_up.load()) << b;
  }

  // The bus's frames first in the batch, as the scheduler orders them (by bus).
  std::vector<BusFrame> grouped = frames;
  std::stable_sort(grouped.begin(), grouped.end(),
                   [](const BusFrame& a, const BusFrame& b) { return a.bus < b.bus; });
  EXPECT_EQ(tx.Send(grouped), without_1.size());
  EXPECT_EQ(tx.counters(1).send_failures.load(), 9u);
  ExpectSameFramesOnSameBuses(ReceiveFrames(rx, without_1.size()), without_1);

  ASSERT_EQ(IpLink("set vcan1 up"), 0);
  EXPECT_EQ(tx.Send(frames), frames.size());
  EXPECT_TRUE(tx.counters(1).link_up.load());
  EXPECT_EQ(tx.counters(1).send_failures.load(), 9u);
  EXPECT_EQ(tx.counters(1).frames_sent.load(), 6u);
  EXPECT_EQ(tx.counters(1).link_down_count.load(), 1u);
  ExpectSameFramesOnSameBuses(ReceiveFrames(rx, frames.size()), frames);
}

// Two buses down, frames interleaved: every frame is counted exactly once, as sent or as a send
// failure of its bus, however the batch is split between system calls.
TEST_F(VcanTest, TwoDownBusesEveryFrameCountedExactlyOnce) {
  SocketCanTransport tx(io_, Options(AllBuses(), {}));
  SocketCanTransport rx(io_, Options(AllBuses(), {AcceptAll()}));
  ASSERT_EQ(IpLink("set vcan1 down"), 0);
  ASSERT_EQ(IpLink("set vcan3 down"), 0);
  const std::vector<BusFrame> frames = NumberedFrames(4 * SocketCanTransport::kMaxBatch + 7, 0x10);
  std::vector<BusFrame> up;
  std::copy_if(frames.begin(), frames.end(), std::back_inserter(up),
               [](const BusFrame& f) { return f.bus != 1 && f.bus != 3; });
  EXPECT_EQ(tx.Send(frames), up.size());
  const auto want = ByBus(frames);
  for (std::uint32_t b = 0; b < kBuses; ++b) {
    const bool down = b == 1 || b == 3;
    EXPECT_EQ(tx.counters(b).send_failures.load(), down ? want.at(b).size() : 0u) << "bus " << b;
    EXPECT_EQ(tx.counters(b).frames_sent.load(), down ? 0u : want.at(b).size()) << "bus " << b;
    EXPECT_EQ(tx.counters(b).link_up.load(), !down) << "bus " << b;
  }
  ExpectSameFramesOnSameBuses(ReceiveFrames(rx, up.size()), up);
}

// The interface goes away and comes back (a USB adapter replugged): it gets a new index, which the
// transport looks up on its own, at most every kRelookupInterval (500 ms), and the bus works
// again both ways. While the interface is gone, the other buses carry on and Send() stays quick:
// no look-up may block the control thread (if_nametoindex of a missing name runs modprobe).
TEST_F(VcanTest, DeletedAndRecreatedInterfaceFlowsAgainAfterTheRelookupInterval) {
  SocketCanTransport t(io_, Options(AllBuses(), {AcceptAll()}));
  RawSocket vcan0("vcan0");
  ASSERT_TRUE(vcan0.ok());
  std::vector<BusFrame> one_each;
  for (std::uint32_t b = 0; b < kBuses; ++b) one_each.push_back({b, DataFrame(0x20 + b, {1, 2})});
  ASSERT_EQ(t.Send(one_each), kBuses);

  ASSERT_EQ(IpLink("del vcan1"), 0);
  EXPECT_EQ(t.Send(one_each), kBuses - 1);  // ENXIO (or ENODEV): the index is stale
  EXPECT_FALSE(t.counters(1).link_up.load());
  EXPECT_EQ(t.counters(1).link_down_count.load(), 1u);
  Clock::duration slowest{};
  for (int i = 0; i < 6; ++i) {  // 900 ms: several look-ups while vcan1 is gone
    const auto start = Clock::now();
    EXPECT_EQ(t.Send(one_each), kBuses - 1);
    slowest = std::max(slowest, Clock::now() - start);
    std::this_thread::sleep_for(milliseconds(150));
  }
  EXPECT_LT(slowest, milliseconds(100)) << "a Send() while the interface is gone blocked";
  EXPECT_EQ(t.counters(1).send_failures.load(), 7u);
  EXPECT_EQ(t.counters(1).link_down_count.load(), 1u);
  EXPECT_EQ(t.counters(0).frames_sent.load(), 8u) << "the other buses carry on";
  EXPECT_EQ(t.counters(4).frames_sent.load(), 8u);
  EXPECT_EQ(ReadAll(vcan0, milliseconds(100)).size(), 8u);

  // A look-up is due (the last was > 500 ms ago): this Send() makes it, finds vcan1 still gone,
  // and the next may only come kRelookupInterval later, however soon vcan1 is back.
  std::this_thread::sleep_for(SocketCanTransport::kRelookupInterval + milliseconds(100));
  const auto looked_up = Clock::now();
  EXPECT_EQ(t.Send(one_each), kBuses - 1);
  ASSERT_EQ(vcan::AddVcanNow("vcan1"), "");  // back within a few ms, long before the next look-up
  const auto recreated = Clock::now();
  RawSocket vcan1("vcan1");
  ASSERT_TRUE(vcan1.ok());
  std::optional<can_frame> seen;
  Clock::time_point flowing{};
  ASSERT_TRUE(Eventually([&] {
    if (t.Send(one_each) == kBuses) {
      flowing = Clock::now();
      seen = vcan1.Read(milliseconds(500));
    }
    return seen.has_value();
  })) << "frames for vcan1 never flowed again after it was re-created";
  EXPECT_GE(flowing - looked_up, SocketCanTransport::kRelookupInterval)
      << "looked up again sooner than kRelookupInterval (vcan1 was back after "
      << std::chrono::duration_cast<milliseconds>(recreated - looked_up).count() << " ms)";
  EXPECT_LT(flowing - recreated, milliseconds(3000));
  EXPECT_TRUE(SameFrame(*seen, one_each[1].frame)) << Describe(*seen);
  EXPECT_TRUE(t.counters(1).link_up.load());

  ASSERT_TRUE(vcan1.Write(DataFrame(0x33, {9})));
  std::vector<BusFrame> got;
  ASSERT_TRUE(Eventually([&] {
    for (const BusFrame& f : ReceiveFrames(t, 1, milliseconds(10))) {
      if (f.frame.can_id == 0x33) got.push_back(f);
    }
    return !got.empty();
  })) << "frames from the new vcan1 are not received";
  EXPECT_EQ(got[0].bus, 1u) << "the new vcan1 is still bus 1";
}

// The kernel drops frames for a socket whose receive buffer is full, and tells the next frame it
// queues how many (SO_RXQ_OVFL): flood a small buffer on several buses, drain it, send one more.
TEST_F(VcanTest, RxOverflowsAreCounted) {
  SocketCanOptions small = Options(AllBuses(), {AcceptAll()});
  small.receive_buffer_bytes = 1;  // the kernel rounds up to its minimum (a few frames)
  SocketCanTransport rx(io_, small);
  SocketCanTransport tx(io_, Options(AllBuses(), {}));
  const std::vector<BusFrame> burst = NumberedFrames(64, 0x200);
  for (int i = 0; i < 20; ++i) tx.Send(burst);
  const auto total_sent = [&] {
    std::uint64_t n = 0;
    for (std::uint32_t b = 0; b < kBuses; ++b) n += tx.counters(b).frames_sent.load();
    return n;
  };
  const auto total_received = [&] {
    std::uint64_t n = 0;
    for (std::uint32_t b = 0; b < kBuses; ++b) n += rx.counters(b).frames_received.load();
    return n;
  };
  ASSERT_GT(total_sent(), 1000u);
  EXPECT_EQ(rx.rx_overflows(), 0u) << "nothing read yet: the count comes with a frame";
  ReceiveFrames(rx, 1'000'000, milliseconds(300));  // drain what was kept
  EXPECT_LT(total_received(), total_sent());

  ASSERT_EQ(tx.Send(std::span(burst).first(1)), 1u);
  const std::uint64_t received_before = total_received();
  ASSERT_EQ(ReceiveFrames(rx, 1).size(), 1u);
  EXPECT_GT(rx.rx_overflows(), 0u);
  // Every frame sent was either received or counted as dropped.
  EXPECT_EQ(rx.rx_overflows() + received_before + 1, total_sent());
  EXPECT_EQ(tx.rx_overflows(), 0u);
}

// The counter itself works: otherwise "no allocation" below would prove nothing.
TEST(AllocationCounter, SeesAnAllocation) {
  volatile std::size_t n = 100;
  std::size_t counted = 0;
  {
    test::AllocationCounter counter;
    std::vector<int> v;
    v.reserve(n);
    counted = counter.count();
  }
  EXPECT_GE(counted, 1u);
}

// Send() and Receive() run on the control thread: they allocate nothing, whatever the buses do —
// batches over kMaxBatch, frames dropped and reported (SO_RXQ_OVFL), error frames, frames of an
// interface that is not ours, a bus down, a bus deleted, looked up in vain, and found again.
TEST_F(VcanTest, SendAndReceiveAllocateNothing) {
  SocketCanOptions options = Options({"vcan0", "vcan1", "vcan2", "vcan3"}, {AcceptAll()});
  options.receive_buffer_bytes = 1;  // a few frames: floods overflow
  SocketCanTransport t(io_, options);
  SocketCanTransport peer(io_, Options(AllBuses(), {}));  // vcan4 is not t's
  const std::vector<BusFrame> flood = NumberedFrames(3 * SocketCanTransport::kMaxBatch, 0x100);
  const std::vector<BusFrame> few = {{2, ErrorFrame(CAN_ERR_BUSOFF)}, {4, DataFrame(0x44, {4})}};
  std::vector<BusFrame> mine;  // what t sends: a bit of everything, more than one batch
  for (int i = 0; i < 3; ++i) {
    for (const BusFrame& f : NumberedFrames(SocketCanTransport::kMaxBatch, 0x200)) {
      mine.push_back({f.bus % 4, f.frame});
    }
  }
  BusFrame buffer[2 * SocketCanTransport::kMaxBatch];
  std::size_t allocations = 0;
  const auto counted = [&](const auto& call) {
    test::AllocationCounter counter;
    call();
    allocations += counter.count();
  };
  const auto receive_all = [&] {
    std::this_thread::sleep_for(milliseconds(100));
    for (int i = 0; i < 3; ++i) counted([&] { t.Receive(buffer); });
  };

  counted([&] { t.Send(mine); });
  ASSERT_EQ(peer.Send(flood), flood.size());
  receive_all();
  ASSERT_EQ(peer.Send(flood), flood.size());  // the count of drops comes with a later frame
  receive_all();
  ASSERT_EQ(peer.Send(few), few.size());
  receive_all();

  ASSERT_EQ(IpLink("set vcan1 down"), 0);
  counted([&] { t.Send(mine); });
  ASSERT_EQ(IpLink("set vcan1 up"), 0);
  ASSERT_EQ(IpLink("del vcan2"), 0);
  counted([&] { t.Send(mine); });  // ENXIO
  counted([&] { t.Send(mine); });  // a look-up: still gone
  ASSERT_EQ(vcan::AddVcanNow("vcan2"), "");
  std::this_thread::sleep_for(SocketCanTransport::kRelookupInterval + milliseconds(100));
  const std::uint64_t sent_on_2 = t.counters(2).frames_sent.load();
  counted([&] { t.Send(mine); });  // a look-up: found
  EXPECT_EQ(allocations, 0u);

  // Those calls did meet what they were meant to.
  EXPECT_GT(t.rx_overflows(), 0u);
  EXPECT_EQ(t.counters(2).bus_off_count.load(), 1u);
  EXPECT_GT(t.counters(1).send_failures.load(), 0u);
  EXPECT_EQ(t.counters(2).link_down_count.load(), 1u);
  EXPECT_GT(t.counters(2).frames_sent.load(), sent_on_2) << "vcan2 was found again";
}

}  // namespace
}  // namespace robot_edge::can
