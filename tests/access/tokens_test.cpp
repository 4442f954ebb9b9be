// The one token comparison of the client API and the live view: equal contents only.
#include "access/tokens.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
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

// Red team of issue 38: a token file that is /dev/zero grew --check-config to 526 MB, a FIFO hung
// it forever. Only a regular file of at most 4 KiB is read.
TEST(ReadTokenFile, OnlyARegularFileOfAFewKilobytesIsRead) {
  const std::string dir = testing::TempDir() + "tokens_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::vector<std::string> warnings;
  const auto refusal = [&](const std::string& path) {
    try {
      ReadTokenFile("api.access.cloud.token_file", path, &warnings, kMinApiTokenBytes);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("read");
  };
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(refusal(fifo).find("is not a regular file"), std::string::npos) << refusal(fifo);
  EXPECT_NE(refusal("/dev/zero").find("is not a regular file"), std::string::npos);
  EXPECT_NE(refusal(dir).find("is not a regular file"), std::string::npos);
  std::ofstream(dir + "/big") << std::string(kMaxTokenFileBytes + 1, 'a');
  EXPECT_NE(refusal(dir + "/big").find("is larger than 4096 bytes"), std::string::npos);
  std::ofstream(dir + "/good") << std::string(kMaxTokenFileBytes - 1, 'a') << "\n";
  ::chmod((dir + "/good").c_str(), 0600);
  EXPECT_EQ(refusal(dir + "/good"), "read");
  EXPECT_EQ(ReadTokenFile("k", dir + "/good", &warnings, 16), std::string(4095, 'a'));
  EXPECT_TRUE(warnings.empty());
  std::filesystem::remove_all(dir);
}

// Issue 41: the readers trimmed three ways (robot-edged: line ends and spaces; the tools: all
// whitespace; the uplink: its first line, spaces and CR). One rule now: trailing whitespace,
// tabs included; whitespace inside or in front is part of the token.
TEST(TrimmedToken, DropsTrailingWhitespaceOnly) {
  EXPECT_EQ(TrimmedToken("secret\n"), "secret");
  EXPECT_EQ(TrimmedToken("secret \t\r\n"), "secret");
  EXPECT_EQ(TrimmedToken(" se cret\n"), " se cret");
  EXPECT_EQ(TrimmedToken("line one\nline two\n"), "line one\nline two");
  EXPECT_EQ(TrimmedToken(" \n\t"), "");
}

}  // namespace
}  // namespace robot_edge::access
