// The reliable event stream: numbering, framing, and what a resuming client gets.
#include "daemon/api/event_log.hpp"

#include <gtest/gtest.h>

#include "edge_api.pb.h"
#include "proto/framing.hpp"

namespace robot_edge::daemon {
namespace {

edge::EdgeEvent Error(const std::string& code) {
  edge::EdgeEvent e;
  e.mutable_error()->set_code(code);
  return e;
}

edge::ServerMessage Decode(const Frame& frame) {
  proto::FrameDecoder d;
  d.Feed(*frame);
  std::span<const std::uint8_t> payload;
  EXPECT_EQ(d.Next(&payload), proto::FrameDecoder::Status::kMessage);
  edge::ServerMessage m;
  EXPECT_TRUE(m.ParseFromArray(payload.data(), static_cast<int>(payload.size())));
  return m;
}

TEST(EventLog, NumbersFromOneAndStampsTheTime) {
  EventLog log(16);
  const auto m1 = Decode(log.Append(Error("A"), 111));
  const auto m2 = Decode(log.Append(Error("B"), 222));
  EXPECT_EQ(m1.event().sequence(), 1u);
  EXPECT_EQ(m1.event().timestamp_us(), 111u);
  EXPECT_EQ(m2.event().sequence(), 2u);
  EXPECT_EQ(m2.event().error().code(), "B");
  EXPECT_EQ(log.last_sequence(), 2u);
}

TEST(EventLog, ResumeGivesWhatWasMissedInOrder) {
  EventLog log(16);
  for (int i = 0; i < 5; ++i) log.Append(Error("E" + std::to_string(i + 1)), 0);
  const auto missed = log.Since(2);
  ASSERT_EQ(missed.size(), 3u);
  EXPECT_EQ(Decode(missed[0]).event().sequence(), 3u);
  EXPECT_EQ(Decode(missed[2]).event().error().code(), "E5");
  EXPECT_TRUE(log.Since(5).empty());
  EXPECT_EQ(log.Since(0).size(), 5u);
}

TEST(EventLog, KeepsOnlyTheMostRecent) {
  EventLog log(3);
  for (int i = 0; i < 10; ++i) log.Append(Error("E"), 0);
  EXPECT_EQ(log.oldest_sequence(), 8u);
  const auto kept = log.Since(1);
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(Decode(kept[0]).event().sequence(), 8u);
}

}  // namespace
}  // namespace robot_edge::daemon
