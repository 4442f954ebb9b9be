// Who may command: acquire, override, timeout, disconnect, and DAMP from everyone.
#include "daemon/api/controller_arbiter.hpp"

#include <gtest/gtest.h>

namespace robot_edge::daemon {
namespace {

constexpr std::int64_t kS = 1'000'000;

class Arbiter : public testing::Test {
 protected:
  ControllerArbiter a{{"ble", "cloud"}, 10 * kS};
};

TEST_F(Arbiter, TheFirstCommandingControllerAcquiresControl) {
  const auto d = a.OnCommand(1, "cloud", false, 0);
  EXPECT_TRUE(d.accepted);
  ASSERT_TRUE(d.change);
  EXPECT_EQ(d.change->previous, "");
  EXPECT_EQ(d.change->current, "cloud");
  EXPECT_EQ(d.change->reason, "acquired");
  EXPECT_EQ(a.holder(), 1u);
  const auto again = a.OnCommand(1, "cloud", false, 1);
  EXPECT_TRUE(again.accepted);
  EXPECT_FALSE(again.change) << "no event while control stays with the holder";
}

TEST_F(Arbiter, AHigherPriorityControllerOverrides) {
  a.OnCommand(1, "cloud", false, 0);
  const auto d = a.OnCommand(2, "ble", false, 1);
  EXPECT_TRUE(d.accepted);
  ASSERT_TRUE(d.change);
  EXPECT_EQ(d.change->previous, "cloud");
  EXPECT_EQ(d.change->current, "ble");
  EXPECT_EQ(d.change->reason, "override");
  EXPECT_EQ(a.current(), "ble");
}

TEST_F(Arbiter, ALowerOrEqualPriorityClientIsRefused) {
  a.OnCommand(2, "ble", false, 0);
  EXPECT_FALSE(a.OnCommand(1, "cloud", false, 1).accepted);
  a = ControllerArbiter({"ble", "cloud"}, 10 * kS);
  a.OnCommand(1, "cloud", false, 0);
  const auto same_name = a.OnCommand(3, "cloud", false, 1);  // a second cloud connection
  EXPECT_FALSE(same_name.accepted);
  EXPECT_FALSE(same_name.change);
}

TEST_F(Arbiter, DampIsAcceptedFromEveryClientWithoutTakingControl) {
  a.OnCommand(2, "ble", false, 0);
  const auto from_cloud = a.OnCommand(1, "cloud", true, 1);
  EXPECT_TRUE(from_cloud.accepted);
  EXPECT_FALSE(from_cloud.change);
  const auto from_observer = a.OnCommand(9, "", true, 2);
  EXPECT_TRUE(from_observer.accepted);
  EXPECT_EQ(a.current(), "ble");
  EXPECT_FALSE(a.OnCommand(9, "", false, 3).accepted) << "observers may only DAMP";
}

TEST_F(Arbiter, ObserversNeverAcquireControl) {
  const auto d = a.OnCommand(9, "", true, 0);
  EXPECT_TRUE(d.accepted);
  EXPECT_FALSE(d.change);
  EXPECT_EQ(a.holder(), 0u);
}

TEST_F(Arbiter, ControlIsReleasedAfterTheIdleTimeout) {
  a.OnCommand(1, "cloud", false, 0);
  a.OnCommand(1, "cloud", false, 5 * kS);  // refreshes
  EXPECT_FALSE(a.OnTimer(14 * kS));
  const auto change = a.OnTimer(15 * kS);
  ASSERT_TRUE(change);
  EXPECT_EQ(change->previous, "cloud");
  EXPECT_EQ(change->current, "");
  EXPECT_EQ(change->reason, "timeout");
  EXPECT_TRUE(a.OnCommand(3, "cloud", false, 16 * kS).change) << "free to acquire again";
}

TEST_F(Arbiter, ControlIsReleasedWhenTheHolderDisconnects) {
  a.OnCommand(1, "cloud", false, 0);
  EXPECT_FALSE(a.OnDisconnect(2)) << "someone else leaving changes nothing";
  const auto change = a.OnDisconnect(1);
  ASSERT_TRUE(change);
  EXPECT_EQ(change->reason, "disconnect");
  EXPECT_EQ(change->previous, "cloud");
  EXPECT_EQ(a.holder(), 0u);
}

TEST_F(Arbiter, KnowsTheConfiguredNames) {
  EXPECT_TRUE(a.IsController("ble"));
  EXPECT_TRUE(a.IsController("cloud"));
  EXPECT_FALSE(a.IsController(""));
  EXPECT_FALSE(a.IsController("phone"));
}

}  // namespace
}  // namespace robot_edge::daemon
