// One client's subscriptions: the protocol's rules (one per channel, ids unique per client).
#include "live/subscriptions.hpp"

#include <gtest/gtest.h>

namespace robot_edge::live {
namespace {

TEST(Subscriptions, OnePerChannelAndIdsUnique) {
  Subscriptions s;
  EXPECT_EQ(s.Add(0, 3), Subscriptions::Result::kOk);
  EXPECT_EQ(s.Add(0, 4), Subscriptions::Result::kIdInUse);
  EXPECT_EQ(s.Add(1, 3), Subscriptions::Result::kAlreadySubscribed);
  EXPECT_EQ(s.Add(1, 4), Subscriptions::Result::kOk);
  EXPECT_EQ(s.IdFor(3), 0u);
  EXPECT_EQ(s.IdFor(4), 1u);
  EXPECT_EQ(s.IdFor(5), std::nullopt);
  EXPECT_EQ(s.Channels(), (std::vector<std::uint32_t>{3, 4}));
  EXPECT_EQ(s.Remove(0), 3u);
  EXPECT_EQ(s.Remove(0), std::nullopt);
  EXPECT_EQ(s.Add(0, 3), Subscriptions::Result::kOk);  // ids may be reused after unsubscribe
  EXPECT_EQ(s.RemoveChannel(4), 1u);
  EXPECT_EQ(s.RemoveChannel(4), std::nullopt);
  EXPECT_EQ(s.size(), 1u);
}

}  // namespace
}  // namespace robot_edge::live
