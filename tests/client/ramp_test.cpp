// The smooth trajectory generator: starts at the measured pose, ends exactly at the goal, is
// monotone, respects the quintic's speed bound, one packet per 1 / rate s, every segment has a
// position for every joint.
#include "client/ramp.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace robot_edge::client {
namespace {

constexpr std::size_t kJoints = 25;

// Start 0.01·j rad; goal: joint 3 up by 0.8 rad, joint 15 down by 1.1 rad, joint 7 unchanged.
RampSpec TestSpec() {
  RampSpec spec;
  for (std::size_t j = 0; j < kJoints; ++j) spec.start.push_back(0.01f * static_cast<float>(j));
  spec.goal = spec.start;
  spec.goal[3] += 0.8f;
  spec.goal[15] -= 1.1f;
  spec.duration_s = 2.0;
  spec.packet_rate_hz = 50.0;
  spec.control_rate_hz = 500.0;
  return spec;
}

// Every segment of every packet, in the order the robot applies them.
std::vector<std::vector<float>> AllSegments(const Ramp& ramp) {
  std::vector<std::vector<float>> out;
  for (std::size_t p = 0; p < ramp.packet_count(); ++p) {
    for (auto& segment : ramp.Packet(p)) out.push_back(std::move(segment));
  }
  return out;
}

TEST(SmoothStep, EndsAndMiddleAndPeakSlope) {
  EXPECT_EQ(SmoothStep(-1.0), 0.0);
  EXPECT_EQ(SmoothStep(0.0), 0.0);
  EXPECT_DOUBLE_EQ(SmoothStep(0.5), 0.5);
  EXPECT_EQ(SmoothStep(1.0), 1.0);
  EXPECT_EQ(SmoothStep(2.0), 1.0);
  double max_slope = 0.0;
  const double h = 1e-5;
  for (double u = 0.0; u < 1.0; u += h) {
    const double slope = (SmoothStep(u + h) - SmoothStep(u)) / h;
    EXPECT_GE(slope, -1e-9) << u;  // non-decreasing, up to double rounding near u = 1
    max_slope = std::max(max_slope, slope);
  }
  EXPECT_NEAR(max_slope, kSmoothStepPeakSlope, 1e-4);
  // Zero velocity at both ends: a smooth start from rest and arrival at rest.
  EXPECT_NEAR((SmoothStep(h) - SmoothStep(0)) / h, 0.0, 1e-6);
  EXPECT_NEAR((SmoothStep(1) - SmoothStep(1 - h)) / h, 0.0, 1e-6);
}

TEST(Ramp, StartsExactlyAtTheMeasuredPose) {
  const RampSpec spec = TestSpec();
  const Ramp ramp(spec);
  EXPECT_EQ(ramp.Packet(0).front(), spec.start);
}

TEST(Ramp, EndsExactlyAtTheGoal) {
  const RampSpec spec = TestSpec();
  const Ramp ramp(spec);
  const auto last = ramp.Packet(ramp.packet_count() - 1);
  for (const auto& segment : last) EXPECT_EQ(segment, spec.goal);
  EXPECT_EQ(ramp.PoseAt(spec.duration_s), spec.goal);
}

TEST(Ramp, OnePacketPerPeriodCoveringTheDuration) {
  const Ramp ramp(TestSpec());
  EXPECT_EQ(ramp.packet_count(), 101u);  // 0, 0.02, ..., 2.00 s
  for (std::size_t p = 0; p < ramp.packet_count(); ++p) {
    EXPECT_DOUBLE_EQ(ramp.packet_time_s(p), static_cast<double>(p) / 50.0);
  }
  RampSpec odd = TestSpec();
  odd.duration_s = 1.99;  // not a whole number of periods: the last packet is still the goal
  const Ramp r(odd);
  EXPECT_GE(r.packet_time_s(r.packet_count() - 1), 1.99);
  EXPECT_LT(r.packet_time_s(r.packet_count() - 2), 1.99);
  EXPECT_EQ(r.Packet(r.packet_count() - 1).front(), odd.goal);
}

TEST(Ramp, EveryPacketCarriesTheControlTicksUntilTheNext) {
  const RampSpec spec = TestSpec();
  const Ramp ramp(spec);
  EXPECT_EQ(ramp.segments_per_packet(), 10u);  // 500 Hz / 50 Hz
  for (std::size_t p = 0; p < ramp.packet_count(); ++p) {
    const auto packet = ramp.Packet(p);
    ASSERT_EQ(packet.size(), 10u);
    for (std::size_t k = 0; k < packet.size(); ++k) {
      ASSERT_EQ(packet[k].size(), kJoints) << "packet " << p << " segment " << k;
      EXPECT_EQ(packet[k],
                ramp.PoseAt(ramp.packet_time_s(p) + static_cast<double>(k) * (1.0 / 500.0)));
    }
  }
  RampSpec unknown_rate = spec;
  unknown_rate.control_rate_hz = 0.0;
  EXPECT_EQ(Ramp(unknown_rate).Packet(0).size(), 1u);
}

TEST(Ramp, MonotoneTowardsTheGoalAndStillJointsStayStill) {
  const RampSpec spec = TestSpec();
  const auto segments = AllSegments(Ramp(spec));
  for (std::size_t i = 1; i < segments.size(); ++i) {
    EXPECT_GE(segments[i][3], segments[i - 1][3]) << i;    // rising joint
    EXPECT_LE(segments[i][15], segments[i - 1][15]) << i;  // falling joint
    EXPECT_EQ(segments[i][7], spec.start[7]) << i;         // not commanded: holds
  }
}

TEST(Ramp, SpeedBetweenTicksNeverExceedsThePeak) {
  const RampSpec spec = TestSpec();
  const Ramp ramp(spec);
  EXPECT_NEAR(ramp.peak_speed_rad_s(), 1.875 * 1.1 / 2.0, 1e-6);
  EXPECT_EQ(ramp.peak_joint(), 15u);
  const auto segments = AllSegments(ramp);
  const double tick_s = 1.0 / 500.0;
  double fastest = 0.0;
  for (std::size_t i = 1; i < segments.size(); ++i) {
    for (std::size_t j = 0; j < kJoints; ++j) {
      fastest = std::max(fastest, std::fabs(segments[i][j] - segments[i - 1][j]) / tick_s);
    }
  }
  EXPECT_LE(fastest, ramp.peak_speed_rad_s() * 1.001);
  EXPECT_GE(fastest, ramp.peak_speed_rad_s() * 0.99);  // and the bound is tight
}

TEST(Ramp, HoldKeepsSendingTheGoal) {
  RampSpec spec = TestSpec();
  spec.hold_s = 1.0;
  const Ramp ramp(spec);
  EXPECT_EQ(ramp.packet_count(), 151u);
  for (std::size_t p = 100; p < ramp.packet_count(); ++p) {
    EXPECT_EQ(ramp.Packet(p).back(), spec.goal) << p;
  }
}

TEST(Ramp, ZeroDurationHoldsThePose) {
  RampSpec spec = TestSpec();
  spec.goal = spec.start;
  spec.duration_s = 0.0;
  spec.hold_s = 0.5;
  const Ramp ramp(spec);
  EXPECT_EQ(ramp.packet_count(), 26u);
  EXPECT_EQ(ramp.peak_speed_rad_s(), 0.0);
  for (const auto& segment : AllSegments(ramp)) EXPECT_EQ(segment, spec.start);
}

TEST(Ramp, RefusesBadSpecs) {
  auto refused = [](auto change) {
    RampSpec spec = TestSpec();
    change(spec);
    EXPECT_THROW(Ramp{spec}, std::invalid_argument);
  };
  refused([](RampSpec& s) { s.goal.pop_back(); });
  refused([](RampSpec& s) { s.start.clear(), s.goal.clear(); });
  refused([](RampSpec& s) { s.goal[4] = std::nanf(""); });
  refused([](RampSpec& s) { s.duration_s = -1.0; });
  refused([](RampSpec& s) { s.hold_s = INFINITY; });
  refused([](RampSpec& s) { s.packet_rate_hz = 0.0; });
  refused([](RampSpec& s) { s.control_rate_hz = 20.0; });  // below the packet rate
}

}  // namespace
}  // namespace robot_edge::client
