// The one token comparison of the client API and the live view: equal contents only.
#include "access/tokens.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace robot_edge::access {
namespace {

TEST(TokensEqual, ComparesWholeContents) {
  EXPECT_TRUE(TokensEqual("secret", "secret"));
  EXPECT_TRUE(TokensEqual("", ""));
  EXPECT_FALSE(TokensEqual("secreT", "secret"));
  EXPECT_FALSE(TokensEqual("secret", "secreT"));
  EXPECT_FALSE(TokensEqual("secret1", "secret"));
  EXPECT_FALSE(TokensEqual("secret", "secret2"));
  EXPECT_FALSE(TokensEqual("secre", "secret"));
  EXPECT_FALSE(TokensEqual("", "secret"));
  EXPECT_FALSE(TokensEqual("secret", ""));
  EXPECT_FALSE(TokensEqual(std::string("secret\0", 7), "secret"));
  EXPECT_FALSE(TokensEqual(std::string_view("a\0b", 3), std::string_view("a\0c", 3)));
}

}  // namespace
}  // namespace robot_edge::access
