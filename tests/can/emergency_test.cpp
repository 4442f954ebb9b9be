// The emergency frames: DAMP (kp 0, the joint's damp_kd) to every motor, then exit motor mode.
#include "can/emergency.hpp"

#include <gtest/gtest.h>
#include <net/if.h>

#include "hex.hpp"

namespace robot_edge::can {
namespace {

using test::Hexify;

TEST(EmergencyFrames, DampToEveryMotorThenExitMotorModeAndMissingBusesNamed) {
  config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  c.buses[0].interface = "lo";  // exists on every machine (the frames are only built here)
  for (std::size_t b = 1; b < c.buses.size(); ++b)
    c.buses[b].interface = "nocan" + std::to_string(b);
  std::vector<std::string> missing;
  const auto frames = EmergencyFrames(c, &missing);
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

}  // namespace
}  // namespace robot_edge::can
