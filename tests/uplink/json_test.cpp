// The uplink's one JSON string writer (uplink/json.hpp): issue 41 found three copies, each of
// which dropped control characters; they are escaped now, as JSON says.
#include "uplink/json.hpp"

#include <gtest/gtest.h>

namespace robot_edge::uplink {
namespace {

TEST(JsonEscaped, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonEscaped("plain"), "plain");
  EXPECT_EQ(JsonEscaped(R"(say "no" \ then)"), R"(say \"no\" \\ then)");
  EXPECT_EQ(JsonEscaped("line\nnext\ttab\x01"), R"(line\u000anext\u0009tab\u0001)");
  EXPECT_EQ(JsonEscaped("°C"), "°C") << "UTF-8 passes as it is";
  EXPECT_EQ(JsonQuoted("a\"b"), R"("a\"b")");
}

}  // namespace
}  // namespace robot_edge::uplink
