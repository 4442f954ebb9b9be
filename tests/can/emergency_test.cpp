// The emergency frames: DAMP (kp 0, the joint's damp_kd) to every motor, then exit motor mode;
// and how SendRaw spreads them over the buses.
#include "can/emergency.hpp"

#include <gtest/gtest.h>
#include <net/if.h>

#include <algorithm>
#include <cerrno>

#include "can/fake_transport.hpp"
#include "config/library_options.hpp"
#include "hex.hpp"
#include "test_config.hpp"

namespace robot_edge::can {
namespace {

using test::Hexify;

TEST(EmergencyFrames, DampToEveryMotorThenExitMotorModeAndMissingBusesNamed) {
  config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  c.buses[0].interface = "lo";  // exists on every machine (the frames are only built here)
  for (std::size_t b = 1; b < c.buses.size(); ++b)
    c.buses[b].interface = "nocan" + std::to_string(b);
  std::vector<std::string> missing;
  const auto frames = EmergencyFrames(config::WiringOf(c), &missing);
  EXPECT_EQ(missing, (std::vector<std::string>{"nocan1", "nocan2", "nocan3", "nocan4"}));
  ASSERT_EQ(frames.size(), 12u) << "the 6 motors of the left leg, twice";
  const int lo = static_cast<int>(::if_nametoindex("lo"));
  for (std::size_t i = 0; i < 6; ++i) {
    const RawFrame& damp = frames[i];
    EXPECT_EQ(damp.address.can_family, AF_CAN);
    EXPECT_EQ(damp.address.can_ifindex, lo);
    EXPECT_EQ(damp.frame.can_id, c.joints[i].can_id);
    EXPECT_EQ(damp.frame.len, 8);
    EXPECT_EQ(damp.bus, 0u);
    const RawFrame& exit = frames[6 + i];
    EXPECT_EQ(exit.frame.can_id, c.joints[i].can_id);
    EXPECT_EQ(Hexify(std::span(exit.frame.data, 8)), "fffffffffffffffd") << "FD";
  }
  // L_Hip_Pitch: damp_kd 1.5; L_Ankle_A: damp_kd 1.0. Position, velocity, kp, torque zero.
  EXPECT_EQ(Hexify(std::span(frames[0].frame.data, 8)), "80008000004cd800");
  EXPECT_EQ(Hexify(std::span(frames[4].frame.data, 8)), "8000800000333800");
}

// SendRaw's order over buses, on FakeTransport: each RawFrame's interface index is its bus + 1,
// and a bus the test has stopped refuses like a full transmit queue (ENOBUFS).
namespace sending {

struct FakeBuses {
  explicit FakeBuses(std::size_t buses) : transport(std::vector<std::string>(buses, "fake")) {}
  FakeTransport transport;
  std::vector<std::size_t> attempts;  // the bus of every attempt, in order
  std::size_t stuck_bus = static_cast<std::size_t>(-1);
  int refusals_left = 1 << 30;  // of the stuck bus, before it takes frames again
  int error = ENOBUFS;          // what the stuck bus says

  static bool Send(void* context, const RawFrame& f) {
    auto* self = static_cast<FakeBuses*>(context);
    const std::size_t bus = static_cast<std::size_t>(f.address.can_ifindex - 1);
    self->attempts.push_back(bus);
    if (bus == self->stuck_bus && self->refusals_left-- > 0) {
      errno = self->error;
      return false;
    }
    const BusFrame frame{static_cast<std::uint32_t>(bus), f.frame};
    return self->transport.Send(std::span(&frame, 1)) == 1;
  }
};

// The default robot's frames, resolved as ResolvePlan() does (every DAMP, then every exit).
std::vector<RawFrame> Frames(const std::vector<BusDamp>& plan) {
  std::vector<RawFrame> frames;
  for (bool damp : {true, false}) {
    for (std::size_t b = 0; b < plan.size(); ++b) {
      for (const can_frame& f : damp ? plan[b].damp : plan[b].exit) {
        RawFrame r;
        r.address.can_family = AF_CAN;
        r.address.can_ifindex = static_cast<int>(b + 1);
        r.frame = f;
        r.bus = b;
        frames.push_back(r);
      }
    }
  }
  return frames;
}

// The frames `bus` received are its DAMP frames then its exit frames, in firmware order.
void ExpectDampThenExit(const FakeTransport& t, const BusDamp& plan, std::size_t bus) {
  std::vector<can_frame> expected = plan.damp;
  expected.insert(expected.end(), plan.exit.begin(), plan.exit.end());
  ASSERT_EQ(t.sent(bus).size(), expected.size()) << "bus " << bus;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(t.sent(bus)[i].can_id, expected[i].can_id) << "bus " << bus << " frame " << i;
    EXPECT_EQ(Hexify(std::span(t.sent(bus)[i].data, 8)), Hexify(std::span(expected[i].data, 8)))
        << "bus " << bus << " frame " << i;
  }
}

TEST(SendRaw, AStuckBusDelaysNoOtherBus) {
  const auto plan = DampPlanOf(config::WiringOf(test::DefaultConfig()));
  const auto frames = Frames(plan);
  FakeBuses buses(plan.size());
  buses.stuck_bus = 0;  // the first bus's transmit queue never drains
  std::vector<char> sent(frames.size());
  const std::size_t n = SendRawWith(&FakeBuses::Send, &buses, frames.data(), frames.size(),
                                    /*retries=*/25, reinterpret_cast<bool*>(sent.data()));
  EXPECT_EQ(n, frames.size() - 2 * plan[0].damp.size());
  for (std::size_t b = 1; b < plan.size(); ++b) ExpectDampThenExit(buses.transport, plan[b], b);
  EXPECT_TRUE(buses.transport.sent(0).empty());
  for (std::size_t i = 0; i < frames.size(); ++i) EXPECT_EQ(sent[i] != 0, frames[i].bus != 0);
  // Every other bus had all its frames before the stuck one was tried a second time.
  std::size_t last_other = 0;
  for (std::size_t i = 0; i < buses.attempts.size(); ++i) {
    if (buses.attempts[i] != 0) last_other = i;
  }
  const auto stuck_tries = std::count(buses.attempts.begin(),
                                      buses.attempts.begin() + static_cast<long>(last_other), 0u);
  EXPECT_EQ(stuck_tries, 1) << "one attempt at the stuck bus before the others were done";
  EXPECT_EQ(std::count(buses.attempts.begin(), buses.attempts.end(), 0u), 26)
      << "then its first frame is retried 25 times; its later frames wait behind it";
}

TEST(SendRaw, ABusThatDrainsGetsItsFramesInOrder) {
  const auto plan = DampPlanOf(config::WiringOf(test::DefaultConfig()));
  const auto frames = Frames(plan);
  FakeBuses buses(plan.size());
  buses.stuck_bus = 2;
  buses.refusals_left = 3;  // full for three passes
  EXPECT_EQ(SendRawWith(&FakeBuses::Send, &buses, frames.data(), frames.size(), 25), frames.size());
  for (std::size_t b = 0; b < plan.size(); ++b) ExpectDampThenExit(buses.transport, plan[b], b);
}

TEST(SendRaw, ALinkDownIsGivenUpWithoutRetries) {
  const auto plan = DampPlanOf(config::WiringOf(test::DefaultConfig()));
  const auto frames = Frames(plan);
  FakeBuses buses(plan.size());
  buses.stuck_bus = 1;
  buses.error = ENETDOWN;
  EXPECT_EQ(SendRawWith(&FakeBuses::Send, &buses, frames.data(), frames.size(), 25),
            frames.size() - 2 * plan[1].damp.size());
  EXPECT_EQ(static_cast<std::size_t>(std::count(buses.attempts.begin(), buses.attempts.end(), 1u)),
            2 * plan[1].damp.size())
      << "each of its frames tried once";
}

}  // namespace sending

}  // namespace
}  // namespace robot_edge::can
