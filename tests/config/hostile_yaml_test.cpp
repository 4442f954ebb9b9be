// Hostile YAML: whatever the config or calibration file holds (an alias that contains itself,
// an anchor reused until the document explodes, nesting thousands deep, megabytes), the reader
// answers with "file:line: message" or reads it, quickly, and never crashes (README "Safety").
// Each shape first runs in a child process under a time limit, so that a crash or a stall fails
// the test instead of taking the test program with it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "config/config.hpp"
#include "config/yaml_reader.hpp"

namespace robot_edge::config {
namespace {

// Every problem ParseConfig reports for `text` ("" = none).
std::string Problems(const std::string& text) {
  try {
    ParseConfig(text, "hostile.yaml");
    return "";
  } catch (const ConfigError& e) {
    return e.what();
  }
}

std::string CalibrationProblems(const std::string& text) {
  Config c;
  c.source = "robot-edge.yaml";
  c.joints.resize(1);
  c.joints[0].name = "L_Knee";
  try {
    ApplyCalibration(text, "calibration.yaml", &c);
    return "";
  } catch (const ConfigError& e) {
    return e.what();
  }
}

// Parses `text` in a child process that must exit within `seconds`: a SIGSEGV, a stack overflow
// or a stall fails the test.
void ExpectNoCrashOrStall(const std::string& text, unsigned seconds = 5) {
  EXPECT_EXIT(
      {
        ::alarm(seconds);
        Problems(text);
        CalibrationProblems(text);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "")
      << text.substr(0, 60);
}

std::string Repeat(const std::string& s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

// The reproducer: `robot: &a\n  x: *a\n` made robot-edged --check-config die of SIGSEGV.
TEST(HostileYaml, AnAliasThatContainsItselfIsAnErrorOnItsLine) {
  const char* cycles[][2] = {
      {"robot: &a\n  x: *a\n", "hostile.yaml:2: robot.x: an alias refers to a mapping or list"},
      {"robot: &a [1, *a]\n", "hostile.yaml:1: robot[1]: an alias refers to a mapping or list"},
      {"robot: &a\n  b:\n    c: [0, {d: *a}]\n",
       "hostile.yaml:3: robot.b.c[1].d: an alias refers to a mapping or list"},
      {"&a {robot: *a}\n", "hostile.yaml:1: robot: an alias refers to a mapping or list"},
  };
  for (const auto& [text, expected] : cycles) {
    ExpectNoCrashOrStall(text);
    if (HasFailure()) return;
    EXPECT_NE(Problems(text).find(expected), std::string::npos) << Problems(text);
  }
}

TEST(HostileYaml, AnAliasCycleInTheCalibrationFileIsAnError) {
  const std::string text = "offsets: &a\n  L_Knee: *a\n";
  ExpectNoCrashOrStall(text);
  if (HasFailure()) return;
  EXPECT_NE(CalibrationProblems(text).find("calibration.yaml:2: offsets.L_Knee: an alias refers"),
            std::string::npos)
      << CalibrationProblems(text);
}

// "Billion laughs": 12 anchors, each a list of ten aliases of the one before, expand to 10^12
// values from 1 KiB of text. Refused at kMaxNodes, in well under a second.
TEST(HostileYaml, AnAnchorReusedUntilTheDocumentExplodesIsRefusedQuickly) {
  std::string text = "robot:\n  l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 12; ++i) {
    const std::string prev = "*l" + std::to_string(i - 1);
    text += "  l" + std::to_string(i) + ": &l" + std::to_string(i) + " [" + Repeat(prev + ", ", 9) +
            prev + "]\n";
  }
  ExpectNoCrashOrStall(text, 2);
  if (HasFailure()) return;
  const auto start = std::chrono::steady_clock::now();
  const std::string problems = Problems(text);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_NE(problems.find("expands to more than 100000 values"), std::string::npos) << problems;
  EXPECT_EQ(problems.rfind("hostile.yaml:", 0), 0u) << problems;
}

// An anchor used a few thousand times is ordinary YAML: read (here only the unknown key is
// reported), not refused.
TEST(HostileYaml, AnAnchorReusedThousandsOfTimesWithinTheBoundIsRead) {
  const std::string text =
      "robot:\n  name: r\nextra:\n  a: &a [1, 2, 3]\n  b: [" + Repeat("*a, ", 5000) + "*a]\n";
  ExpectNoCrashOrStall(text, 2);
  if (HasFailure()) return;
  const std::string problems = Problems(text);
  EXPECT_NE(problems.find("hostile.yaml:3: extra: unknown key"), std::string::npos) << problems;
  EXPECT_EQ(problems.find("expands"), std::string::npos) << problems;
}

TEST(HostileYaml, FlowNestingThousandsDeepIsAnErrorNotAStackOverflow) {
  for (const std::string open : {"[", "{a: ", "[{a: ", "!!seq ["}) {
    const std::string text = "robot: " + Repeat(open, 20000) + "\n";  // < 256 KiB
    ExpectNoCrashOrStall(text);
    if (HasFailure()) return;
    const std::string problems = Problems(text);
    EXPECT_EQ(problems.rfind("hostile.yaml:", 0), 0u) << problems;
    EXPECT_NE(problems.find(": nested too deeply for the YAML parser"), std::string::npos)
        << problems;
  }
}

// Below yaml-cpp's own limit, our walk stops at kMaxNestingDepth with the line it reached.
TEST(HostileYaml, BlockNestingPastTheBoundNamesTheLine) {
  std::string text = "robot:\n";
  for (int depth = 1; depth <= 40; ++depth) text += std::string(2 * depth, ' ') + "k:\n";
  ExpectNoCrashOrStall(text);
  if (HasFailure()) return;
  const std::string problems = Problems(text);
  EXPECT_NE(problems.find("hostile.yaml:33: robot" + Repeat(".k", 32) + ": nested deeper than 32"),
            std::string::npos)
      << problems;
  std::string lists = "robot:\n" + Repeat("- ", 40) + "x\n";
  EXPECT_NE(Problems(lists).find("nested deeper than 32 levels"), std::string::npos)
      << Problems(lists);
}

TEST(HostileYaml, AMultiMegabyteDocumentIsRefusedWithTheLineWhereItPassesTheBound) {
  const std::string comments = Repeat("# " + std::string(62, 'x') + "\n", 5000);  // 320 KiB
  EXPECT_EQ(Problems(comments).rfind("hostile.yaml:4033: the file passes 256 KiB here", 0), 0u)
      << Problems(comments);
  const std::string values = "robot: [" + Repeat("a,", 2'000'000) + "a]\n";  // 4 MB
  ExpectNoCrashOrStall(values, 2);
  if (HasFailure()) return;
  EXPECT_NE(Problems(values).find("passes 256 KiB"), std::string::npos);
  EXPECT_NE(CalibrationProblems(values).find("calibration.yaml:1: the file passes 256 KiB"),
            std::string::npos);
}

// The largest document within the bounds is read in well under a second.
TEST(HostileYaml, ADocumentAtTheSizeBoundIsReadQuickly) {
  const std::string text = "robot: {name: r}\nextra: [" + Repeat("a,", 60'000) + "a]\n";
  ASSERT_LT(text.size(), detail::kMaxDocumentBytes);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_NE(Problems(text).find("hostile.yaml:2: extra: unknown key"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

}  // namespace
}  // namespace robot_edge::config
