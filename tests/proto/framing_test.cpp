// The delimited-framing codec: whole messages out of any split or merge of the byte stream, and a
// clear, sticky error for oversize or malformed length prefixes.
#include "proto/framing.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "edge_api.pb.h"

namespace robot_edge::proto {
namespace {

using Status = FrameDecoder::Status;

std::string Framed(const std::string& payload) {
  std::string out;
  AppendVarint(payload.size(), &out);
  return out + payload;
}

std::vector<std::string> DrainAll(FrameDecoder* d, Status* last) {
  std::vector<std::string> messages;
  std::span<const std::uint8_t> payload;
  while ((*last = d->Next(&payload)) == Status::kMessage) {
    messages.emplace_back(payload.begin(), payload.end());
  }
  return messages;
}

TEST(Varint, EncodesAndDecodesBoundaries) {
  for (std::uint64_t v :
       {0ull, 1ull, 127ull, 128ull, 300ull, 16383ull, 16384ull, 65536ull, 0xFFFFFFFFull}) {
    std::string bytes;
    AppendVarint(v, &bytes);
    std::uint64_t decoded = 0;
    const int used = DecodeVarint(
        std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), &decoded);
    EXPECT_EQ(used, static_cast<int>(bytes.size())) << v;
    EXPECT_EQ(decoded, v);
  }
  std::string b;
  AppendVarint(300, &b);
  EXPECT_EQ(b, std::string("\xAC\x02"));  // protobuf documentation's example
}

TEST(FrameDecoder, MessageSplitAcrossEveryByteBoundary) {
  const std::string stream = Framed("hello robot") + Framed("second");
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    FrameDecoder d;
    Status last;
    d.Feed(std::string_view(stream).substr(0, cut));
    auto got = DrainAll(&d, &last);
    EXPECT_EQ(last, Status::kNeedMore);
    d.Feed(std::string_view(stream).substr(cut));
    auto rest = DrainAll(&d, &last);
    got.insert(got.end(), rest.begin(), rest.end());
    ASSERT_EQ(got.size(), 2u) << "cut at " << cut;
    EXPECT_EQ(got[0], "hello robot");
    EXPECT_EQ(got[1], "second");
    EXPECT_EQ(d.buffered_bytes(), 0u);
  }
}

TEST(FrameDecoder, ByteAtATime) {
  const std::string stream = Framed(std::string(300, 'x'));  // two-byte length prefix
  FrameDecoder d;
  Status last;
  std::vector<std::string> got;
  for (char c : stream) {
    d.Feed(std::string_view(&c, 1));
    auto some = DrainAll(&d, &last);
    got.insert(got.end(), some.begin(), some.end());
  }
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], std::string(300, 'x'));
}

// Ready() says whether Next() would give something now, at every cut of a two-byte-prefix frame:
// not before the last byte, then yes until the message is taken.
TEST(FrameDecoder, ReadyOnlyWhenAWholeMessageIsBuffered) {
  const std::string stream = Framed(std::string(300, 'x'));
  FrameDecoder d;
  EXPECT_FALSE(d.Ready());
  for (std::size_t i = 0; i < stream.size(); ++i) {
    EXPECT_FALSE(d.Ready()) << "after " << i << " bytes";
    d.Feed(std::string_view(stream).substr(i, 1));
  }
  EXPECT_TRUE(d.Ready());
  std::span<const std::uint8_t> payload;
  ASSERT_EQ(d.Next(&payload), Status::kMessage);
  EXPECT_FALSE(d.Ready());
}

TEST(FrameDecoder, ReadyOnAStreamErrorSoThatTheReaderSeesIt) {
  FrameDecoder bad;
  bad.Feed(std::string(6, '\xFF'));  // a varint longer than five bytes
  EXPECT_TRUE(bad.Ready());
  FrameDecoder oversize(16);
  std::string prefix;
  AppendVarint(17, &prefix);
  oversize.Feed(prefix);  // announces more than the limit: no need to wait for the body
  EXPECT_TRUE(oversize.Ready());
  std::span<const std::uint8_t> payload;
  EXPECT_EQ(oversize.Next(&payload), Status::kOversize);
  EXPECT_TRUE(oversize.Ready());
}

TEST(FrameDecoder, ManyMessagesMergedInOneRead) {
  std::string stream;
  for (int i = 0; i < 50; ++i) stream += Framed("m" + std::to_string(i));
  stream += Framed("");  // an empty message is a valid frame
  FrameDecoder d;
  d.Feed(stream);
  Status last;
  const auto got = DrainAll(&d, &last);
  ASSERT_EQ(got.size(), 51u);
  EXPECT_EQ(got[49], "m49");
  EXPECT_EQ(got[50], "");
  EXPECT_EQ(last, Status::kNeedMore);
}

TEST(FrameDecoder, AcceptsExactlyTheLimitAndRejectsOneMore) {
  FrameDecoder ok;
  ok.Feed(Framed(std::string(kMaxMessageBytes, 'a')));
  std::span<const std::uint8_t> payload;
  EXPECT_EQ(ok.Next(&payload), Status::kMessage);
  EXPECT_EQ(payload.size(), kMaxMessageBytes);

  FrameDecoder over;
  std::string prefix;
  AppendVarint(kMaxMessageBytes + 1, &prefix);
  over.Feed(prefix);  // detected from the prefix alone, before any payload arrives
  EXPECT_EQ(over.Next(&payload), Status::kOversize);
  EXPECT_EQ(over.announced_length(), kMaxMessageBytes + 1);
  over.Feed(Framed("valid"));  // sticky: the stream stays unusable
  EXPECT_EQ(over.Next(&payload), Status::kOversize);
}

TEST(FrameDecoder, GarbageLengthPrefixIsAnError) {
  FrameDecoder d;
  d.Feed(std::string(6, '\xFF'));  // a varint that never ends
  std::span<const std::uint8_t> payload;
  EXPECT_EQ(d.Next(&payload), Status::kBadLength);
  EXPECT_EQ(d.Next(&payload), Status::kBadLength);
  EXPECT_STREQ(ToString(Status::kBadLength), "malformed length prefix");
}

TEST(FrameDecoder, HugeVarintIsOversizeNotOverflow) {
  FrameDecoder d;
  d.Feed(std::string("\xFF\xFF\xFF\xFF\x0F", 5));  // 2^32 - 1
  std::span<const std::uint8_t> payload;
  EXPECT_EQ(d.Next(&payload), Status::kOversize);
}

TEST(FrameDecoder, RoundTripsARealClientMessage) {
  edge::ClientMessage msg;
  msg.mutable_hello()->set_controller("cloud");
  msg.mutable_hello()->set_resume_after_event(42);
  std::string stream;
  ASSERT_TRUE(AppendDelimited(msg, &stream));
  ASSERT_TRUE(AppendDelimited(msg, &stream));
  FrameDecoder d;
  d.Feed(stream);
  for (int i = 0; i < 2; ++i) {
    std::span<const std::uint8_t> payload;
    ASSERT_EQ(d.Next(&payload), Status::kMessage);
    edge::ClientMessage back;
    ASSERT_TRUE(back.ParseFromArray(payload.data(), static_cast<int>(payload.size())));
    EXPECT_EQ(back.hello().controller(), "cloud");
    EXPECT_EQ(back.hello().resume_after_event(), 42u);
  }
}

TEST(AppendDelimited, RefusesOversizeMessages) {
  edge::ClientMessage msg;
  msg.mutable_hello()->set_token(std::string(kMaxMessageBytes, 't'));
  std::string out;
  EXPECT_FALSE(AppendDelimited(msg, &out));
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace robot_edge::proto
